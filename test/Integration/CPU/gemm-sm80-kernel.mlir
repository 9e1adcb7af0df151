// The sm_80 CTA-level tiled GEMM kernel (test/Dialect/Axe/kernels/
// gemm_sm80.mlir, the same source) compiled for and run on the CPU, checked
// element by element against a reference product computed in main
// (Inputs/); the two files are compiled separately and linked.
// RUN: axe-opt %axe_src_root/test/Dialect/Axe/kernels/gemm_sm80.mlir --axe-to-cpu \
// RUN:   | mlir-translate --mlir-to-llvmir -o %t.kernel.ll
// RUN: axe-opt %S/Inputs/gemm-sm80-main.mlir --axe-to-cpu | mlir-translate --mlir-to-llvmir -o %t.main.ll
// RUN: lli -O2 --dlopen=%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   --dlopen=%mlir_lib_dir/libmlir_c_runner_utils%shlibext --extra-module=%t.kernel.ll %t.main.ll \
// RUN: | FileCheck %s

// CHECK: gemm_sm80 on cpu mismatches: 0
// CHECK-NEXT: C[5][6] = 3060
