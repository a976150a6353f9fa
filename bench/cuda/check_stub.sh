#!/usr/bin/env bash
# check_stub.sh - Device check of the CUDA launch stub (bench/cuda).
#
#   bash bench/cuda/check_stub.sh prepare   # build machine: needs tlc + nvcc
#   bash bench/cuda/check_stub.sh run       # GPU machine: needs g++ + driver
#
# prepare: nvcc compiles axpy_kernel.cu (tlc's kernel ABI, by hand) to a
# cubin for sm_90a plus a fatbin (sm_90a cubin + compute_90 PTX); tlc
# generates the stub of axpy.tl with each embedded (developer option
# --stub-binary) into bench/cuda/gen/{cubin,fatbin}/.
# run: compiles each stub with the driver, linking only -ldl (no CUDA
# headers or libraries), and runs it: results checked against the host, the
# shared-memory opt-in (64 KiB) and the per-context module cache exercised.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
gen="$here/gen"
case "${1:-}" in
prepare)
  tlc="${TLC:-$root/build/bin/tlc}"
  nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
  rm -rf "$gen" && mkdir -p "$gen/cubin" "$gen/fatbin"
  "$nvcc" -cubin -arch=sm_90a -O3 "$here/axpy_kernel.cu" -o "$gen/axpy.cubin"
  "$nvcc" -fatbin -gencode arch=compute_90a,code=sm_90a \
    -gencode arch=compute_90,code=compute_90 -O3 "$here/axpy_kernel.cu" \
    -o "$gen/axpy.fatbin"
  for kind in cubin fatbin; do
    "$tlc" "$here/axpy.tl" -target=cuda -emit=stub \
      --stub-binary="$gen/axpy.$kind" --stub-shared-bytes=65536 \
      -o "$gen/$kind/"
  done
  echo "prepared $gen"
  ;;
run)
  cxx="${CXX:-g++}"
  nvidia-smi -L || true
  status=0
  for kind in cubin fatbin; do
    echo "== $kind"
    "$cxx" -std=c++17 -O2 -Wall -Wextra -I"$root/include" -I"$gen/$kind" \
      "$gen/$kind/axpy.cpp" "$here/driver.cpp" -ldl -pthread \
      -o "$gen/$kind/app"
    "$gen/$kind/app" || status=1
  done
  [ $status = 0 ] && echo "ALL PASS" || echo "SOME FAILED"
  exit $status
  ;;
*)
  echo "usage: $0 prepare|run" >&2
  exit 2
  ;;
esac
