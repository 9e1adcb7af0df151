// stmatrix from a register fragment that every warp holds a copy of: the
// 16x16 f16 A fragment of mma.sync m16n8k16, replicated over the warps
// (R[2 : 1@warpid], R[4 : 1@warpid]), stored at cta scope into a shared
// tile, row-major or swizzled. The stmatrix schedule let every warp store
// its copy, so on sm_90 the warps wrote the same shared bytes (axe-gpu-run:
// data race, write after write); sm_80 has no stmatrix and stored right.
// Now only the warp whose replica digits are 0 stores (the one-writer rule
// of the SIMT stores), and the others skip the stmatrix as a whole warp.
// B = A and C = A, every element checked, races checked.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// The stores stay stmatrix, in a branch that warp 0 alone takes.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | FileCheck %s --check-prefix=NVVM

// CHECK: two warps mismatches: 0
// CHECK: four warps swizzled mismatches: 0

// NVVM-LABEL: gpu.func @two_warps_kernel
// NVVM: %[[WARP:.*]] = arith.divui %thread_id_x, %c32
// NVVM: %[[FIRST:.*]] = arith.cmpi eq, %[[WARP]], %c0
// NVVM: %[[WRITER:.*]] = arith.andi %{{.*}}, %[[FIRST]]
// NVVM: scf.if %[[WRITER]]
// NVVM-NOT: gpu.barrier
// NVVM: nvvm.stmatrix
// NVVM-LABEL: gpu.func @four_warps_swizzled_kernel
// NVVM: nvgpu.ldmatrix
// NVVM: %[[WARP:.*]] = arith.divui %thread_id_x, %c32
// NVVM: %[[FIRST:.*]] = arith.cmpi eq, %[[WARP]], %c0
// NVVM: %[[WRITER:.*]] = arith.andi %{{.*}}, %[[FIRST]]
// NVVM: scf.if %[[WRITER]]
// NVVM-NOT: gpu.barrier
// NVVM: nvvm.stmatrix

!g = !axe.buffer<16x16xf16, #axe.layout<S[(16, 16) : (16, 1)]>, global>
!s = !axe.buffer<16x16xf16, #axe.layout<S[(16, 16) : (16, 1)]>, shared>
!sw = !axe.buffer<16x16xf16, #axe.layout<SW(3, 1, 3) o S[(16, 16) : (16, 1)]>, shared>
!r2 = !axe.buffer<16x16xf16, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)] + R[2 : 1@warpid]>, reg>
!r4 = !axe.buffer<16x16xf16, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)] + R[4 : 1@warpid]>, reg>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @two_warps(%A: memref<16x16xf16>, %B: memref<16x16xf16>) {
    axe.kernel grid [1] threads 64 {
      %a = axe.view %A[0, 0] : memref<16x16xf16> -> !g
      %b = axe.view %B[0, 0] : memref<16x16xf16> -> !g
      %r = axe.alloc : !r2
      axe.copy %a to %r at cta : !g to !r2
      %s = axe.alloc : !s
      axe.copy %r to %s at cta : !r2 to !s
      axe.copy %s to %b at cta : !s to !g
    }
    return
  }

  // The fragment loaded by ldmatrix from a swizzled tile, stored back to a
  // row-major one.
  func.func @four_warps_swizzled(%A: memref<16x16xf16>, %B: memref<16x16xf16>) {
    axe.kernel grid [1] threads 128 {
      %a = axe.view %A[0, 0] : memref<16x16xf16> -> !g
      %b = axe.view %B[0, 0] : memref<16x16xf16> -> !g
      %s = axe.alloc : !sw
      axe.copy %a to %s at cta : !g to !sw
      %r = axe.alloc : !r4
      axe.copy %s to %r at cta : !sw to !r4
      %t = axe.alloc : !s
      axe.copy %r to %t at cta : !r4 to !s
      axe.copy %t to %b at cta : !s to !g
    }
    return
  }

  func.func @mismatches(%A: memref<16x16xf16>, %B: memref<16x16xf16>) -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0 : i64
    %bad = scf.for %i = %c0 to %c16 step %c1 iter_args(%n = %zero) -> (i64) {
      %row = scf.for %j = %c0 to %c16 step %c1 iter_args(%m = %n) -> (i64) {
        %x = memref.load %A[%i, %j] : memref<16x16xf16>
        %y = memref.load %B[%i, %j] : memref<16x16xf16>
        %ne = arith.cmpf une, %x, %y : f16
        %inc = arith.extui %ne : i1 to i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    return %bad : i64
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %A = memref.alloc() : memref<16x16xf16>
    %B = memref.alloc() : memref<16x16xf16>
    %C = memref.alloc() : memref<16x16xf16>
    %nan = arith.constant 0xFE00 : f16
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %k = arith.muli %i, %c16 : index
        %l = arith.addi %k, %j : index
        %li = arith.index_cast %l : index to i64
        %v = arith.sitofp %li : i64 to f16
        memref.store %v, %A[%i, %j] : memref<16x16xf16>
        memref.store %nan, %B[%i, %j] : memref<16x16xf16>
        memref.store %nan, %C[%i, %j] : memref<16x16xf16>
      }
    }
    call @two_warps(%A, %B) : (memref<16x16xf16>, memref<16x16xf16>) -> ()
    %n = call @mismatches(%A, %B) : (memref<16x16xf16>, memref<16x16xf16>) -> i64
    vector.print str "two warps mismatches: "
    vector.print %n : i64
    call @four_warps_swizzled(%A, %C) : (memref<16x16xf16>, memref<16x16xf16>) -> ()
    %m = call @mismatches(%A, %C) : (memref<16x16xf16>, memref<16x16xf16>) -> i64
    vector.print str "four warps swizzled mismatches: "
    vector.print %m : i64
    return
  }
}
