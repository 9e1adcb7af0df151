#!/bin/bash
# Runs, on a machine with an NVIDIA GPU and the CUDA toolkit (no LLVM or
# MLIR needed), what bench/gpu/prepare.py built: gemm-bench (GemmBench.cpp:
# axe's sm_90a GEMMs against cuBLAS, 4096^3 for the checked-in kernels and
# M = 8192 for those of --gemm-shapes) and the integration tests of
# test/Integration/CrossTarget compiled for the GPU. Each program runs under a
# timeout, so that a kernel that deadlocks is reported, not waited for.
#
# With prepare.py --random N, also the seeded random kernels of
# random/manifest.txt, each printing every cell of its outputs.
#
# Usage: run-on-gpu.sh PREPARED_DIR RESULTS_DIR
# RESULTS_DIR gets gpu.txt, gemm.txt and gemm.json (gemm_table.py prints
# it), attention-bench.txt and attention.json (attention_bench.py --table
# prints it), tests/<name>.out (stdout),
# tests/<name>.err (stderr and the exit status), and the same under random/
# for the random kernels; check.py reads it.
set -u
dir=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
cd "$dir"
mkdir -p "$out/tests"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem \
  --format=csv >"$out/gpu.txt" 2>&1
nvidia-smi -q 2>/dev/null | grep -i 'addressing mode' >>"$out/gpu.txt"
export LD_LIBRARY_PATH="$dir:$cuda/lib64:${LD_LIBRARY_PATH:-}"
cxx="g++ -O2 -I$dir -I$cuda/include"
link_cuda="-L$cuda/lib64/stubs -lcuda"
set -x
$cxx -fPIC -shared CudaRuntime.cpp -o libaxe_cuda_runtime.so $link_cuda || exit 1
gcc -O2 -c ManagedAlloc.c -o ManagedAlloc.o || exit 1
gcc -O2 -c PrintUtils.c -o PrintUtils.o || exit 1
set +x
# The benchmark, unless prepare.py ran with --tests-only.
if [ -s kernels.inc ]; then
  objects=$(sed -n 's/^AXE_GEMM[A-Z_]*(\([A-Za-z0-9_]*\),.*/\1.o/p' kernels.inc)
  # shellcheck disable=SC2086
  $cxx GemmBench.cpp $objects -o gemm-bench \
    -L"$dir" -laxe_cuda_runtime -L"$cuda/lib64" -lcublasLt -lcublas $link_cuda || exit 1
  {
    # The checked-in kernels at 4096^3, then the shape table's at M = 8192.
    timeout 120 ./gemm-bench --m 4096 --n 4096 --k 4096 --kernel gemm_sm90_4096 \
      --json "$out/gemm-4096.json"
    echo "exit status $?"
    timeout 1200 ./gemm-bench --m 8192 --json "$out/gemm.json"
    echo "exit status $?"
  } >"$out/gemm.txt" 2>&1
  cat "$out/gemm.txt"
fi
# The attention kernels against cuDNN, unless prepare.py ran without
# --attention-shapes.
if [ -s attention.txt ]; then
  # shellcheck disable=SC2086
  $cxx -shared $(awk '{print $1 ".o"}' attention.txt) -o libaxe_attention.so \
    -L"$dir" -laxe_cuda_runtime $link_cuda || exit 1
  {
    timeout 1200 python3 attention_bench.py "$dir" --json "$out/attention.json"
    echo "exit status $?"
  } >"$out/attention-bench.txt" 2>&1
  cat "$out/attention-bench.txt"
fi
while read -r name result file prefix; do
  [ -n "$name" ] || continue
  if ! $cxx "tests/$name.o" ManagedAlloc.o PrintUtils.o -o "tests/$name" \
      -L"$dir" -laxe_cuda_runtime $link_cuda -lm >"$out/tests/$name.err" 2>&1; then
    echo "$name: link failed"
    continue
  fi
  timeout 20 "tests/$name" >"$out/tests/$name.out" 2>>"$out/tests/$name.err"
  status=$?
  echo "exit status $status" >>"$out/tests/$name.err"
  echo "$name: exit $status"
done <manifest.txt
# The random kernels, unless prepare.py ran without --random.
if [ -f random/manifest.txt ]; then
  mkdir -p "$out/random"
  ran=0
  while read -r name; do
    [ -n "$name" ] || continue
    if ! $cxx "random/$name.o" ManagedAlloc.o PrintUtils.o -o "random/$name" \
        -L"$dir" -laxe_cuda_runtime $link_cuda -lm >"$out/random/$name.err" 2>&1; then
      echo "random $name: link failed"
      continue
    fi
    timeout 20 "random/$name" >"$out/random/$name.out" 2>>"$out/random/$name.err"
    status=$?
    echo "exit status $status" >>"$out/random/$name.err"
    [ $status = 0 ] || echo "random $name: exit $status"
    ran=$((ran + 1))
  done <random/manifest.txt
  echo "random kernels run: $ran"
fi
