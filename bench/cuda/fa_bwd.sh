#!/usr/bin/env bash
# fa_bwd.sh - FlashAttention backward (examples/flash_attention_bwd.tl) on a
# GPU: checked against torch autograd in float64 and timed against torch's
# fastest SDPA backward (flash, cuDNN, efficient), same run.
#
#   bash bench/cuda/fa_bwd.sh prepare    # build machine: tlc --bundle
#   bash bench/cuda/fa_bwd.sh run [--small] [--time] [CFG...]   # GPU machine
#   bash bench/cuda/fa_bwd.sh profile CFG   # GPU machine: ncu of the main
#                                           # kernel at 8 x 16 x 4096 x D
#
# prepare compiles the forward (for O and its log-sum-exp L) and the three
# backward kernels of each configuration below into bench/cuda/gen-xfabwd/CFG
# (gitignored; FA_BWD_GEN names another folder), packed into
# gen-xfabwd/configs.tar.gz; run unpacks and builds
# them (g++) and runs fa_bwd.py, which prints one line per check and per
# timing and writes $OUT/fa_bwd.txt.
#   run(command="bash bench/cuda/fa_bwd.sh run --time", carry=["bench/cuda/gen-xfabwd"])
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
gen="${FA_BWD_GEN:-$here/gen-xfabwd}"
tlc="${TLC:-$root/build/bin/tlc}"

# name | -D for both files | -D for the backward only
CONFIGS=(
  "bf16_d128|T=bf16 D=128 Causal=false|"
  "bf16_d128_causal|T=bf16 D=128 Causal=true|"
  "bf16_d64|T=bf16 D=64 Causal=false|"
  "bf16_d64_causal|T=bf16 D=64 Causal=true|"
  "bf16_d64_m64|T=bf16 D=64 Causal=false|BM=64 BN=128"
  "bf16_d128_n64|T=bf16 D=128 Causal=false|BN=64"
  "bf16_d128_causal_n64|T=bf16 D=128 Causal=true|BN=64"
  "bf16_d128_s3|T=bf16 D=128 Causal=false|Stages=3"
  "bf16_d128_causal_s3|T=bf16 D=128 Causal=true|Stages=3"
  "f16_d64|T=f16 D=64 Causal=false|"
  "f32_d64|T=f32 D=64 Causal=false|"
)

# FA_BWD_ONLY (a regex of names) narrows the list.
if [ -n "${FA_BWD_ONLY:-}" ]; then
  kept=()
  for c in "${CONFIGS[@]}"; do
    [[ "${c%%|*}" =~ $FA_BWD_ONLY ]] && kept+=("$c")
  done
  CONFIGS=("${kept[@]}")
fi

case "${1:-}" in
prepare)
  rm -rf "$gen" && mkdir -p "$gen"
  git -C "$root" rev-parse --short HEAD >"$gen/COMMIT" 2>/dev/null || true
  for c in "${CONFIGS[@]}"; do
    IFS='|' read -r name defs bdefs <<<"$c"
    d="$gen/$name"
    mkdir -p "$d"
    D=() B=()
    for x in $defs; do D+=(-D "$x"); done
    for x in $bdefs; do B+=(-D "$x"); done
    "$tlc" "$root/examples/flash_attention.tl" -target=cuda -arch=sm_90a \
      "${D[@]}" --bundle -o "$d/" || exit 1
    "$tlc" "$root/examples/flash_attention_bwd.tl" -target=cuda -arch=sm_90a \
      "${D[@]}" "${B[@]}" --bundle -o "$d/" || exit 1
    printf 'name=%s\nstatus=ok\ndefines=%s %s\n' "$name" "$defs" "$bdefs" \
      >"$d/CONFIG"
    echo "$name ok"
  done
  # The device tool carries at most 64 MiB and each stub embeds its
  # binary as text: pack them.
  (cd "$gen" && tar czf configs.tar.gz --exclude=configs.tar.gz --exclude=COMMIT \
    $(for c in "${CONFIGS[@]}"; do echo "${c%%|*}"; done) &&
    for c in "${CONFIGS[@]}"; do rm -rf "${c%%|*}"; done)
  du -sh "$gen"
  ;;
run)
  shift
  [ -f "$gen/configs.tar.gz" ] && (cd "$gen" && tar xzf configs.tar.gz)
  exec python3 "$here/fa_bwd.py" --gen "$gen" "$@"
  ;;
profile)
  [ -f "$gen/configs.tar.gz" ] && (cd "$gen" && tar xzf configs.tar.gz)
  python3 "$here/fa_bwd.py" --gen "$gen" --small "$2" >/dev/null || exit 1
  # The preprocess matches too and runs first: skip it.
  exec bash "$here/profile.sh" cmd "fa_bwd_$2" "flash_attn_bwd" 1 \
    python3 "$here/fa_bwd.py" --gen "$gen" --profile "$2"
  ;;
*)
  sed -n '2,15p' "$0"
  exit 1
  ;;
esac
