#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install what is missing, build
# tlc, compile examples/gemm.tl for the CPU, link its generated stub into a
# small demo and run it on random data (max error and GFLOP/s).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TLC_BUILD_DIR:-$root/build}"

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

out="$build/demo"
mkdir -p "$out"
echo "== tlc examples/gemm.tl -target=cpu -o $out/"
"$build/bin/tlc" "$root/examples/gemm.tl" -target=cpu -o "$out/"
g++ -std=c++17 -O2 "$root/examples/demo/gemm_demo.cpp" "$out/gemm.cpp" \
  "$out/gemm.o" -I"$root/include" -I"$out" -pthread -o "$out/gemm_demo"
echo "== running the gemm demo"
"$out/gemm_demo"
