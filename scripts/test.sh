#!/usr/bin/env bash
# Sets up, builds from scratch if needed, and runs every test (lit + gtest)
# through ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${AXE_BUILD_DIR:-$root/build}

"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j2
