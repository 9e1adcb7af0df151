// A launch and nothing the host dereferences, for the cuInit failure case
// of cuda-runtime-fake-driver.test.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: f32) kernel {
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%one : f32)
    return
  }
}
