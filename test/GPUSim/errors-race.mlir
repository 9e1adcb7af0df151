// Two warps exchange shared data without a barrier: a race, reported with
// no flag (the default) as with --check-races; --no-check-races runs on.
// RUN: not axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s
// RUN: not axe-gpu-run %s -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s
// RUN: axe-gpu-run %s -e main -entry-point-result=void --no-check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=UNCHECKED
// UNCHECKED-NOT: error
// UNCHECKED: not reached
// CHECK: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 1, thread (32, 0, 0) (lane 0): data race (write after read) on byte 128 of workgroup attribution 0 (shared memory) with thread 0 since the last barrier
// CHECK-NOT: not reached

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @k(%a: memref<64xf32>) workgroup(%s : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %lane = gpu.lane_id
      %f = arith.constant 1.0 : f32
      memref.store %f, %s[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      %i = arith.addi %tid, %c32 : index
      %c64 = arith.constant 64 : index
      %j = arith.remui %i, %c64 : index
      %v = memref.load %s[%j] : memref<64xf32, #gpu.address_space<workgroup>>
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
