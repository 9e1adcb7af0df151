// A flat view (memref.reinterpret_cast) wider than the allocation: its own bounds hold, the allocation the host passed does not.
// RUN: not axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s
// CHECK: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0, thread (24, 0, 0) (lane 24): out-of-bounds write of global memory: bytes [256, 260) outside the 256 bytes [0, 256) of argument 0
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
      %flat = memref.reinterpret_cast %a to offset: [8], sizes: [64], strides: [1] : memref<64xf32> to memref<64xf32, strided<[1], offset: 8>>
      %v = memref.load %flat[%tid] : memref<64xf32, strided<[1], offset: 8>>
      %i = arith.addi %tid, %c32 : index
      memref.store %v, %flat[%i] : memref<64xf32, strided<[1], offset: 8>>
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %threads = arith.constant 32 : index
    %a = memref.alloc() : memref<64xf32>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%threads, %c1, %c1)
        args(%a : memref<64xf32>)
    vector.print str "not reached"
    return
  }
}
