// A TMA load into a `?` buffer whose axe.wait is nested in a region. The
// wgmma gemm wants a 128B-swizzled A and B that TMA cannot write here, so
// inference either lets TMA write a row-major scratch buffer and copies it
// back, or converts on the gemm's side. A copy back must come after the
// wait that completes the load: it used to be put right after the
// axe.copy_async whenever the wait was not in the same block, and the copy
// read shared memory the TMA load was still writing.
//  * @wait_in_if: the copy back goes right after the wait, inside the if;
//  * @wait_in_loop: the wait is in a loop that touches nothing else, the
//    copy goes after the loop (inside, it would run again every trip);
//  * @use_in_loop: the loop also runs the gemm, so there is no one place
//    for a copy back; the conversion is on the gemm's side, after the wait;
//  * @wait_in_both: a wait in each branch, no one place either.
// Each kernel computes C = A x A^T; main checks every element against a
// reference computed here.
// RUN: axe-opt %s -axe-infer-layouts | FileCheck %s --check-prefix=INFER
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

// INFER-LABEL: func.func @wait_in_if
// INFER: axe.copy_async
// INFER-NOT: axe.copy %
// INFER: scf.if
// INFER-NEXT: axe.wait
// INFER-NEXT: axe.copy
// INFER-NEXT: }
// INFER: axe.gemm
// INFER-LABEL: func.func @wait_in_loop
// INFER: axe.copy_async
// INFER-NOT: axe.copy %
// INFER: scf.for
// INFER-NEXT: axe.wait
// INFER-NEXT: }
// INFER-NEXT: axe.copy
// INFER: axe.gemm
// INFER-LABEL: func.func @use_in_loop
// INFER: %[[T:.*]] = axe.copy_async %{{.*}} to %[[S:[a-z0-9_]+]]
// INFER-NOT: axe.copy %
// INFER: scf.for
// INFER-NEXT: axe.wait %[[T]]
// INFER-NEXT: axe.copy %[[S]] to
// INFER: axe.gemm
// INFER-LABEL: func.func @wait_in_both
// INFER: %[[T:.*]] = axe.copy_async %{{.*}} to %[[S:[a-z0-9_]+]]
// INFER-NOT: axe.copy %
// INFER: scf.if
// INFER: axe.wait %[[T]]
// INFER: } else {
// INFER: axe.wait %[[T]]
// INFER-NEXT: }
// INFER: axe.copy %[[S]] to
// INFER: axe.gemm

!gA = !axe.buffer<64x128xf16, #axe.layout<S[(64, 128) : (128, 1)]>, global>
!gC = !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, global>
!sA = !axe.buffer<64x128xf16, ?, shared>
!acc = !axe.buffer<64x64xf32, ?, reg>

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @wait_in_if(%A: memref<64x128xf16>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    axe.kernel grid [1] threads 128 {
      %sA = axe.alloc : !sA
      %gA = axe.view %A[0, 0] : memref<64x128xf16> -> !gA
      %t = axe.copy_async %gA to %sA at warpgroup {schedule = {sm_90 = "tma"}} : !gA to !sA
      %acc = axe.alloc : !acc
      scf.if %true {
        axe.wait %t at warpgroup
      }
      axe.gemm %sA, %sA into %acc at warpgroup {schedule = {sm_90 = "wgmma"}, transpose_b, zero_init} : !sA, !sA into !acc
      %gC = axe.view %C[0, 0] : memref<64x64xf32> -> !gC
      axe.copy %acc to %gC at warpgroup : !acc to !gC
    }
    return
  }
  func.func @wait_in_loop(%A: memref<64x128xf16>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    axe.kernel grid [1] threads 128 {
      %sA = axe.alloc : !sA
      %gA = axe.view %A[0, 0] : memref<64x128xf16> -> !gA
      %t = axe.copy_async %gA to %sA at warpgroup {schedule = {sm_90 = "tma"}} : !gA to !sA
      %acc = axe.alloc : !acc
      scf.for %i = %c0 to %c1 step %c1 {
        axe.wait %t at warpgroup
      }
      axe.gemm %sA, %sA into %acc at warpgroup {schedule = {sm_90 = "wgmma"}, transpose_b, zero_init} : !sA, !sA into !acc
      %gC = axe.view %C[0, 0] : memref<64x64xf32> -> !gC
      axe.copy %acc to %gC at warpgroup : !acc to !gC
    }
    return
  }
  func.func @use_in_loop(%A: memref<64x128xf16>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    axe.kernel grid [1] threads 128 {
      %sA = axe.alloc : !sA
      %gA = axe.view %A[0, 0] : memref<64x128xf16> -> !gA
      %t = axe.copy_async %gA to %sA at warpgroup {schedule = {sm_90 = "tma"}} : !gA to !sA
      %acc = axe.alloc : !acc
      scf.for %i = %c0 to %c1 step %c1 {
        axe.wait %t at warpgroup
        axe.gemm %sA, %sA into %acc at warpgroup {schedule = {sm_90 = "wgmma"}, transpose_b, zero_init} : !sA, !sA into !acc
      }
      %gC = axe.view %C[0, 0] : memref<64x64xf32> -> !gC
      axe.copy %acc to %gC at warpgroup : !acc to !gC
    }
    return
  }
  func.func @wait_in_both(%A: memref<64x128xf16>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    axe.kernel grid [1] threads 128 {
      %sA = axe.alloc : !sA
      %gA = axe.view %A[0, 0] : memref<64x128xf16> -> !gA
      %t = axe.copy_async %gA to %sA at warpgroup {schedule = {sm_90 = "tma"}} : !gA to !sA
      %acc = axe.alloc : !acc
      scf.if %true {
        axe.wait %t at warpgroup
      } else {
        axe.wait %t at warpgroup
      }
      axe.gemm %sA, %sA into %acc at warpgroup {schedule = {sm_90 = "wgmma"}, transpose_b, zero_init} : !sA, !sA into !acc
      %gC = axe.view %C[0, 0] : memref<64x64xf32> -> !gC
      axe.copy %acc to %gC at warpgroup : !acc to !gC
    }
    return
  }

  // C[i][j] = sum_k A[i][k] A[j][k], checked element by element.
  func.func @check(%A: memref<64x128xf16>, %C: memref<64x64xf32>) -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %zf = arith.constant 0.0 : f32
    %bad = scf.for %i = %c0 to %c64 step %c1 iter_args(%n = %zi) -> (i64) {
      %row = scf.for %j = %c0 to %c64 step %c1 iter_args(%n1 = %n) -> (i64) {
        %dot = scf.for %k = %c0 to %c128 step %c1 iter_args(%s = %zf) -> (f32) {
          %a = memref.load %A[%i, %k] : memref<64x128xf16>
          %b = memref.load %A[%j, %k] : memref<64x128xf16>
          %af = arith.extf %a : f16 to f32
          %bf = arith.extf %b : f16 to f32
          %p = arith.mulf %af, %bf : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        %got = memref.load %C[%i, %j] : memref<64x64xf32>
        %ne = arith.cmpf une, %got, %dot : f32
        %inc = arith.select %ne, %one, %zi : i64
        %n2 = arith.addi %n1, %inc : i64
        scf.yield %n2 : i64
      }
      scf.yield %row : i64
    }
    return %bad : i64
  }

  // NaN in every element before each kernel, so none is right by chance.
  func.func @poison(%C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %nan = arith.constant 0x7FC00000 : f32
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        memref.store %nan, %C[%i, %j] : memref<64x64xf32>
      }
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c11 = arith.constant 11 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %A = memref.alloc() : memref<64x128xf16>
    // A[i][k] = (7 (128 i + k) + 3) % 11 - 5: small integers, so every sum
    // is exact in f32.
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %k = %c0 to %c128 step %c1 {
        %l = arith.muli %i, %c128 : index
        %l2 = arith.addi %l, %k : index
        %t = arith.muli %l2, %c7 : index
        %c3 = arith.constant 3 : index
        %t2 = arith.addi %t, %c3 : index
        %r = arith.remui %t2, %c11 : index
        %x = arith.index_cast %r : index to i64
        %y = arith.sitofp %x : i64 to f16
        %f5 = arith.constant 5.0 : f16
        %v = arith.subf %y, %f5 : f16
        memref.store %v, %A[%i, %k] : memref<64x128xf16>
      }
    }
    %C = memref.alloc() : memref<64x64xf32>
    call @poison(%C) : (memref<64x64xf32>) -> ()
    call @wait_in_if(%A, %C) : (memref<64x128xf16>, memref<64x64xf32>) -> ()
    %bad_wait_in_if = call @check(%A, %C) : (memref<64x128xf16>, memref<64x64xf32>) -> i64
    // CHECK: wait_in_if mismatches: 0
    vector.print str "wait_in_if mismatches: "
    vector.print %bad_wait_in_if : i64
    call @poison(%C) : (memref<64x64xf32>) -> ()
    call @wait_in_loop(%A, %C) : (memref<64x128xf16>, memref<64x64xf32>) -> ()
    %bad_wait_in_loop = call @check(%A, %C) : (memref<64x128xf16>, memref<64x64xf32>) -> i64
    // CHECK: wait_in_loop mismatches: 0
    vector.print str "wait_in_loop mismatches: "
    vector.print %bad_wait_in_loop : i64
    call @poison(%C) : (memref<64x64xf32>) -> ()
    call @use_in_loop(%A, %C) : (memref<64x128xf16>, memref<64x64xf32>) -> ()
    %bad_use_in_loop = call @check(%A, %C) : (memref<64x128xf16>, memref<64x64xf32>) -> i64
    // CHECK: use_in_loop mismatches: 0
    vector.print str "use_in_loop mismatches: "
    vector.print %bad_use_in_loop : i64
    call @poison(%C) : (memref<64x64xf32>) -> ()
    call @wait_in_both(%A, %C) : (memref<64x128xf16>, memref<64x64xf32>) -> ()
    %bad_wait_in_both = call @check(%A, %C) : (memref<64x128xf16>, memref<64x64xf32>) -> i64
    // CHECK: wait_in_both mismatches: 0
    vector.print str "wait_in_both mismatches: "
    vector.print %bad_wait_in_both : i64
    memref.dealloc %A : memref<64x128xf16>
    memref.dealloc %C : memref<64x64xf32>
    return
  }
}
