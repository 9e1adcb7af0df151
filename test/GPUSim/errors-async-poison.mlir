// A read of shared memory an async copy will write, before the wait.
// RUN: not axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s
// CHECK: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): reads byte 0 of workgroup attribution 0 (shared memory), which an async copy has not completed (missing nvgpu.device_async_wait?)
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
      %i = arith.muli %tid, %c16 : index
      %c4 = arith.constant 4 : index
      %j = arith.muli %tid, %c4 : index
      %t = nvgpu.device_async_copy %a[%j], %s[%j], 4 : memref<64xf32> to memref<64xf32, #gpu.address_space<workgroup>>
      %g = nvgpu.device_async_create_group %t
      %v = memref.load %s[%j] : memref<64xf32, #gpu.address_space<workgroup>>
      nvgpu.device_async_wait %g
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %threads = arith.constant 16 : index
    %a = memref.alloc() : memref<64xf32>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%threads, %c1, %c1)
        args(%a : memref<64xf32>)
    vector.print str "not reached"
    return
  }
}
