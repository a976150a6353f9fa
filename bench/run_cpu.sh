#!/usr/bin/env bash
# CPU benchmarks: tlc kernels against OpenBLAS in the same run, memory-bound
# kernels against a measured copy bandwidth, and tlc compile times.
# Usage: bash bench/run_cpu.sh [build-dir]   (prints markdown tables)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
tlc="$build/bin/tlc"
out="$build/bench"
rm -rf "$out" && mkdir -p "$out"

echo "## Machine"
echo
echo "$(lscpu | grep 'Model name' | sed 's/ \+/ /g'), $(nproc) cores; $(date -u +%Y-%m-%d); commit $(git -C "$root" rev-parse --short HEAD)"
echo

echo "## tlc compile time (.tl to object + stubs, -O3)"
echo
echo "| example | seconds |"
echo "|---|---|"
for f in "$root"/examples/*.tl; do
  name=$(basename "$f" .tl)
  start=$(date +%s.%N)
  if "$tlc" "$f" -target=cpu -o "$out/$name/" >/dev/null 2>&1; then
    end=$(date +%s.%N)
    printf "| %s | %.3f |\n" "$name" "$(echo "$end - $start" | bc)"
  else
    echo "| $name | compile failed |"
  fi
done
echo

echo "## f32 GEMM: tlc vs OpenBLAS cblas_sgemm"
echo
g++ -std=c++17 -O2 "$root/bench/cpu/bench_gemm.cpp" "$out/gemm/gemm.cpp" "$out/gemm/gemm.o" \
  -I"$root/include" -I"$out/gemm" -I/usr/include/x86_64-linux-gnu/openblas-pthread \
  -lopenblas -pthread -o "$out/bench_gemm"
echo "### OpenBLAS as installed (its CPU detection picks the kernel)"
echo
"$out/bench_gemm"
# Debian 12's OpenBLAS 0.3.21 does not know recent Xeons and falls back to a
# generic SSE3 kernel; also measure its best AVX-512 (or AVX2) kernel, so the
# comparison is against OpenBLAS at its best on this machine.
best=Haswell
grep -qw avx512f /proc/cpuinfo && best=Cooperlake
echo
echo "### OpenBLAS forced to its $best kernel (OPENBLAS_CORETYPE=$best)"
echo
OPENBLAS_CORETYPE=$best "$out/bench_gemm"
echo

echo "## Memory-bound kernels against copy bandwidth"
echo
g++ -std=c++17 -O2 "$root/bench/cpu/bench_memory.cpp" \
  "$out/softmax/softmax.cpp" "$out/rmsnorm/rmsnorm.cpp" \
  "$out/softmax/softmax.o" "$out/rmsnorm/rmsnorm.o" \
  -I"$root/include" -I"$out/softmax" -I"$out/rmsnorm" -pthread -o "$out/bench_memory"
"$out/bench_memory"
echo

# The same kernels with tile shapes tuned on this machine (tlc tune: the
# candidates are cached, so a rerun only measures), dispatched per shape.
echo "## Memory-bound kernels tuned for this machine (tlc tune, --tuning)"
echo
shapes="--shape M=4096,N=4096 --shape M=16384,N=1024 --shape M=1000,N=3000 --shape M=128,N=32768 --shape M=16,N=4096 --shape M=256,N=128"
mkdir -p "$out/tuned"
for k in softmax rmsnorm; do
  "$tlc" tune "$root/examples/$k.tl" --kernel "$k" -D T=f32 -D PerThread=64 \
    $shapes -o "$out/tuned/$k.tuning.json" > "$out/tuned/$k.tune.log" 2>&1 ||
    { echo "tlc tune $k failed: $out/tuned/$k.tune.log"; exit 1; }
  "$tlc" "$root/examples/$k.tl" -target=cpu -D PerThread=64 \
    --tuning="$out/tuned/$k.tuning.json" -o "$out/tuned/$k/" >/dev/null
  echo "- $k: $(grep -o '"shape": {[^}]*}, "params": {[^}]*}' "$out/tuned/$k.tuning.json" | sed 's/"shape": //; s/"params": /-> /; s/"//g' | tr '\n' ';')"
done
echo
g++ -std=c++17 -O2 "$root/bench/cpu/bench_memory.cpp" \
  "$out/tuned/softmax/softmax.cpp" "$out/tuned/rmsnorm/rmsnorm.cpp" \
  "$out/tuned/softmax/softmax.o" "$out/tuned/rmsnorm/rmsnorm.o" \
  -I"$root/include" -I"$out/tuned/softmax" -I"$out/tuned/rmsnorm" -pthread \
  -o "$out/bench_memory_tuned"
"$out/bench_memory_tuned"
