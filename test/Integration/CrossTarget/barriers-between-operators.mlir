// Operators at cta scope that hand data to each other through memory with
// no barrier written between them: which thread moves which element is the
// schedule's choice, so axe-insert-barriers (part of axe-to-nvvm) orders
// them. @fill_gemm zeroes C in global memory, stages A through shared
// memory into registers held by lane 2 of warps 0 and 1, then accumulates
// A x A^T into C. @stage_gemm zeroes a swizzled C in shared memory, stages
// A (f16) and B through shared memory into registers, accumulates and
// copies C out. On the CPU and, with races checked, in axe-gpu-run for
// sm_80 and sm_90, every element is compared with the reference.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// The barriers the analysis places:
// RUN: axe-opt %s --axe-insert-barriers | FileCheck %s --check-prefix=BARRIERS
// BARRIERS-LABEL: func.func @fill_gemm
// BARRIERS: axe.fill
// BARRIERS: axe.copy
// BARRIERS-NEXT: axe.barrier at cta
// BARRIERS-NEXT: axe.copy
// BARRIERS-NOT: axe.barrier
// BARRIERS: axe.gemm
// BARRIERS-LABEL: func.func @stage_gemm
// BARRIERS: axe.copy %{{.*}} to %[[SA:.*]] at cta
// BARRIERS-NEXT: axe.barrier at cta
// BARRIERS-NEXT: axe.copy %[[SA]]
// BARRIERS: axe.copy %{{.*}} to %[[SB:.*]] at cta
// BARRIERS-NEXT: axe.barrier at cta
// BARRIERS-NEXT: axe.copy %[[SB]]
// BARRIERS-NEXT: axe.gemm
// BARRIERS-NEXT: axe.view
// BARRIERS-NEXT: axe.barrier at cta
// BARRIERS-NEXT: axe.copy

// A[i][k] = (3 i + k) mod 7 - 3; C = A A^T per pair of rows.
// CHECK: ( 15, -7 )
// CHECK-NEXT: ( -7, 23 )
// CHECK-NEXT: ( 23, -7 )
// CHECK-NEXT: ( -7, 15 )
// CHECK: stage_gemm mismatches: 0

!gA2 = !axe.buffer<2x5xf32, #axe.layout<S[(2, 5) : (5, 1)]>, global>
!sA2 = !axe.buffer<2x5xf32, #axe.layout<S[(2, 5) : (6, 1)] + 6>, shared>
!rA2 = !axe.buffer<2x5xf32, #axe.layout<S[(2, 5) : (1@warpid, 1)] + 2@laneid>, reg>
!gC2 = !axe.buffer<2x2xf32, #axe.layout<S[(2, 2) : (2, 1)]>, global>

!gA = !axe.buffer<5x8xf16, #axe.layout<S[(5, 8) : (8, 1)]>, global>
!sA = !axe.buffer<5x8xf16, #axe.layout<S[(5, 8) : (11, 1)]>, shared>
!rA = !axe.buffer<5x8xf16, #axe.layout<S[(5, 2, 4) : (1@warpid, 1, 2)]>, reg>
!gB = !axe.buffer<8x12xf32, #axe.layout<S[(8, 12) : (12, 1)]>, global>
!sB = !axe.buffer<8x12xf32, #axe.layout<S[(8, 12) : (1, 16)]>, shared>
!rB = !axe.buffer<8x12xf32, #axe.layout<S[(8, 12) : (1@tx, 8@tx)]>, reg>
!sC = !axe.buffer<5x12xf32, #axe.layout<SW(1, 2, 4) o S[(5, 12) : (16, 1)]>, shared>
!gC = !axe.buffer<5x12xf32, #axe.layout<S[(5, 12) : (12, 1)]>, global>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @fill_gemm(%A: memref<4x5xf32>, %C: memref<4x2xf32>) {
    %c2 = arith.constant 2 : index
    axe.kernel grid [2] threads 256 {
      %bx = axe.axis_id bx
      %row = arith.muli %bx, %c2 : index
      %c = axe.view %C[%row, 0] : memref<4x2xf32> -> !gC2
      %zero = arith.constant 0.0 : f32
      axe.fill %c, %zero at cta : !gC2
      %a = axe.view %A[%row, 0] : memref<4x5xf32> -> !gA2
      %sa = axe.alloc : !sA2
      %ra = axe.alloc : !rA2
      axe.copy %a to %sa at cta : !gA2 to !sA2
      axe.copy %sa to %ra at cta : !sA2 to !rA2
      axe.gemm %ra, %ra into %c at cta {transpose_b} : !rA2, !rA2 into !gC2
    }
    return
  }

  func.func @stage_gemm(%A: memref<5x8xf16>, %B: memref<8x12xf32>, %C: memref<5x12xf32>) {
    axe.kernel grid [1] threads 256 {
      %sc = axe.alloc : !sC
      %zero = arith.constant 0.0 : f32
      axe.fill %sc, %zero at cta : !sC
      %a = axe.view %A[0, 0] : memref<5x8xf16> -> !gA
      %sa = axe.alloc : !sA
      %ra = axe.alloc : !rA
      axe.copy %a to %sa at cta : !gA to !sA
      axe.copy %sa to %ra at cta : !sA to !rA
      %b = axe.view %B[0, 0] : memref<8x12xf32> -> !gB
      %sb = axe.alloc : !sB
      %rb = axe.alloc : !rB
      axe.copy %b to %sb at cta : !gB to !sB
      axe.copy %sb to %rb at cta : !sB to !rB
      axe.gemm %ra, %rb into %sc at cta : !rA, !rB into !sC
      %c = axe.view %C[0, 0] : memref<5x12xf32> -> !gC
      axe.copy %sc to %c at cta : !sC to !gC
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c12 = arith.constant 12 : index
    %junk = arith.constant -1000.0 : f32
    // @fill_gemm
    %A2 = memref.alloc() : memref<4x5xf32>
    %C2 = memref.alloc() : memref<4x2xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %k = %c0 to %c5 step %c1 {
        %t = arith.muli %i, %c3 : index
        %u = arith.addi %t, %k : index
        %w = arith.remui %u, %c7 : index
        %x = arith.index_cast %w : index to i64
        %xf = arith.sitofp %x : i64 to f32
        %three = arith.constant 3.0 : f32
        %v = arith.subf %xf, %three : f32
        memref.store %v, %A2[%i, %k] : memref<4x5xf32>
      }
      scf.for %j = %c0 to %c2 step %c1 {
        memref.store %junk, %C2[%i, %j] : memref<4x2xf32>
      }
    }
    call @fill_gemm(%A2, %C2) : (memref<4x5xf32>, memref<4x2xf32>) -> ()
    scf.for %i = %c0 to %c4 step %c1 {
      %row = vector.transfer_read %C2[%i, %c0], %junk : memref<4x2xf32>, vector<2xf32>
      vector.print %row : vector<2xf32>
    }
    // @stage_gemm: A[i][k] = (i + 2k) mod 5 - 2, B[k][j] = (k + j) mod 4 - 1.
    %A = memref.alloc() : memref<5x8xf16>
    %B = memref.alloc() : memref<8x12xf32>
    %C = memref.alloc() : memref<5x12xf32>
    scf.for %i = %c0 to %c5 step %c1 {
      scf.for %k = %c0 to %c8 step %c1 {
        %t = arith.muli %k, %c2 : index
        %u = arith.addi %t, %i : index
        %w = arith.remui %u, %c5 : index
        %x = arith.index_cast %w : index to i64
        %xf = arith.sitofp %x : i64 to f16
        %two = arith.constant 2.0 : f16
        %v = arith.subf %xf, %two : f16
        memref.store %v, %A[%i, %k] : memref<5x8xf16>
      }
      scf.for %j = %c0 to %c12 step %c1 {
        memref.store %junk, %C[%i, %j] : memref<5x12xf32>
      }
    }
    scf.for %k = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c12 step %c1 {
        %u = arith.addi %k, %j : index
        %w = arith.remui %u, %c4 : index
        %x = arith.index_cast %w : index to i64
        %xf = arith.sitofp %x : i64 to f32
        %one = arith.constant 1.0 : f32
        %v = arith.subf %xf, %one : f32
        memref.store %v, %B[%k, %j] : memref<8x12xf32>
      }
    }
    call @stage_gemm(%A, %B, %C) : (memref<5x8xf16>, memref<8x12xf32>, memref<5x12xf32>) -> ()
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %bad = scf.for %i = %c0 to %c5 step %c1 iter_args(%n = %zero) -> (i64) {
      %row = scf.for %j = %c0 to %c12 step %c1 iter_args(%m = %n) -> (i64) {
        %fz = arith.constant 0.0 : f32
        %ref = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %fz) -> (f32) {
          %a = memref.load %A[%i, %k] : memref<5x8xf16>
          %af = arith.extf %a : f16 to f32
          %b = memref.load %B[%k, %j] : memref<8x12xf32>
          %p = arith.mulf %af, %b : f32
          %s = arith.addf %acc, %p : f32
          scf.yield %s : f32
        }
        %got = memref.load %C[%i, %j] : memref<5x12xf32>
        %ne = arith.cmpf une, %ref, %got : f32
        %inc = arith.select %ne, %one, %zero : i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    vector.print str "stage_gemm mismatches: "
    vector.print %bad : i64
    return
  }
}
