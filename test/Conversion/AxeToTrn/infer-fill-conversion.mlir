// %x is A of one gemm (K = dim 1 on the partitions) and B of the other
// (K = dim 0 on the partitions), so axe-infer-layouts converts it for one
// of them. Each gemm's zero fill is pinned to matmul-start (folded into the
// gemm's start flag), which needs the gemm right after the fill: the
// conversion copy used to be put between them, and axe-dispatch then
// refused the pinned fill. It now goes before the fill. main checks every
// element of both products against a reference computed here.
// RUN: axe-opt %s -axe-infer-layouts | FileCheck %s --check-prefix=INFER
// RUN: axe-opt %s --axe-to-trn | FileCheck %s --check-prefix=TRN
// RUN: axe-opt %s --axe-to-trn | axe-trn-sim -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | FileCheck %s
// INFER: axe.copy %{{.*}} to %[[X:[a-z0-9_]+]] at cta :
// INFER-NEXT: axe.fill %[[P:[a-z0-9_]+]], %{{.*}} {schedule = {trn1 = "matmul-start"}}
// INFER-NEXT: axe.gemm {{.*}}into %[[P]]
// INFER: axe.copy %{{.*}} to %[[X2:[a-z0-9_]+]] at cta :
// INFER-NEXT: axe.fill %[[P2:[a-z0-9_]+]], %{{.*}} {schedule = {trn1 = "matmul-start"}}
// INFER-NEXT: axe.gemm {{.*}}into %[[P2]]
// The fills are start flags, not memsets.
// TRN-NOT: trn.memset
// TRN: trn.matmul {{.*}} start
// TRN: trn.matmul {{.*}} start
// CHECK: C1 mismatches: 0
// CHECK-NEXT: C2 mismatches: 0

!h = !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, hbm>
!s = !axe.buffer<32x32xf32, ?, sbuf>
!p = !axe.buffer<32x32xf32, ?, psum>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k(%X: memref<32x32xf32>, %Y: memref<32x32xf32>, %C1: memref<32x32xf32>, %C2: memref<32x32xf32>) {
    %zero = arith.constant 0.0 : f32
    axe.kernel {
      %hX = axe.view %X[0, 0] : memref<32x32xf32> -> !h
      %hY = axe.view %Y[0, 0] : memref<32x32xf32> -> !h
      %h1 = axe.view %C1[0, 0] : memref<32x32xf32> -> !h
      %h2 = axe.view %C2[0, 0] : memref<32x32xf32> -> !h
      %x = axe.alloc : !s
      %y = axe.alloc : !s
      axe.copy %hX to %x at cta : !h to !s
      axe.copy %hY to %y at cta : !h to !s
      %p1 = axe.alloc : !p
      axe.fill %p1, %zero at cta : !p
      axe.gemm %x, %y into %p1 at cta : !s, !s into !p
      %p2 = axe.alloc : !p
      axe.fill %p2, %zero at cta : !p
      axe.gemm %y, %x into %p2 at cta : !s, !s into !p
      %s1 = axe.alloc : !s
      %s2 = axe.alloc : !s
      axe.copy %p1 to %s1 at cta : !p to !s
      axe.copy %p2 to %s2 at cta : !p to !s
      axe.copy %s1 to %h1 at cta : !s to !h
      axe.copy %s2 to %h2 at cta : !s to !h
    }
    return
  }

  // C[i][j] = sum_k P[i][k] Q[k][j], the number of elements that differ.
  func.func @check(%P: memref<32x32xf32>, %Q: memref<32x32xf32>, %C: memref<32x32xf32>) -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %zf = arith.constant 0.0 : f32
    %bad = scf.for %i = %c0 to %c32 step %c1 iter_args(%n = %zi) -> (i64) {
      %row = scf.for %j = %c0 to %c32 step %c1 iter_args(%n1 = %n) -> (i64) {
        %dot = scf.for %k = %c0 to %c32 step %c1 iter_args(%s = %zf) -> (f32) {
          %a = memref.load %P[%i, %k] : memref<32x32xf32>
          %b = memref.load %Q[%k, %j] : memref<32x32xf32>
          %p = arith.mulf %a, %b : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        %got = memref.load %C[%i, %j] : memref<32x32xf32>
        %ne = arith.cmpf une, %got, %dot : f32
        %inc = arith.select %ne, %one, %zi : i64
        %n2 = arith.addi %n1, %inc : i64
        scf.yield %n2 : i64
      }
      scf.yield %row : i64
    }
    return %bad : i64
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %nan = arith.constant 0x7FC00000 : f32
    %f3 = arith.constant 3.0 : f32
    %f4 = arith.constant 4.0 : f32
    %X = memref.alloc() : memref<32x32xf32>
    %Y = memref.alloc() : memref<32x32xf32>
    %C1 = memref.alloc() : memref<32x32xf32>
    %C2 = memref.alloc() : memref<32x32xf32>
    // X[i][j] = (i + 3j) % 7 - 3, Y[i][j] = (5i + j) % 8 - 4: small
    // integers, so every sum is exact in f32. C1 and C2 start as NaN.
    scf.for %i = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %t = arith.muli %j, %c3 : index
        %u = arith.addi %i, %t : index
        %w = arith.remui %u, %c7 : index
        %x = arith.index_cast %w : index to i64
        %y = arith.sitofp %x : i64 to f32
        %v = arith.subf %y, %f3 : f32
        memref.store %v, %X[%i, %j] : memref<32x32xf32>
        %t2 = arith.muli %i, %c5 : index
        %u2 = arith.addi %t2, %j : index
        %w2 = arith.remui %u2, %c8 : index
        %x2 = arith.index_cast %w2 : index to i64
        %y2 = arith.sitofp %x2 : i64 to f32
        %v2 = arith.subf %y2, %f4 : f32
        memref.store %v2, %Y[%i, %j] : memref<32x32xf32>
        memref.store %nan, %C1[%i, %j] : memref<32x32xf32>
        memref.store %nan, %C2[%i, %j] : memref<32x32xf32>
      }
    }
    call @k(%X, %Y, %C1, %C2) : (memref<32x32xf32>, memref<32x32xf32>, memref<32x32xf32>, memref<32x32xf32>) -> ()
    %bad1 = call @check(%X, %Y, %C1) : (memref<32x32xf32>, memref<32x32xf32>, memref<32x32xf32>) -> i64
    %bad2 = call @check(%Y, %X, %C2) : (memref<32x32xf32>, memref<32x32xf32>, memref<32x32xf32>) -> i64
    vector.print str "C1 mismatches: "
    vector.print %bad1 : i64
    vector.print str "C2 mismatches: "
    vector.print %bad2 : i64
    memref.dealloc %X : memref<32x32xf32>
    memref.dealloc %Y : memref<32x32xf32>
    memref.dealloc %C1 : memref<32x32xf32>
    memref.dealloc %C2 : memref<32x32xf32>
    return
  }
}
