// The sm_80 CTA-level tiled GEMM kernel (test/Dialect/Axe/kernels/
// gemm_sm80.mlir, the same source) compiled for and run on the CPU, checked
// element by element against a reference product computed in main (which is
// appended inside the kernel's module).
// RUN: sed '$d' %axe_src_root/test/Dialect/Axe/kernels/gemm_sm80.mlir > %t.mlir
// RUN: cat %S/Inputs/gemm-sm80-main.mlir >> %t.mlir
// RUN: axe-opt %t.mlir --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

// CHECK: gemm_sm80 on cpu mismatches: 0
// CHECK-NEXT: C[5][6] = 3060
