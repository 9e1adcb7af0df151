// The warp-specialized sm_90 GEMM (test/Dialect/Axe/kernels/gemm_sm90_ws.mlir)
// run on the CPU: a producer warpgroup stages tiles of A and B into shared
// memory and two consumer warpgroups multiply them, handing each stage over
// with CTA barriers inside their k loops. The CPU fuses the partitions' k
// loops and runs each iteration round by round between the barriers
// (docs/CPUExecutionModel.md). The source is used as is except for what
// only a GPU has: the forced schedules (tma, wgmma) and the 2-CTA cluster
// are stripped. main (appended inside the kernel's module) checks every
// element of C against a reference product.
// RUN: sed -E -e 's/ ?\{schedule = "[a-z0-9_.]+"\}//' -e 's/schedule = "[a-z0-9_.]+", //' \
// RUN:   -e 's/ cluster \[[0-9, ]+\]//' -e '$d' %axe_src_root/test/Dialect/Axe/kernels/gemm_sm90_ws.mlir > %t.mlir
// RUN: cat %S/Inputs/gemm-sm90-ws-main.mlir >> %t.mlir
// RUN: axe-opt %t.mlir --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

// CHECK: gemm_sm90_ws on cpu mismatches: 0
// CHECK-NEXT: C[100][700] = -7
