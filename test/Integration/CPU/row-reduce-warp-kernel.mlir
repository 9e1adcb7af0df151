// The warp-level row reduction (test/Dialect/Axe/kernels/row_reduce_warp.mlir,
// the same source): four warps of a 128-thread CTA each take 16 rows, hold
// them in per-warp registers, reduce each row to its maximum and compute
// exp(x - max). On the CPU every warp-scope operator becomes a loop over the
// warps and each warp's registers are its own copy (docs/CPUExecutionModel.md).
// main (appended inside the kernel's module) checks every element of both
// outputs against a reference.
// RUN: sed '$d' %axe_src_root/test/Dialect/Axe/kernels/row_reduce_warp.mlir > %t.mlir
// RUN: cat %S/Inputs/row-reduce-warp-main.mlir >> %t.mlir
// RUN: axe-opt %t.mlir --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

// CHECK: row max mismatches: 0
// CHECK-NEXT: exp(x - max) mismatches: 0
// CHECK-NEXT: Max[5] = 0.5
// CHECK-NEXT: Y[3][13] = 0.0207543
