// The pipelined sm_90a GEMM of the GPU benchmark (bench/gpu/gen_gemm_sm90.py:
// two buffers of G TMA stages handed over with one CTA barrier each, wgmma
// m64nBN consumers), generated at the interpreter-sized shape of
// gemm-sm90-ws-kernel.mlir (N = 1024, K = 512) and run with the same host
// program, races checked: BN = 256 with G = 2 (the fastest on an H200, 192 KiB
// of dynamic shared memory), BN = 128 with G = 1, and BN = 256 with G = 2
// merged (both stages of a buffer in one gemm).
// RUN: python3 %axe_src_root/bench/gpu/gen_gemm_sm90.py gemm_sm90_ws 1024 512 256 2 > %t.256.mlir
// RUN: axe-opt %t.256.mlir --axe-to-nvvm=chip=sm_90 \
// RUN:   | axe-gpu-run --extra-module=%axe_src_root/test/Integration/CrossTarget/Inputs/gemm-sm90-ws-main.mlir \
// RUN:   -e main -entry-point-result=i32 --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: python3 %axe_src_root/bench/gpu/gen_gemm_sm90.py gemm_sm90_ws 1024 512 128 1 > %t.128.mlir
// RUN: axe-opt %t.128.mlir --axe-to-nvvm=chip=sm_90 \
// RUN:   | axe-gpu-run --extra-module=%axe_src_root/test/Integration/CrossTarget/Inputs/gemm-sm90-ws-main.mlir \
// RUN:   -e main -entry-point-result=i32 --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: python3 %axe_src_root/bench/gpu/gen_gemm_sm90.py gemm_sm90_ws 1024 512 256 2 merged > %t.merged.mlir
// RUN: axe-opt %t.merged.mlir --axe-to-nvvm=chip=sm_90 \
// RUN:   | axe-gpu-run --extra-module=%axe_src_root/test/Integration/CrossTarget/Inputs/gemm-sm90-ws-main.mlir \
// RUN:   -e main -entry-point-result=i32 --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// The ring form (an axe.pipeline of 4 stages, no CTA barriers) and its
// persistent form (3 CTAs looping over the 8 tiles, stage indices running on
// across tiles):
// RUN: python3 %axe_src_root/bench/gpu/gen_gemm_sm90.py gemm_sm90_ws 1024 512 256 4 ring > %t.ring.mlir
// RUN: axe-opt %t.ring.mlir --axe-to-nvvm=chip=sm_90 \
// RUN:   | axe-gpu-run --extra-module=%axe_src_root/test/Integration/CrossTarget/Inputs/gemm-sm90-ws-main.mlir \
// RUN:   -e main -entry-point-result=i32 --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: python3 %axe_src_root/bench/gpu/gen_gemm_sm90.py gemm_sm90_ws 1024 512 256 4 persistent 3 > %t.persistent.mlir
// RUN: axe-opt %t.persistent.mlir --axe-to-nvvm=chip=sm_90 \
// RUN:   | axe-gpu-run --extra-module=%axe_src_root/test/Integration/CrossTarget/Inputs/gemm-sm90-ws-main.mlir \
// RUN:   -e main -entry-point-result=i32 --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// Both also run on the CPU, the partitions round by round with the
// pipeline's acquires and waits as the rounds' boundaries:
// RUN: axe-opt %axe_src_root/test/Integration/CrossTarget/Inputs/gemm-sm90-ws-main.mlir --axe-to-cpu \
// RUN:   | mlir-translate --mlir-to-llvmir -o %t.main.ll
// RUN: axe-opt %t.ring.mlir --axe-to-cpu | mlir-translate --mlir-to-llvmir -o %t.ring.ll
// RUN: lli -O2 --dlopen=%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   --dlopen=%mlir_lib_dir/libmlir_c_runner_utils%shlibext --extra-module=%t.ring.ll %t.main.ll \
// RUN: | FileCheck %s
// RUN: axe-opt %t.persistent.mlir --axe-to-cpu | mlir-translate --mlir-to-llvmir -o %t.persistent.ll
// RUN: lli -O2 --dlopen=%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   --dlopen=%mlir_lib_dir/libmlir_c_runner_utils%shlibext --extra-module=%t.persistent.ll %t.main.ll \
// RUN: | FileCheck %s
// A producer that waits for its own TMA boxes (their site barriers) and
// then commits the stage without tokens is correct too: a consumer that
// waits for the stage learns what the committing warps had observed.
// RUN: sed 's/axe.pipeline_commit %%pipe\[%%i\([0-9]\)\], %%tA\([0-9]\), %%tB\([0-9]\)/axe.wait %%tA\2, %%tB\3 at warpgroup\n            axe.pipeline_commit %%pipe[%%i\1]/' %t.ring.mlir \
// RUN:   | axe-opt --axe-to-nvvm=chip=sm_90 \
// RUN:   | axe-gpu-run --extra-module=%axe_src_root/test/Integration/CrossTarget/Inputs/gemm-sm90-ws-main.mlir \
// RUN:   -e main -entry-point-result=i32 --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// Without the consumers' waits for full stages the interpreter reports the
// first read of a stage no consumer warp has observed (a schedule that
// happens to run the producer ahead would otherwise hide it):
// RUN: sed 's/axe.pipeline_wait .*//' %t.ring.mlir | axe-opt --axe-to-nvvm=chip=sm_90 \
// RUN:   | not axe-gpu-run --extra-module=%axe_src_root/test/Integration/CrossTarget/Inputs/gemm-sm90-ws-main.mlir \
// RUN:   -e main -entry-point-result=i32 \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=NOWAIT
// NOWAIT: which a TMA load wrote in phase 0 of an mbarrier this warp has not waited for
// The merged form multiplies each buffer (two stages side by side along K)
// with one gemm of K = 128: 8 wgmma m64n256k16 between a fence and a wait.
// RUN: axe-opt %t.merged.mlir --axe-to-nvvm=chip=sm_90 | FileCheck %s --check-prefix=MERGED
// MERGED: nvvm.wgmma.fence.aligned
// MERGED-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>
// MERGED-NEXT: nvvm.wgmma.commit.group.sync.aligned
// MERGED-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// The benchmark's checked-in kernels are the generator's output.
// RUN: python3 %axe_src_root/bench/gpu/gen_gemm_sm90.py gemm_sm90_4096_bn256_g2 4096 4096 256 2 \
// RUN:   | diff - %axe_src_root/bench/gpu/gemm_sm90_4096_bn256_g2.mlir
// RUN: python3 %axe_src_root/bench/gpu/gen_gemm_sm90.py gemm_sm90_4096_bn128_g1 4096 4096 128 1 \
// RUN:   | diff - %axe_src_root/bench/gpu/gemm_sm90_4096_bn128_g1.mlir
// RUN: python3 %axe_src_root/bench/gpu/gen_gemm_sm90.py gemm_sm90_4096_bn256_g2_merged 4096 4096 256 2 merged \
// RUN:   | diff - %axe_src_root/bench/gpu/gemm_sm90_4096_bn256_g2_merged.mlir

// RUN: python3 %axe_src_root/bench/gpu/gen_gemm_sm90.py gemm_sm90_4096_bn256_ring4 4096 4096 256 4 ring \
// RUN:   | diff - %axe_src_root/bench/gpu/gemm_sm90_4096_bn256_ring4.mlir
// RUN: python3 %axe_src_root/bench/gpu/gen_gemm_sm90.py gemm_sm90_4096_bn128_ring4 4096 4096 128 4 ring \
// RUN:   | diff - %axe_src_root/bench/gpu/gemm_sm90_4096_bn128_ring4.mlir
// RUN: python3 %axe_src_root/bench/gpu/gen_gemm_sm90.py gemm_sm90_4096_bn256_persistent 4096 4096 256 4 persistent 132 \
// RUN:   | diff - %axe_src_root/bench/gpu/gemm_sm90_4096_bn256_persistent.mlir

// CHECK: gemm_sm90_ws on cpu mismatches: 0
// CHECK-NEXT: C[100][700] = -7
