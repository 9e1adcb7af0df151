#!/usr/bin/env bash
# Sets up, builds from scratch if needed, and runs every test (lit + gtest)
# through ctest. With AXE_FUZZ=1 it then runs a 30-second smoke run of each
# fuzzer over its corpus (scripts/fuzz.sh; AXE_FUZZ_SECONDS changes the
# length); a crash found by a fuzzer fails the run. The smoke run is opt-in:
# the sanitized fuzz build is a second build of every library (about ten
# minutes on two cores), and every input a fuzzer ever crashed on is
# already a lit or gtest regression test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${AXE_BUILD_DIR:-$root/build}

"$root/scripts/build.sh"
(cd "$build" && ctest --output-on-failure -j2)
if [ "${AXE_FUZZ:-0}" = 1 ]; then
  # A fixed seed: the smoke run replays the same mutations every time, so
  # the suite fails only on what a run here would have found too.
  AXE_FUZZ_FLAGS=${AXE_FUZZ_FLAGS:--seed=1} \
    "$root/scripts/fuzz.sh" "${AXE_FUZZ_SECONDS:-30}"
fi
