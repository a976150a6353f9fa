#!/usr/bin/env bash
# h200.sh: the Vulkan target on an NVIDIA GPU (issue 13).
#   bash bench/vulkan/h200.sh prepare   # here: tlc -target=vulkan -arch=nvidia,
#                                       # the Vulkan headers and loader
#   bash bench/vulkan/h200.sh run       # on the GPU machine (no Vulkan
#                                       # loader there): builds the e2e
#                                       # drivers, checks every example,
#                                       # times gemm against torch (cuBLAS)
# Results go to $OUT (or bench/vulkan/out).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
gen=$here/gen
inputs=$root/test/e2e/cpu/Inputs
arch=${ARCH:-nvidia}

prepare() {
  tlc=${TLC:-$root/build/bin/tlc}
  rm -rf "$gen" && mkdir -p "$gen/include" "$gen/lib"
  cp -r /usr/include/vulkan /usr/include/vk_video "$gen/include/"
  cp -L /usr/lib/x86_64-linux-gnu/libvulkan.so.1 "$gen/lib/"
  for ex in softmax rmsnorm elementwise colsum; do
    "$tlc" "$root/examples/$ex.tl" -target=vulkan -arch=$arch -o "$gen/$ex/"
  done
  for t in f32 f16; do
    "$tlc" "$root/examples/gemm.tl" -target=vulkan -arch=$arch -D T=$t -o "$gen/gemm-$t/"
    "$tlc" "$root/examples/linear.tl" -target=vulkan -arch=$arch -D T=$t -o "$gen/linear-$t/"
  done
  echo "prepared $gen"
}

# The NVIDIA Vulkan driver: its ICD file, or one written for its library.
find_icd() {
  for f in /usr/share/vulkan/icd.d/nvidia_icd*.json /etc/vulkan/icd.d/nvidia_icd*.json; do
    [ -f "$f" ] && { echo "$f"; return; }
  done
  lib=$(ldconfig -p | awk '/libGLX_nvidia.so.0/ {print $NF; exit}')
  [ -z "$lib" ] && lib=$(find / -name 'libGLX_nvidia.so.0' 2>/dev/null | head -1)
  [ -z "$lib" ] && return 1
  printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.3.0"}}\n' \
    "$lib" > "$gen/nvidia_icd.json"
  echo "$gen/nvidia_icd.json"
}

run() {
  out=${OUT:-$here/out}
  mkdir -p "$out"
  export LD_LIBRARY_PATH=$gen/lib:${LD_LIBRARY_PATH:-}
  icd=$(find_icd) || { echo "no NVIDIA Vulkan driver found" | tee "$out/vulkan.log"; exit 1; }
  export VK_ICD_FILENAMES=$icd
  echo "ICD: $icd" | tee "$out/vulkan.log"
  cxx="g++ -std=c++17 -O2 -pthread -I$root/include -I$gen/include"
  check() { # name dir driver stub flags...
    local name=$1 dir=$2 driver=$3 stub=$4; shift 4
    $cxx -DTLC_CHECK_VULKAN "$@" -I"$dir" "$inputs/${driver}_driver.cpp" "$dir/$stub.cpp" -ldl -o "$dir/driver"
    echo "== $name" | tee -a "$out/vulkan.log"
    "$dir/driver" 2>&1 | grep -v '^PASS' | tee -a "$out/vulkan.log" || true
  }
  check softmax "$gen/softmax" softmax softmax
  check rmsnorm "$gen/rmsnorm" rmsnorm rmsnorm
  check bias_gelu "$gen/elementwise" elementwise bias_gelu
  check colsum "$gen/colsum" colsum colsum
  check colsum_split "$gen/colsum" atomic_add colsum_split
  check gemm-f32 "$gen/gemm-f32" gemm gemm
  check gemm-f16 "$gen/gemm-f16" gemm gemm -DTLC_T_F16
  check linear-f32 "$gen/linear-f32" gemm linear -DTLC_LINEAR
  check linear-f16 "$gen/linear-f16" gemm linear -DTLC_LINEAR -DTLC_T_F16
  for t in f16 f32; do
    $cxx -I"$gen/gemm-$t" "$here/gemm_bench.cpp" "$gen/gemm-$t/gemm.cpp" -ldl -o "$gen/gemm-$t/bench"
    "$gen/gemm-$t/bench" $t 4096 4096 4096 | tee -a "$out/vulkan.log" || true
  done
  python3 - <<'PY' | tee -a "$out/vulkan.log"
import torch
for dt in (torch.float16, torch.float32):
    a = torch.randn(4096, 4096, device="cuda", dtype=dt)
    b = torch.randn(4096, 4096, device="cuda", dtype=dt)
    for _ in range(3): a @ b
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(15):
        s.record(); a @ b; e.record(); torch.cuda.synchronize()
        times.append(s.elapsed_time(e) * 1000)
    us = sorted(times)[7]
    print(f"cublas {dt} 4096x4096x4096: {us:.1f} us, {2*4096**3/us/1e6:.1f} TFLOP/s")
PY
}

"${1:-run}"
