// The warp-specialized sm_90 GEMM (test/Dialect/Axe/kernels/gemm_sm90_ws.mlir)
// run on the CPU: a producer warpgroup stages tiles of A and B into shared
// memory and two consumer warpgroups multiply them, handing each stage over
// with CTA barriers inside their k loops. The CPU fuses the partitions' k
// loops and runs each iteration round by round between the barriers
// (docs/CPUExecutionModel.md). The source is used as is: its schedules are
// forced for sm_90 only, and its 2-CTA clusters need nothing of the CPU
// beyond each CTA's place in its cluster. The kernel and the host program
// (Inputs/, which checks every element of C against a reference product)
// are compiled separately and linked, as a library and its user would be.
// RUN: axe-opt %axe_src_root/test/Dialect/Axe/kernels/gemm_sm90_ws.mlir --axe-to-cpu \
// RUN:   | mlir-translate --mlir-to-llvmir -o %t.kernel.ll
// RUN: axe-opt %S/Inputs/gemm-sm90-ws-main.mlir --axe-to-cpu | mlir-translate --mlir-to-llvmir -o %t.main.ll
// RUN: lli -O2 --dlopen=%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   --dlopen=%mlir_lib_dir/libmlir_c_runner_utils%shlibext --extra-module=%t.kernel.ll %t.main.ll \
// RUN: | FileCheck %s
// The same source for sm_90a: TMA boxes completing on mbarriers, wgmma from
// the swizzled tiles' descriptors, launched as 2-CTA clusters; run in the
// GPU interpreter with the same checks.
// RUN: axe-opt %axe_src_root/test/Dialect/Axe/kernels/gemm_sm90_ws.mlir --axe-to-nvvm=chip=sm_90 \
// RUN:   | axe-gpu-run --extra-module=%S/Inputs/gemm-sm90-ws-main.mlir -e main -entry-point-result=i32 \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   --check-races --stats=%t.stats.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats.json

// CHECK: gemm_sm90_ws on cpu mismatches: 0
// CHECK-NEXT: C[100][700] = -7

// 16 CTAs: two TMA boxes per producer k step (8 steps), and four wgmma
// m64n128k16 per consumer warp and k step (8 warps, 8 steps).
// STATS: "nvgpu.tma.async.load": {
// STATS-NEXT: "issues": 256,
// STATS: "nvvm.wgmma.mma_async": {
// STATS-NEXT: "issues": 4096,
