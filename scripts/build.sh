#!/usr/bin/env bash
# Configures (once) and builds tlc in build/ with ninja (and ccache if there).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TLC_BUILD_DIR:-$root/build}"

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$(llvm-config-22 --cmakedir)/../mlir"
fi
cmake --build "$build"
