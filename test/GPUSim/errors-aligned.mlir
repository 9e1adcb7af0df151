// mma.sync under a divergent branch: half the warp executes it.
// RUN: not axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s
// CHECK: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0: 'nvgpu.mma.sync' is a .sync.aligned warp collective: all 32 lanes must execute it together, but only lanes 0x0000ffff are active
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
        %a0 = arith.constant dense<1.0> : vector<4x2xf16>
        %b0 = arith.constant dense<1.0> : vector<2x2xf16>
        %c0v = arith.constant dense<0.0> : vector<2x2xf32>
        %d = nvgpu.mma.sync (%a0, %b0, %c0v) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
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
