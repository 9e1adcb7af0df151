// Register -> register copies that move elements between lanes: lane l
// holds elements 2l and 2l + 1 of x but elements l and l + 32 of y, in one
// warp and in each of two warps. On NVIDIA targets the exchange is
// shfl.sync.idx from lane and register tables (one shuffle per source
// register and a select where lanes read different registers); on the CPU
// the copy is a loop. B = A, every element checked.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | FileCheck %s --check-prefix=NVVM

// CHECK: one warp mismatches: 0
// CHECK: two warps mismatches: 0

// NVVM-LABEL: gpu.func @one_warp_kernel
// NVVM-NOT: workgroup(
// NVVM: gpu.shuffle  idx
// NVVM: gpu.shuffle  idx
// NVVM: arith.select
// NVVM-LABEL: gpu.func @two_warps_kernel
// NVVM-NOT: workgroup(
// NVVM: gpu.shuffle  idx

!g = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
!x = !axe.buffer<64xf32, #axe.layout<S[(32, 2) : (1@laneid, 1)]>, reg>
!y = !axe.buffer<64xf32, #axe.layout<S[(2, 32) : (1, 1@laneid)]>, reg>
!g2 = !axe.buffer<128xf32, #axe.layout<S[128 : 1]>, global>
!x2 = !axe.buffer<128xf32, #axe.layout<S[(2, 32, 2) : (1@warpid, 1@laneid, 1)]>, reg>
!y2 = !axe.buffer<128xf32, #axe.layout<S[(2, 2, 32) : (1@warpid, 1, 1@laneid)]>, reg>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @one_warp(%A: memref<64xf32>, %B: memref<64xf32>) {
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0] : memref<64xf32> -> !g
      %b = axe.view %B[0] : memref<64xf32> -> !g
      %x = axe.alloc : !x
      axe.copy %a to %x at warp : !g to !x
      %y = axe.alloc : !y
      axe.copy %x to %y at warp : !x to !y
      axe.copy %y to %b at warp : !y to !g
    }
    return
  }

  func.func @two_warps(%A: memref<128xf32>, %B: memref<128xf32>) {
    axe.kernel grid [1] threads 64 {
      %a = axe.view %A[0] : memref<128xf32> -> !g2
      %b = axe.view %B[0] : memref<128xf32> -> !g2
      %x = axe.alloc : !x2
      axe.copy %a to %x at cta : !g2 to !x2
      %y = axe.alloc : !y2
      axe.copy %x to %y at cta : !x2 to !y2
      axe.copy %y to %b at cta : !y2 to !g2
    }
    return
  }

  func.func @fill(%M: memref<?xf32>, %start: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %M, %c0 : memref<?xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i64
      %f = arith.sitofp %ii : i64 to f32
      %v = arith.addf %f, %start : f32
      memref.store %v, %M[%i] : memref<?xf32>
    }
    return
  }

  func.func @mismatches(%A: memref<?xf32>, %B: memref<?xf32>) -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %n = memref.dim %A, %c0 : memref<?xf32>
    %bad = scf.for %i = %c0 to %n step %c1 iter_args(%k = %zero) -> (i64) {
      %x = memref.load %A[%i] : memref<?xf32>
      %y = memref.load %B[%i] : memref<?xf32>
      %ne = arith.cmpf une, %x, %y : f32
      %inc = arith.select %ne, %one, %zero : i64
      %k2 = arith.addi %k, %inc : i64
      scf.yield %k2 : i64
    }
    return %bad : i64
  }

  func.func @main() {
    %c100 = arith.constant 100.0 : f32
    %minus = arith.constant -1000.0 : f32
    %A = memref.alloc() : memref<64xf32>
    %B = memref.alloc() : memref<64xf32>
    %a = memref.cast %A : memref<64xf32> to memref<?xf32>
    %b = memref.cast %B : memref<64xf32> to memref<?xf32>
    call @fill(%a, %c100) : (memref<?xf32>, f32) -> ()
    call @fill(%b, %minus) : (memref<?xf32>, f32) -> ()
    call @one_warp(%A, %B) : (memref<64xf32>, memref<64xf32>) -> ()
    %n = call @mismatches(%a, %b) : (memref<?xf32>, memref<?xf32>) -> i64
    vector.print str "one warp mismatches: "
    vector.print %n : i64
    %A2 = memref.alloc() : memref<128xf32>
    %B2 = memref.alloc() : memref<128xf32>
    %a2 = memref.cast %A2 : memref<128xf32> to memref<?xf32>
    %b2 = memref.cast %B2 : memref<128xf32> to memref<?xf32>
    call @fill(%a2, %c100) : (memref<?xf32>, f32) -> ()
    call @fill(%b2, %minus) : (memref<?xf32>, f32) -> ()
    call @two_warps(%A2, %B2) : (memref<128xf32>, memref<128xf32>) -> ()
    %m = call @mismatches(%a2, %b2) : (memref<?xf32>, memref<?xf32>) -> i64
    vector.print str "two warps mismatches: "
    vector.print %m : i64
    return
  }
}
