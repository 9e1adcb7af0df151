// A vector load that declares 16-byte alignment (as the SIMT copies do once
// they have proved their starts aligned) at an address 4 bytes past such a
// boundary: a GPU faults on it, and so does the interpreter, naming the
// address. memref.alloc gives the buffer 64-byte alignment here.
// RUN: not axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s
// CHECK: errors-misaligned-vector.mlir:[[# @LINE + 12]]:12: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): a vector access declared 16-byte aligned is at address {{.*}}, 4 bytes past such a boundary (a GPU faults on it)
// CHECK-NOT: not reached

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @k(%a: memref<64xf32>) kernel {
      %c4 = arith.constant 4 : index
      %tid = gpu.thread_id x
      %i = arith.muli %tid, %c4 : index
      %c1 = arith.constant 1 : index
      %k = arith.addi %i, %c1 : index
      %v = vector.load %a[%i] {alignment = 16} : memref<64xf32>, vector<4xf32>
      %w = vector.load %a[%k] {alignment = 16} : memref<64xf32>, vector<4xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %threads = arith.constant 4 : index
    %a = memref.alloc() {alignment = 64} : memref<64xf32>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%threads, %c1, %c1)
        args(%a : memref<64xf32>)
    vector.print str "not reached"
    return
  }
}
