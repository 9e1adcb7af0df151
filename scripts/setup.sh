#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build and test axe-mlir.
set -euo pipefail

packages=(cmake ninja-build g++ ccache python3
          llvm-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
          libgtest-dev libgmock-dev googletest libbenchmark-dev
          libomp-22-dev libopenblas-dev
          clang-22 libclang-rt-22-dev
          mpich libmpich-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
