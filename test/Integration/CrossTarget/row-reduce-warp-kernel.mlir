// The warp-level row reduction (test/Dialect/Axe/kernels/row_reduce_warp.mlir,
// the same source): four warps of a 128-thread CTA each take 16 rows, hold
// them in per-warp registers, reduce each row to its maximum and compute
// exp(x - max). On the CPU every warp-scope operator becomes a loop over the
// warps and each warp's registers are its own copy (docs/CPUExecutionModel.md).
// main (Inputs/, compiled separately and linked) checks every element of
// both outputs against a reference.
// RUN: axe-opt %axe_src_root/test/Dialect/Axe/kernels/row_reduce_warp.mlir --axe-to-cpu \
// RUN:   | mlir-translate --mlir-to-llvmir -o %t.kernel.ll
// RUN: axe-opt %S/Inputs/row-reduce-warp-main.mlir --axe-to-cpu | mlir-translate --mlir-to-llvmir -o %t.main.ll
// RUN: lli -O2 --dlopen=%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   --dlopen=%mlir_lib_dir/libmlir_c_runner_utils%shlibext --extra-module=%t.kernel.ll %t.main.ll \
// RUN: | FileCheck %s
// The same checks on NVIDIA targets: the kernel lowered with axe-to-nvvm
// and run lane by lane in axe-gpu-run (docs/GPURun.md).
// RUN: axe-opt %axe_src_root/test/Dialect/Axe/kernels/row_reduce_warp.mlir --axe-to-nvvm=chip=sm_80 \
// RUN:   | axe-gpu-run --extra-module=%S/Inputs/row-reduce-warp-main.mlir -e main -entry-point-result=i32 \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %axe_src_root/test/Dialect/Axe/kernels/row_reduce_warp.mlir --axe-to-nvvm=chip=sm_90 \
// RUN:   | axe-gpu-run --extra-module=%S/Inputs/row-reduce-warp-main.mlir -e main -entry-point-result=i32 \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

// CHECK: row max mismatches: 0
// CHECK-NEXT: exp(x - max) mismatches: 0
// CHECK-NEXT: Max[5] = 0.5
// CHECK-NEXT: Y[3][13] = 0.0207543
