#!/usr/bin/env bash
# validate-examples.sh OUT EXAMPLES: compiles every example that fits a
# Vulkan device for each -arch profile and validates the SPIR-V for Vulkan
# 1.2 and 1.3 (spirv-val).
set -euo pipefail
out=$1 examples=$2
for arch in lavapipe generic amd nvidia; do
  for ex in elementwise softmax rmsnorm colsum gemm linear; do
    spv="$out/$ex-$arch.spv"
    tlc "$examples/$ex.tl" -target=vulkan -arch=$arch -D T=f32 -emit=spirv \
      -o "$spv" 2> "$out/log" || { cat "$out/log"; exit 1; }
    for env in vulkan1.2 vulkan1.3; do
      spirv-val --target-env $env "$spv" ||
        { echo "$ex -arch=$arch: invalid for $env"; exit 1; }
    done
  done
done
# f16 data (copies convert 8 elements at a time).
for ex in softmax gemm linear; do
  tlc "$examples/$ex.tl" -target=vulkan -arch=generic -D T=f16 -emit=spirv \
    -o "$out/$ex-f16.spv" 2> "$out/log" || { cat "$out/log"; exit 1; }
  spirv-val --target-env vulkan1.2 "$out/$ex-f16.spv" ||
    { echo "$ex f16: invalid"; exit 1; }
done
echo "validated"
