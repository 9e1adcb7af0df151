// Warp 1 waits at named barrier 1 while warp 0 waits at barrier 0 (a
// branch uniform per warp, divergent across warps): neither completes.
// RUN: not axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s
// CHECK: error: axe-gpu-run: kernel @k, block (0, 0, 0): deadlock: 2 warp(s) wait at a barrier, 0 on an mbarrier phase that cannot complete, 0 exited
// CHECK: note: warp 0 waits at this barrier
// CHECK: note: warp 1 waits at this barrier
// CHECK-NOT: not reached

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @k(%a: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %id = arith.constant 1 : i32
      %all = arith.constant 64 : i32
      %tid = gpu.thread_id x
      %w = arith.divui %tid, %c32 : index
      %w0 = arith.cmpi eq, %w, %c0 : index
      scf.if %w0 {
        gpu.barrier
      } else {
        nvvm.barrier id = %id number_of_threads = %all
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
