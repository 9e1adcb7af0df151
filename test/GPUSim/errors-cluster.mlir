// RUN: not axe-gpu-run %s -e main -entry-point-result=void 2>&1 | FileCheck %s

// A cluster launch must cover the grid with whole clusters, as
// cuLaunchKernelEx requires.

// CHECK: error: axe-gpu-run: the grid's dim 0 (3 CTAs) is not a multiple of the cluster's (2)
module attributes {gpu.container_module} {
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @m::@k clusters in (%c2, %c1, %c1) blocks in (%c3, %c1, %c1) threads in (%c32, %c1, %c1)
    return
  }
  gpu.module @m {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}
