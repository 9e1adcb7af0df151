#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) in ${AXE_FUZZ_BUILD_DIR:-build-fuzz}
# with clang-22, ASan and UBSan, then runs each for SECONDS (default 60)
# over its seed corpus and regression inputs.
#
#   scripts/fuzz.sh [SECONDS] [FUZZER...]   # FUZZER: axe-layout-fuzz, axe-opt-fuzz
#
# New inputs a run finds go to $build/corpus/<fuzzer>/ (the checked-in corpus
# stays as it is); a crash is written to $build/crashes/ and fails the run.
# Extra libFuzzer flags can be given in AXE_FUZZ_FLAGS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${AXE_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-60}
[ $# -gt 0 ] && shift
fuzzers=("$@")
[ ${#fuzzers[@]} -eq 0 ] && fuzzers=(axe-layout-fuzz axe-opt-fuzz)

"$root/scripts/setup.sh"

# The machine has two cores: build under the same lock as scripts/build.sh,
# and release it before fuzzing.
(
  exec 9>/tmp/axe-build.lock
  flock 9
  if [ ! -f "$build/build.ninja" ]; then
    CC=clang-22 CXX=clang++-22 cmake -S "$root" -B "$build" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release -DAXE_ENABLE_FUZZERS=ON \
      -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir >/dev/null
  fi
  # Only the fuzzers and the libraries they link.
  ninja -C "$build" "${fuzzers[@]}"
)

mkdir -p "$build/crashes"
status=0
for fuzzer in "${fuzzers[@]}"; do
  name=${fuzzer#axe-}
  name=${name%-fuzz}
  work="$build/corpus/$fuzzer"
  mkdir -p "$work"
  seeds=("$root/fuzz/corpus/$name")
  [ -d "$root/fuzz/regressions/$name" ] && seeds+=("$root/fuzz/regressions/$name")
  case $name in
    layout) maxlen=512 ;;
    *) maxlen=16384 ;;
  esac
  log="$build/$fuzzer.log"
  echo "fuzz: $fuzzer for ${seconds}s (log: $log)"
  # -timeout: an input that runs for 30 s is a hang, reported like a crash.
  # shellcheck disable=SC2086
  if "$build/bin/$fuzzer" "$work" "${seeds[@]}" \
      -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
      -max_len="$maxlen" -dict="$root/fuzz/$name.dict" \
      -artifact_prefix="$build/crashes/$fuzzer-" -print_final_stats=1 \
      ${AXE_FUZZ_FLAGS:-} >"$log" 2>&1; then
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" |
      sed "s/^/  /"
  else
    status=1
    echo "fuzz: $fuzzer FAILED; the end of its log:" >&2
    grep -v '^#[0-9]' "$log" | tail -60 >&2
    ls "$build/crashes/$fuzzer-"* 2>/dev/null >&2 || true
  fi
done
exit $status
