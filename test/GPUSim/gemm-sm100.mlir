// The warp-specialized sm_100a GEMM (test/Dialect/Axe/kernels/gemm_sm100.mlir)
// through axe-to-nvvm: TMA boxes into 128B-swizzled shared memory,
// tcgen05.mma from sm_100 descriptors into a TMEM accumulator (data path D),
// commits to mbarriers, tcgen05.st zero fill and tcgen05.ld of each warp's
// lane quarter, TMEM alloc/dealloc. The host checks every element of C.
// RUN: axe-opt %axe_src_root/test/Dialect/Axe/kernels/gemm_sm100.mlir --axe-to-nvvm=chip=sm_100a \
// RUN:   | axe-gpu-run --extra-module=%S/Inputs/gemm-sm100-main.mlir -e main -entry-point-result=i32 \
// RUN:   --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   --stats=%t.stats.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats.json

// CHECK: gemm_sm100 mismatches: 0
// CHECK-NEXT: C[100][700] = -7

// 16 CTAs (2 x 8 tiles of 128 x 128) in 8 clusters of 2, 8 k-tiles of 64 each: 4 tcgen05.mma
// (M = N = 128, K = 16) per k-tile, one TMEM allocation per CTA; the bulk
// bytes are the 256 TMA boxes (16 KiB) plus (128 + 128) x 16 x 2 per mma.
// STATS: "name": "gemm_sm100_kernel",
// STATS: "clusters": 8,
// STATS: "nvvm.tcgen05.alloc": {
// STATS-NEXT: "issues": 16,
// STATS: "nvvm.tcgen05.mma": {
// STATS-NEXT: "issues": 512,
// STATS-NEXT: "lane_ops": 512
// STATS: "bulk_total": {
// STATS-NEXT: "ops": 768,
// STATS-NEXT: "shared_bytes": 8388608,
// STATS-NEXT: "global_bytes": 4194304
