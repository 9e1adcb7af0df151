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
// The same checks on NVIDIA targets: the kernel lowered with axe-to-nvvm
// and run lane by lane in axe-gpu-run (docs/GPURun.md).
// RUN: axe-opt %axe_src_root/test/Dialect/Axe/kernels/gemm_sm80.mlir --axe-to-nvvm=chip=sm_80 \
// RUN:   | axe-gpu-run --extra-module=%S/Inputs/gemm-sm80-main.mlir -e main -entry-point-result=i32 \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %axe_src_root/test/Dialect/Axe/kernels/gemm_sm80.mlir --axe-to-nvvm=chip=sm_90 \
// RUN:   | axe-gpu-run --extra-module=%S/Inputs/gemm-sm80-main.mlir -e main -entry-point-result=i32 \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

// CHECK: gemm_sm80 on cpu mismatches: 0
// CHECK-NEXT: C[5][6] = 3060
