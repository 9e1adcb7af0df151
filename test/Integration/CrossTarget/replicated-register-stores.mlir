// Register tiles held by several threads at once, stored to memory: each
// warp holds 24 elements of a 48-element row and every lane of the warp
// holds all 24 (a replica over the lanes the layout leaves out). Into
// memory, one holder per element stores it: several threads storing the
// same bytes race under the PTX memory model even when the values agree.
// The copy goes global -> registers -> shared -> global, and an elementwise
// op driven by the replicated tile writes global memory.
// B = A and C = 2 A, every element checked, on the CPU and, with races
// checked, in axe-gpu-run for sm_80 and sm_90.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// Lane 0 of each warp stores (the lane digits the layout does not use are
// 0):
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | FileCheck %s --check-prefix=NVVM
// NVVM-LABEL: gpu.func @kernel_kernel
// NVVM: %[[TID:.*]] = gpu.thread_id x
// NVVM: %[[LANE0:.*]] = arith.muli %{{.*}}, %c32
// NVVM: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %[[LANE0]]
// NVVM: %[[WRITER:.*]] = arith.andi %{{.*}}, %[[FIRST]]
// NVVM: scf.if %[[WRITER]]
// NVVM: gpu.barrier

// CHECK: copy mismatches: 0
// CHECK: elementwise mismatches: 0

!g = !axe.buffer<1x48xf32, #axe.layout<S[(1, 48) : (48, 1)]>, global>
!r = !axe.buffer<1x48xf32, #axe.layout<S[(1, 2, 24) : (24, 1@warpid, 1)]>, reg>
!s = !axe.buffer<1x48xf32, #axe.layout<S[(1, 48) : (48, 1)]>, shared>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%A: memref<1x48xf32>, %B: memref<1x48xf32>, %C: memref<1x48xf32>) {
    axe.kernel grid [1] threads 64 {
      %a = axe.view %A[0, 0] : memref<1x48xf32> -> !g
      %b = axe.view %B[0, 0] : memref<1x48xf32> -> !g
      %c = axe.view %C[0, 0] : memref<1x48xf32> -> !g
      %r = axe.alloc : !r
      %s = axe.alloc : !s
      axe.copy %a to %r at cta : !g to !r
      axe.copy %r to %s at cta : !r to !s
      axe.copy %s to %b at cta : !s to !g
      axe.elementwise ins(%r : !r) outs(%c : !g) at cta {
      ^bb0(%x: f32):
        %y = arith.addf %x, %x : f32
        axe.yield %y : f32
      }
    }
    return
  }

  func.func @fill(%M: memref<1x48xf32>, %start: f32, %step: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c48 = arith.constant 48 : index
    scf.for %i = %c0 to %c48 step %c1 {
      %ii = arith.index_cast %i : index to i64
      %f = arith.sitofp %ii : i64 to f32
      %s = arith.mulf %f, %step : f32
      %v = arith.addf %s, %start : f32
      memref.store %v, %M[%c0, %i] : memref<1x48xf32>
    }
    return
  }

  // Elements where Y differs from X times `scale`.
  func.func @mismatches(%X: memref<1x48xf32>, %Y: memref<1x48xf32>, %scale: f32) -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c48 = arith.constant 48 : index
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %bad = scf.for %i = %c0 to %c48 step %c1 iter_args(%k = %zero) -> (i64) {
      %x = memref.load %X[%c0, %i] : memref<1x48xf32>
      %y = memref.load %Y[%c0, %i] : memref<1x48xf32>
      %w = arith.mulf %x, %scale : f32
      %ne = arith.cmpf une, %w, %y : f32
      %inc = arith.select %ne, %one, %zero : i64
      %k2 = arith.addi %k, %inc : i64
      scf.yield %k2 : i64
    }
    return %bad : i64
  }

  func.func @main() {
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %base = arith.constant -7.0 : f32
    %junk = arith.constant -1000.0 : f32
    %A = memref.alloc() : memref<1x48xf32>
    %B = memref.alloc() : memref<1x48xf32>
    %C = memref.alloc() : memref<1x48xf32>
    call @fill(%A, %base, %one) : (memref<1x48xf32>, f32, f32) -> ()
    call @fill(%B, %junk, %one) : (memref<1x48xf32>, f32, f32) -> ()
    call @fill(%C, %junk, %one) : (memref<1x48xf32>, f32, f32) -> ()
    call @kernel(%A, %B, %C) : (memref<1x48xf32>, memref<1x48xf32>, memref<1x48xf32>) -> ()
    %n = call @mismatches(%A, %B, %one) : (memref<1x48xf32>, memref<1x48xf32>, f32) -> i64
    vector.print str "copy mismatches: "
    vector.print %n : i64
    %m = call @mismatches(%A, %C, %two) : (memref<1x48xf32>, memref<1x48xf32>, f32) -> i64
    vector.print str "elementwise mismatches: "
    vector.print %m : i64
    return
  }
}
