// shfl.sync naming the whole warp, executed by half of it.
// RUN: not axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s
// CHECK: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0: 'nvvm.shfl.sync' with member mask 0xffffffff executed by lanes 0x0000ffff: every lane of the mask must execute it, and only those
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
      %low = arith.cmpi ult, %lane, %c16 : index
      scf.if %low {
        %full = arith.constant -1 : i32
        %one = arith.constant 1 : i32
        %clamp = arith.constant 31 : i32
        %f = arith.constant 1.0 : f32
        %r = nvvm.shfl.sync bfly %full, %f, %one, %clamp : f32 -> f32
      }
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
