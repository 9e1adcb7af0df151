// RUN: axe-opt %s --axe-dispatch="target=cpu" --convert-axe-to-cpu --split-input-file | FileCheck %s

// A copy on the CPU has completed when it returns, so the tokens of
// axe.copy_async carry nothing: convert-axe-to-cpu removes them with the
// waits on them and with the loop-carried values, yields and results of the
// scf ops that pass them on. (Executed: test/Integration/CrossTarget/copy-async-pipeline.mlir.)

!g = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (16, 1)]>, global>
!s = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (1, 4)]>, shared>

// Double buffering: the copy of the next tile starts before the current one
// is used, its token carried to the next iteration.
// CHECK-LABEL: func @token_through_for
// CHECK-NOT: !axe.token
// CHECK-NOT: axe.wait
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NOT: !axe.token
// CHECK-NOT: axe.wait
// CHECK: return
func.func @token_through_for(%A: memref<4x16xf32>, %B: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  axe.kernel grid [1] threads 32 {
    %s = axe.alloc : !s
    %a0 = axe.view %A[0, 0] : memref<4x16xf32> -> !g
    %t0 = axe.copy_async %a0 to %s at cta : !g to !s
    %tf = scf.for %k = %c0 to %c4 step %c1 iter_args(%t = %t0) -> (!axe.token) {
      axe.wait %t at cta
      %col = arith.muli %k, %c4 : index
      %b = axe.view %B[0, %col] : memref<4x16xf32> -> !g
      axe.copy %s to %b at cta : !s to !g
      %kn = arith.addi %k, %c1 : index
      %km = arith.minui %kn, %c3 : index
      %cn = arith.muli %km, %c4 : index
      %an = axe.view %A[0, %cn] : memref<4x16xf32> -> !g
      %t2 = axe.copy_async %an to %s at cta : !g to !s
      scf.yield %t2 : !axe.token
    }
    axe.wait %tf at cta
  }
  return
}

// -----

!g = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (16, 1)]>, global>
!s = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (1, 4)]>, shared>

// Tokens chosen by scf.if, carried through nested loops next to other
// loop-carried values, and waited on together.
// CHECK-LABEL: func @token_through_if_and_nested_loops
// CHECK-NOT: !axe.token
// CHECK-NOT: axe.wait
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (index)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (index)
// CHECK-NOT: !axe.token
// CHECK-NOT: axe.wait
// CHECK: return
func.func @token_through_if_and_nested_loops(%A: memref<4x16xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  axe.kernel grid [1] threads 64 {
    %s = axe.alloc : !s
    %a = axe.view %A[0, 0] : memref<4x16xf32> -> !g
    %t0 = axe.copy_async %a to %s at cta : !g to !s
    %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%t = %t0, %n = %c0) -> (!axe.token, index) {
      %q:2 = scf.for %j = %c0 to %c2 step %c1 iter_args(%u = %t, %m = %n) -> (!axe.token, index) {
        %v = scf.if %c -> (!axe.token) {
          %t1 = axe.copy_async %a to %s at cta : !g to !s
          scf.yield %t1 : !axe.token
        } else {
          scf.yield %u : !axe.token
        }
        %m1 = arith.addi %m, %c1 : index
        scf.yield %v, %m1 : !axe.token, index
      }
      axe.wait %t, %q#0 at cta
      scf.yield %q#0, %q#1 : !axe.token, index
    }
    axe.wait %r#0 at cta
  }
  return
}

// -----

!g = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (16, 1)]>, global>
!s = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (1, 4)]>, shared>

// A token carried by scf.while, from a copy at warp scope (inside the loop
// over warps that dispatch emits).
// CHECK-LABEL: func @token_through_while
// CHECK-NOT: !axe.token
// CHECK-NOT: axe.wait
// CHECK: scf.while (%{{.*}} = %{{.*}}) : (index) -> index
// CHECK-NOT: !axe.token
// CHECK: return
func.func @token_through_while(%A: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  axe.kernel grid [1] threads 32 {
    %s = axe.alloc : !s
    %a = axe.view %A[0, 0] : memref<4x16xf32> -> !g
    %t0 = axe.copy_async %a to %s at warp : !g to !s
    %r:2 = scf.while (%t = %t0, %i = %c0) : (!axe.token, index) -> (!axe.token, index) {
      %go = arith.cmpi ult, %i, %c4 : index
      scf.condition(%go) %t, %i : !axe.token, index
    } do {
    ^bb0(%u: !axe.token, %j: index):
      axe.wait %u at warp
      %t1 = axe.copy_async %a to %s at warp : !g to !s
      %j1 = arith.addi %j, %c1 : index
      scf.yield %t1, %j1 : !axe.token, index
    }
    axe.wait %r#0 at warp
  }
  return
}
