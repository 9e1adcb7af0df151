// The kernel's host function in one file, main in another that declares it
// (--extra-module): the declaration is replaced by the definition.
// RUN: axe-gpu-run %s --extra-module=%S/Inputs/scale-main.mlir -e main \
// RUN:   -entry-point-result=i32 \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s
// A main that returns i32 has its result printed, as mlir-runner does.
// RUN: axe-gpu-run %S/Inputs/scale-main.mlir --extra-module=%s -e main \
// RUN:   -entry-point-result=i32 \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s
// RUN: not axe-gpu-run %s -e main 2>&1 | FileCheck %s --check-prefix=NOMAIN

// CHECK: ( 0, 3, 6, 9, 12, 15, 18, 21 )
// CHECK-NEXT: 42
// NOMAIN: axe-gpu-run: no host function 'main' to run (-e)

module attributes {gpu.container_module} {
  gpu.module @scale_kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @scale_kernel(%x: memref<8xf32>, %k: f32) kernel {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<8xf32>
      %s = arith.mulf %v, %k : f32
      memref.store %s, %x[%t] : memref<8xf32>
      gpu.return
    }
  }
  func.func @scale(%x: memref<8xf32>, %k: f32) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    gpu.launch_func @scale_kernels::@scale_kernel blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%x : memref<8xf32>, %k : f32)
    return
  }
}
