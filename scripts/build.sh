#!/usr/bin/env bash
# Configures (once) and builds axe-mlir in ${AXE_BUILD_DIR:-build}.
# Builds are serialized with a lock: the machine has two cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${AXE_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh"

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=${AXE_BUILD_TYPE:-Release} \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
fi
exec 9>/tmp/axe-build.lock
flock 9
ninja -C "$build" "$@"
