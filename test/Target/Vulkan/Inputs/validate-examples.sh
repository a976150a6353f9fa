#!/usr/bin/env bash
# validate-examples.sh OUT EXAMPLES: compiles every example that fits a
# Vulkan device for each -arch profile and validates the SPIR-V for Vulkan
# 1.2 and 1.3 (spirv-val).
set -euo pipefail
out=$1 examples=$2
for arch in lavapipe generic amd nvidia; do
  for ex in elementwise softmax rmsnorm layernorm layernorm_bwd colsum gemm \
      linear splitk_gemm grouped_gemm conv2d rope moe_topk paged_decode \
      fp8_quant fp8_gemm w4a16_gemm topk_gating mla_decode flash_attention \
      flash_attention_bwd; do
    spv="$out/$ex-$arch.spv"
    # f32 where the example takes it; flash attention in its own bf16 (its
    # f32 tiles at the defaults need more than 32 KiB, or than the amd
    # profile's 64 KiB: Vulkan's shared arrays of two types do not overlap).
    t=(-D T=f32)
    [[ $ex == flash_attention* ]] && t=()
    tlc "$examples/$ex.tl" -target=vulkan -arch=$arch "${t[@]}" -emit=spirv \
      -o "$spv" 2> "$out/log" || { cat "$out/log"; exit 1; }
    # Sizes and strides are 32-bit words: no shader needs 64-bit integers
    # (an optional Vulkan feature; MSL before 2.2 has none).
    if spirv-dis "$spv" | grep -q "OpCapability Int64"; then
      echo "$ex -arch=$arch: needs Int64"; exit 1
    fi
    for env in vulkan1.2 vulkan1.3; do
      spirv-val --target-env $env "$spv" ||
        { echo "$ex -arch=$arch: invalid for $env"; exit 1; }
    done
  done
done
# 16-bit data (copies convert 8 elements at a time; bf16 as its bits);
# FP8 (as bytes) with both 16-bit activations.
for t in f16 bf16; do
  for ex in softmax rmsnorm gemm linear grouped_gemm conv2d rope fp8_quant \
      fp8_gemm w4a16_gemm; do
    tlc "$examples/$ex.tl" -target=vulkan -arch=generic -D T=$t -emit=spirv \
      -o "$out/$ex-$t.spv" 2> "$out/log" || { cat "$out/log"; exit 1; }
    if spirv-dis "$out/$ex-$t.spv" | grep -q "OpCapability Int64"; then
      echo "$ex $t: needs Int64"; exit 1
    fi
    spirv-val --target-env vulkan1.2 "$out/$ex-$t.spv" ||
      { echo "$ex $t: invalid"; exit 1; }
  done
done
echo "validated"
