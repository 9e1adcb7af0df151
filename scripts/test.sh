#!/usr/bin/env bash
# Sets up, builds from scratch if needed, and runs every test (lit + gtest)
# through ctest, then a 30-second smoke run of each fuzzer over its corpus
# (scripts/fuzz.sh; AXE_FUZZ_SECONDS changes the length, AXE_SKIP_FUZZ=1
# skips it). A crash found by a fuzzer fails the run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${AXE_BUILD_DIR:-$root/build}

"$root/scripts/build.sh"
(cd "$build" && ctest --output-on-failure -j2)
if [ "${AXE_SKIP_FUZZ:-0}" != 1 ]; then
  # A fixed seed: the smoke run replays the same mutations every time, so
  # the suite fails only on what a run here would have found too.
  AXE_FUZZ_FLAGS=${AXE_FUZZ_FLAGS:--seed=1} \
    "$root/scripts/fuzz.sh" "${AXE_FUZZ_SECONDS:-30}"
fi
