// Warp 1 skips the barrier warp 0 waits at (a branch uniform per warp, divergent across warps).
// RUN: not axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s
// CHECK: error: axe-gpu-run: kernel @k, block (0, 0, 0): deadlock: 1 warp(s) wait at a barrier, 0 on an mbarrier phase that cannot complete, 1 exited
// CHECK: note: warp 0 waits at this barrier
// CHECK: note: warp 1 exited here
// CHECK-NOT: not reached

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @k(%a: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %lane = gpu.lane_id
      %w = arith.divui %tid, %c32 : index
      %w0 = arith.cmpi eq, %w, %c0 : index
      scf.if %w0 {
        gpu.barrier
      }
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %threads = arith.constant 64 : index
    %a = memref.alloc() : memref<64xf32>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%threads, %c1, %c1)
        args(%a : memref<64xf32>)
    vector.print str "not reached"
    return
  }
}
