#!/usr/bin/env bash
# tune.sh - Tune the examples on a GPU with tlc tune's bundles, then time the
# dispatching stub of softmax against its defaults.
#
#   bash bench/cuda/tune.sh prepare     # build machine: tlc tune --prepare
#   bash bench/cuda/tune.sh run         # GPU machine: build and run bundles
#   bash bench/cuda/tune.sh stub DB     # build machine: softmax --tuning=DB
#   bash bench/cuda/tune.sh stub --fill # ... or the fill heuristic's stub
#   bash bench/cuda/tune.sh dispatch    # GPU machine: tuned_dispatch.cpp
#
# prepare writes one bundle per kernel below into gen-tune/ (gitignored) and
# packs them into gen-tune/bundles.tar.gz (the device tool carries at most
# 64 MiB: gemm's stubs are large as text). With TUNE_PREBUILD=1 it also
# builds each bundle's runner here (c++ only, no GPU needed: the stubs load
# libcuda at run time) into gen-tune/runners/NAME, packed into
# gen-tune/runners.tar.gz (the bundles then leave their kernel sources out),
# so the GPU machine spends its time measuring, not compiling (about a
# minute per row-wise bundle on the H200 host). run unpacks, runs each prebuilt runner or else builds the
# bundle (sh build.sh), and writes $OUT/NAME.json (the database) and
# $OUT/tune.log (every candidate's time, all kernels: the device tool brings
# back only a few files); TUNE_ONLY=REGEX keeps the kernels whose name
# matches (prepare: the bundles written; run: the bundles run, so one
# prepared set can be measured over several calls). TUNE_BUDGET_MS sets
# the timing per candidate and shape at run time (default: the bundle's). stub compiles softmax with
# the database and with its defaults (renamed softmax_defaults) into
# gen-tune/dispatch/; dispatch builds tuned_dispatch.cpp against both and
# prints the comparison to $OUT/dispatch.txt.
#   run(command="bash bench/cuda/tune.sh run", carry=["bench/cuda/gen-tune"])
# Fold a run's databases into the shipped one (entries of the same kernel,
# pinned parameters and shape replaced in place):
#   python3 bench/cuda/merge_tuning.py examples/h200.tuning.json OUT/*.json
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
gen="$here/gen-tune"
tlc="${TLC:-$root/build/bin/tlc}"
arch="${TUNE_ARCH:-sm_90a}"
out="${OUT:-$gen/out}"

# name | example | tlc tune arguments
# The row-wise kernels' shapes: few and many rows, rows from 1k to 128k.
ROWS="--shape M=16,N=4096 --shape M=1000,N=3000 --shape M=4096,N=4096 --shape M=8192,N=8192 --shape M=16384,N=1024 --shape M=128,N=32768 --shape M=32,N=131072"
# layernorm_bwd: the harness's large shapes and two of the forward's.
BWD_ROWS="--shape M=8192,N=8192 --shape M=32768,N=1024 --shape M=4096,N=12288 --shape M=1000,N=3000 --shape M=16,N=4096"
KERNELS=(
  "softmax_f32|softmax.tl|-D T=f32 $ROWS"
  "softmax_bf16|softmax.tl|-D T=bf16 $ROWS"
  "rmsnorm_f32|rmsnorm.tl|-D T=f32 $ROWS"
  "rmsnorm_bf16|rmsnorm.tl|-D T=bf16 $ROWS"
  "layernorm_f32|layernorm.tl|-D T=f32 $ROWS"
  "layernorm_bf16|layernorm.tl|-D T=bf16 $ROWS"
  "layernorm_bwd_f32|layernorm_bwd.tl|-D T=f32 $BWD_ROWS"
  "layernorm_bwd_bf16|layernorm_bwd.tl|-D T=bf16 $BWD_ROWS"
  "gemm_bf16|gemm.tl|-D T=bf16 -D Stages=4 --shape M=4096,N=4096,K=4096 --shape M=64,N=4096,K=4096 --shape M=3000,N=5000,K=700 --shape M=1000,N=1000,K=1000"
  "gemm_f32|gemm.tl|-D T=f32 --shape M=4096,N=4096,K=4096 --shape M=64,N=4096,K=4096 --shape M=3000,N=5000,K=700"
  "linear_bf16|linear.tl|-D T=bf16 -D Stages=4 --shape M=4096,N=4096,K=4096 --shape M=64,N=4096,K=4096 --shape M=3000,N=5000,K=700 --shape M=1000,N=1000,K=1000"
  "fa_d128_bf16|flash_attention.tl|-D T=bf16 -D D=128 -D Causal=false --shape B=4,H=16,Hkv=16,S=1024 --shape B=1,H=16,Hkv=16,S=4096 --shape B=8,H=32,Hkv=32,S=512 --shape B=8,H=16,Hkv=16,S=4096"
  "fa_d64_bf16|flash_attention.tl|-D T=bf16 -D D=64 -D Causal=false --shape B=4,H=16,Hkv=16,S=1024 --shape B=8,H=16,Hkv=16,S=4096 --shape B=16,H=16,Hkv=16,S=2048"
  "fa_d128_causal_bf16|flash_attention.tl|-D T=bf16 -D D=128 -D Causal=true --shape B=4,H=16,Hkv=16,S=1024 --shape B=8,H=16,Hkv=16,S=4096 --shape B=2,H=8,Hkv=8,S=1000"
  "fa_d64_causal_bf16|flash_attention.tl|-D T=bf16 -D D=64 -D Causal=true --shape B=4,H=16,Hkv=16,S=1024 --shape B=8,H=16,Hkv=16,S=4096 --shape B=16,H=16,Hkv=16,S=2048"
)

case "${1:-}" in
prepare)
  rm -rf "$gen" && mkdir -p "$gen"
  git -C "$root" rev-parse --short HEAD >"$gen/COMMIT" 2>/dev/null || true
  if [ -n "${TUNE_ONLY:-}" ]; then
    kept=()
    for k in "${KERNELS[@]}"; do
      [[ ${k%%|*} =~ $TUNE_ONLY ]] && kept+=("$k")
    done
    KERNELS=("${kept[@]}")
    printf '%s\n' "${KERNELS[@]%%|*}" >"$gen/KERNELS"
  fi
  for k in "${KERNELS[@]}"; do
    IFS='|' read -r name example args <<<"$k"
    echo "== $name"
    # shellcheck disable=SC2086
    "$tlc" tune "$root/examples/$example" -target=cuda "-arch=$arch" $args \
      --budget-ms 20 --prepare "$gen/$name" 2>&1 | grep -v '^tlc tune: \[' || exit 1
  done
  if [ "${TUNE_PREBUILD:-0}" = 1 ]; then
    mkdir -p "$gen/runners"
    for k in "${KERNELS[@]}"; do
      name="${k%%|*}"
      echo "== $name: building the runner here"
      (cd "$gen/$name" &&
        ls kernels/*.cpp | xargs -P "$(nproc)" -I{} \
          ${CXX:-c++} -std=c++17 -O1 -c -Iinclude -Ikernels {} -o {}.o &&
        ${CXX:-c++} -std=c++17 -O2 -pthread -Iinclude -Ikernels runner.cpp \
          kernels/*.cpp.o -ldl -o "$gen/runners/$name" &&
        rm -f kernels/*.cpp.o) || exit 1
    done
  fi
  # Prebuilt runners hold every candidate: the bundles then go without
  # their kernel sources and the runners compressed (a row-wise runner is
  # about 20 MB, a third of that packed), so that three fit one carry.
  exclude=()
  [ "${TUNE_PREBUILD:-0}" = 1 ] && exclude=(--exclude=kernels)
  (cd "$gen" && tar czf bundles.tar.gz --exclude=bundles.tar.gz --exclude=COMMIT \
    "${exclude[@]}" $(for k in "${KERNELS[@]}"; do echo "${k%%|*}"; done) &&
    for k in "${KERNELS[@]}"; do rm -rf "${k%%|*}"; done &&
    if [ -d runners ]; then tar czf runners.tar.gz runners && rm -rf runners; fi) ||
    exit 1
  ls -la "$gen"
  ;;
run)
  mkdir -p "$out"
  rm -f "$out/tune.log"
  cd "$gen" && tar xzf bundles.tar.gz || exit 1
  if [ -f runners.tar.gz ]; then tar xzf runners.tar.gz || exit 1; fi
  status=0
  for k in "${KERNELS[@]}"; do
    name="${k%%|*}"
    [ -d "$gen/$name" ] || continue # not prepared (TUNE_ONLY)
    [ -z "${TUNE_ONLY:-}" ] || [[ $name =~ $TUNE_ONLY ]] || continue
    echo "== $name"
    t0=$(date +%s)
    cmd=(sh "$gen/$name/build.sh")
    [ -x "$gen/runners/$name" ] && cmd=("$gen/runners/$name")
    if [ "${cmd[0]}" = sh ] && [ ! -d "$gen/$name/kernels" ]; then
      echo "   FAILED: prepared with TUNE_PREBUILD=1 but runners.tar.gz has no" \
        "runner for $name (carry gen-tune whole)"
      status=1
      continue
    fi
    log="$gen/$name.log"
    budget=()
    [ -n "${TUNE_BUDGET_MS:-}" ] && budget=(--budget-ms "$TUNE_BUDGET_MS")
    if ! "${cmd[@]}" --out "$out/$name.json" "${budget[@]}" >"$log" 2>&1; then
      echo "   FAILED (see tune.log)"
      tail -5 "$log"
      status=1
    fi
    { echo "== $name"; cat "$log"; } >>"$out/tune.log"
    echo "   $(($(date +%s) - t0)) s"
    grep 'best\|WRONG' "$log" | sed 's/^/   /'
  done
  exit $status
  ;;
stub)
  # DB, or --fill: the stub of the fill heuristic (no database).
  db="${2:?usage: tune.sh stub DB|--fill}"
  rm -rf "$gen/dispatch" && mkdir -p "$gen/dispatch"
  tuning=(--tuning="$db")
  [ "$db" = --fill ] && tuning=()
  "$tlc" "$root/examples/softmax.tl" -target=cuda "-arch=$arch" -D T=f32 \
    "${tuning[@]}" -o "$gen/dispatch/tuned/" || exit 1
  "$tlc" "$root/examples/softmax.tl" -target=cuda "-arch=$arch" -D T=f32 \
    --kernel-suffix=_defaults -o "$gen/dispatch/defaults/" || exit 1
  [ "$db" = --fill ] || cp "$db" "$gen/dispatch/db.json"
  ;;
dispatch)
  mkdir -p "$out"
  d="$gen/dispatch"
  ${CXX:-g++} -std=c++17 -O2 -I"$root/include" -I"$d/tuned" -I"$d/defaults" \
    "$here/tuned_dispatch.cpp" "$d/tuned/softmax.cpp" \
    "$d/defaults/softmax_defaults.cpp" -ldl -o "$d/bench" || exit 1
  "$d/bench" | tee "$out/dispatch.txt"
  ;;
*)
  sed -n '2,18p' "$0"
  exit 1
  ;;
esac
