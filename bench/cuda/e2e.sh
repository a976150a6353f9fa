#!/usr/bin/env bash
# e2e.sh - End-to-end check and benchmark of tlc's CUDA kernels on a GPU.
#
#   bash bench/cuda/e2e.sh prepare          # build machine: tlc + ptxas, no GPU
#   bash bench/cuda/e2e.sh run [ARGS...]    # GPU machine: g++, python3 + torch
#   bash bench/cuda/e2e.sh abi              # any machine: ctypes layout check
#
# prepare compiles every configuration below with
#   tlc examples/X.tl -target=cuda -arch=sm_90a -D ... --bundle -o gen-e2e/CFG/
# (the stubs NAME.h/NAME.cpp with the embedded device binary, plus the
# bundle STEM.tlc.cpp), then `-emit=ptx` into the same folder and
# `ptxas -arch=sm_90a -v` on each X.ptx (report: gen-e2e/CFG/ptxas.txt,
# cubin X.ptxas.cubin). A configuration that fails is recorded in
# gen-e2e/FAILED.txt and the others go on. gen-e2e/COMMIT records the commit
# (the GPU machine may have no .git), gen-e2e/CONFIGS every configuration and
# its status, gen-e2e/CFG/CONFIG the command line and compile time.
#
# run builds each configuration's stubs into its own shared library
# gen-e2e/CFG/libtlc_e2e_CFG.so (kernel names repeat across configurations,
# e.g. tlc_gemm for f16 and bf16: one library each, loaded RTLD_LOCAL and
# linked -Bsymbolic), dumps SASS and resource usage of the embedded binaries
# when cuobjdump is there, runs harness.py (checks against torch, timings
# against cuBLAS / SDPA / torch ops and the copy bandwidth) and then the
# small sizes again under each compute-sanitizer tool (memcheck, racecheck,
# initcheck, synccheck; E2E_SANITIZER_TOOLS picks others). ARGS go to
# harness.py (--only REGEX, --small, --budget S, ...). Results: $OUT/results.md
# (table, resources, sanitizer verdict), $OUT/results.json, $OUT/harness.log,
# $OUT/sanitizer-{memcheck,racecheck,initcheck,synccheck}.log, $OUT/build.log;
# without $OUT, gen-e2e/out/.
# Exit status: non-zero when a check failed, a configuration is missing or
# did not build, or the sanitizer reported errors.
#
# The device tool must carry gen-e2e (it is gitignored):
#   run(command="bash bench/cuda/e2e.sh run", carry=["bench/cuda/gen-e2e"])
#
# Environment (prepare):
#   TLC, PTXAS, CUOBJDUMP      tool paths (build/bin/tlc, /usr/local/cuda/bin/...)
#   E2E_ARCH=sm_90a            -arch for tlc and ptxas
#   E2E_ONLY=REGEX             prepare only the configurations matching REGEX
#   E2E_PART=I/N               prepare only every N-th configuration from the
#                              I-th (1-based) of those: the whole set is over
#                              the device tool's 64 MiB, E2E_PART=1/3, 2/3 and
#                              3/3 into three E2E_GEN folders fit, one call each
#   E2E_SRC=DIR                compile DIR's examples (default: this checkout)
#   E2E_DEFS_<cfg>="A=1 B=2"   replace the -D list of configuration <cfg>
#   E2E_VARIANTS="NAME|EXAMPLE|DEFS;..."  more configurations, in the list's
#                              format (EXAMPLE relative to examples/): A/B
#                              variants of one example in one folder, each
#                              checked and timed like the example's own
#                              (E2E_ONLY still selects among all of them)
#   E2E_STUB_ONLY=1            -emit=stub (no device code; for testing this
#                              script: every launch then fails at run time)
#   E2E_STRICT=1               exit 1 when any configuration failed
# Environment (run):
#   CXX=g++, E2E_JOBS (parallel builds), E2E_SANITIZER=0 (skip the sanitizer
#   passes), E2E_TIMEOUT=360 / E2E_SANITIZER_TIMEOUT=150 (seconds). The whole run
#   normally takes a few minutes; give the device tool timeout_s=600.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# The sources prepare compiles (examples/, test inputs): this checkout, or
# E2E_SRC (another checkout, e.g. a git worktree of an older commit for an
# A/B run: bench/cuda/ab.sh).
src="${E2E_SRC:-$root}"
gen="${E2E_GEN:-$here/gen-e2e}"
arch="${E2E_ARCH:-sm_90a}"

# name | example | -D list (space separated). Override with E2E_DEFS_<name>.
CONFIGS=(
  "gemm_f16|gemm.tl|T=f16 BM=128 BN=128 BK=64 Stages=3"
  "gemm_bf16|gemm.tl|T=bf16 BM=128 BN=128 BK=64 Stages=3"
  "gemm_f32|gemm.tl|T=f32 BK=32"
  "linear_bf16|linear.tl|T=bf16 BM=128 BN=128 BK=64 Stages=3"
  "linear_f16|linear.tl|T=f16 BM=128 BN=128 BK=64 Stages=3"
  "gemm_bf16_wg2|gemm.tl|T=bf16 BM=128 BN=256 BK=64 Stages=4 Threads=256"
  "linear_bf16_wg2|linear.tl|T=bf16 BM=128 BN=256 BK=64 Stages=4 Threads=256"
  "gemm_f16_wg2|gemm.tl|T=f16 BM=128 BN=256 BK=64 Stages=4 Threads=256"
  "linear_f16_wg2|linear.tl|T=f16 BM=128 BN=256 BK=64 Stages=4 Threads=256"
  "linear_bf16_m64|linear.tl|T=bf16 BM=64 BN=64 BK=128 Stages=4 Threads=128"
  "gemm_bf16_m64|gemm.tl|T=bf16 BM=64 BN=64 BK=128 Stages=4 Threads=128"
  "gemm_bf16_b96|gemm.tl|T=bf16 BM=96 BN=64 BK=32 Stages=4 Threads=128"
  "gemm_bf16_default|gemm.tl|T=bf16"
  "gemm_f32_default|gemm.tl|T=f32"
  "linear_bf16_default|linear.tl|T=bf16"
  "gemm_bf16_dispatch|gemm.tl|T=bf16 Stages=4 --tuning=examples/h200.tuning.json"
  "gemm_f16_dispatch|gemm.tl|T=f16 Stages=4 --tuning=examples/h200.tuning.json"
  "linear_bf16_dispatch|linear.tl|T=bf16 Stages=4 --tuning=examples/h200.tuning.json"
  "linear_f16_dispatch|linear.tl|T=f16 Stages=4 --tuning=examples/h200.tuning.json"
  "softmax_f32|softmax.tl|T=f32 --tuning=examples/h200.tuning.json"
  "softmax_bf16|softmax.tl|T=bf16 --tuning=examples/h200.tuning.json"
  "rmsnorm_f32|rmsnorm.tl|T=f32 --tuning=examples/h200.tuning.json"
  "rmsnorm_bf16|rmsnorm.tl|T=bf16 --tuning=examples/h200.tuning.json"
  "layernorm_f32|layernorm.tl|T=f32 --tuning=examples/h200.tuning.json"
  "layernorm_bf16|layernorm.tl|T=bf16 --tuning=examples/h200.tuning.json"
  "elementwise|elementwise.tl|"
  "colsum|colsum.tl|T=f32"
  "grouped_gemm_bf16|grouped_gemm.tl|T=bf16"
  "elements|../test/e2e/cpu/Inputs/elements.tl|"
  "rope_bf16|rope.tl|T=bf16"
  "splitk_bf16|splitk_gemm.tl|T=bf16"
  "splitk_bf16_m16|splitk_gemm.tl|T=bf16 BM=16 BN=128 BK=128 Splits=8"
  "moe_topk_bf16|moe_topk.tl|T=bf16"
  "paged_decode_bf16|paged_decode.tl|T=bf16"
  "layernorm_bwd_f32|layernorm_bwd.tl|T=f32"
  "layernorm_bwd_bf16|layernorm_bwd.tl|T=bf16"
  "conv2d_bf16|conv2d.tl|T=bf16"
  "conv2d_bf16_bk64|conv2d.tl|T=bf16 BK=64 Stages=4"
  "conv2d_bf16_bn64|conv2d.tl|T=bf16 BK=64 BN=64"
  "block_sparse_bf16|block_sparse_attention.tl|T=bf16"
  "slices_bf16|../test/e2e/cpu/Inputs/slices.tl|T=bf16"
  "padding_bf16|../test/e2e/cpu/Inputs/padding.tl|T=bf16"
  "gather_bf16|../test/e2e/cpu/Inputs/gather.tl|T=bf16"
  "views_bf16|../test/e2e/cpu/Inputs/views.tl|T=bf16"
  "ordering_f32|../test/e2e/cpu/Inputs/ordering.tl|"
  "packed|../test/e2e/cpu/Inputs/packed.tl|"
  "fp8_quant_e4m3|fp8_quant.tl|T=bf16"
  "fp8_quant_e5m2|fp8_quant.tl|T=bf16 F=f8e5m2 Fmax=57344.0"
  "fp8_quant_e4m3_bn4k|fp8_quant.tl|T=bf16 BM=2 BN=4096"
  "fp8_quant_e4m3_bn8k|fp8_quant.tl|T=bf16 BM=1 BN=8192"
  "fp8_gemm_e4m3|fp8_gemm.tl|T=bf16"
  "fp8_gemm_e4m3_wg2|fp8_gemm.tl|T=bf16 BN=256 Stages=4 Threads=256"
  "fp8_gemm_e4m3_dispatch|fp8_gemm.tl|T=bf16 --tuning=examples/h200.tuning.json"
  "fp8_gemm_e5m2|fp8_gemm.tl|T=bf16 F=f8e5m2"
  "fp8_convert|../test/e2e/cpu/Inputs/fp8.tl|"
  "topk_gating_bf16|topk_gating.tl|T=bf16"
  "mla_decode_bf16|mla_decode.tl|T=bf16"
  "w4a16_bf16|w4a16_gemm.tl|T=bf16"
  "w4a16_bf16_m64|w4a16_gemm.tl|T=bf16 BM=64 BN=128 BK=128 Stages=3"
  "w4a16_bf16_n64|w4a16_gemm.tl|T=bf16 BM=16 BN=64 BK=256 Stages=4"
  "w4a16_bf16_n32|w4a16_gemm.tl|T=bf16 BM=16 BN=32 BK=256 Stages=4"
  "w4a16_bf16_n32t256|w4a16_gemm.tl|T=bf16 BM=16 BN=32 BK=256 Stages=4 Threads=256"
  "w4a16_bf16_n16|w4a16_gemm.tl|T=bf16 BM=16 BN=16 BK=512 Stages=3"
  "fa_d64|flash_attention.tl|D=64 Causal=false T=bf16"
  "fa_d64_causal|flash_attention.tl|D=64 Causal=true T=bf16"
  "fa_d128|flash_attention.tl|D=128 Causal=false T=bf16"
  "fa_d128_narrow|flash_attention.tl|D=128 Causal=false T=bf16 Wide=false"
  "fa_d128_causal|flash_attention.tl|D=128 Causal=true T=bf16"
  "fa_d128_f16|flash_attention.tl|D=128 Causal=false T=f16"
  "fa_d256|flash_attention.tl|D=256 Causal=false T=bf16"
  "fa_d256_causal|flash_attention.tl|D=256 Causal=true T=bf16"
  "fa_d64_overlap|flash_attention.tl|D=64 Causal=false T=bf16 Overlap=true"
  "fa_d64_causal_overlap|flash_attention.tl|D=64 Causal=true T=bf16 Overlap=true"
  "fa_d128_overlap|flash_attention.tl|D=128 Causal=false T=bf16 Overlap=true"
  "fa_d128_causal_overlap|flash_attention.tl|D=128 Causal=true T=bf16 Overlap=true"
)

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# Appends a failure to FAILED.txt: config, what failed, the log's head.
record_failure() { # name what log
  {
    echo "== $1: $2"
    [ -f "$3" ] && head -n 30 "$3" | sed 's/^/   /'
    echo
  } >>"$gen/FAILED.txt"
  echo "   FAILED: $2 (see $(basename "$gen")/FAILED.txt)"
}

prepare_one() { # name example defines...
  local name="$1" example="$2"
  shift 2
  local dir="$gen/$name" dargs=() d
  # NAME=VALUE is a -D; an item starting with -- is a tlc flag (--tuning=).
  for d in "$@"; do
    case "$d" in
    --*) dargs+=("$d") ;;
    *) dargs+=(-D "$d") ;;
    esac
  done
  mkdir -p "$dir"
  local emit=()
  [ "${E2E_STUB_ONLY:-0}" = 1 ] && emit=(-emit=stub)
  local cmd=("$tlc" "examples/$example" -I examples -target=cuda
    "-arch=$arch" "${dargs[@]}" "${emit[@]}" --bundle -o "$dir/")
  echo "== $name: ${cmd[*]#"$src/"}"
  local t0 t1 rc status=ok
  t0="$(now)"
  (cd "$src" && "${cmd[@]}") >"$dir/tlc.log" 2>&1
  rc=$?
  t1="$(now)"
  if [ $rc != 0 ]; then
    status=failed
    record_failure "$name" "tlc exit $rc: ${cmd[*]#"$src/"}" "$dir/tlc.log"
    # No stub of a failed configuration may be built and run by mistake.
    rm -f "$dir"/*.cpp "$dir"/*.h
  fi
  {
    echo "name=$name"
    echo "example=examples/$example"
    echo "defines=$*"
    echo "arch=$arch"
    echo "status=$status"
    echo "stub_only=${E2E_STUB_ONLY:-0}"
    echo "tlc_seconds=$(elapsed "$t0" "$t1")"
    echo "command=${cmd[*]#"$src/"}"
  } >"$dir/CONFIG"

  # Python bindings of the same kernels, loading the library run() builds
  # (python_torch.py calls them with torch tensors).
  local stem
  stem="$(basename "$example" .tl)"
  (cd "$src" && "$tlc" "examples/$example" -I examples -target=cuda \
    "-arch=$arch" "${dargs[@]}" -emit=python \
    "--python-library=libtlc_e2e_$name.so" -o "$dir/$stem.py") \
    >"$dir/python.log" 2>&1 || rm -f "$dir/$stem.py"

  # Resource usage: tlc -emit=ptx, then ptxas -v on every .ptx written.
  local pcmd=("$tlc" "examples/$example" -I examples -target=cuda
    "-arch=$arch" "${dargs[@]}" -emit=ptx -o "$dir/")
  if (cd "$src" && "${pcmd[@]}") >"$dir/ptx.log" 2>&1; then
    local ptx found=0
    : >"$dir/ptxas.txt"
    for ptx in "$dir"/*.ptx; do
      [ -f "$ptx" ] || continue
      found=1
      echo "## $(basename "$ptx"): $(basename "$ptxas") -arch=$arch -v" \
        >>"$dir/ptxas.txt"
      if ! "$ptxas" "-arch=$arch" -v "$ptx" -o "${ptx%.ptx}.ptxas.cubin" \
        >>"$dir/ptxas.txt" 2>&1; then
        record_failure "$name" "ptxas failed on $(basename "$ptx")" \
          "$dir/ptxas.txt"
      fi
    done
    [ $found = 1 ] || record_failure "$name" "tlc -emit=ptx wrote no .ptx" \
      "$dir/ptx.log"
  else
    record_failure "$name" "tlc -emit=ptx failed (no ptxas report)" \
      "$dir/ptx.log"
  fi
  echo "$name $status ${*:-(defaults)}" >>"$gen/CONFIGS"
  [ $status = ok ]
}

prepare() {
  tlc="${TLC:-$root/build/bin/tlc}"
  ptxas="${PTXAS:-/usr/local/cuda/bin/ptxas}"
  [ -x "$tlc" ] || { echo "no tlc at $tlc (build it, or set TLC)" >&2; exit 1; }
  tlc="$(realpath "$tlc")" # the compiles run in $src
  [ -x "$ptxas" ] || echo "warning: no ptxas at $ptxas: no resource reports" >&2
  rm -rf "$gen" && mkdir -p "$gen"
  : >"$gen/FAILED.txt"
  : >"$gen/CONFIGS"
  {
    echo "commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)"
    echo "subject=$(git -C "$src" log -1 --format=%s 2>/dev/null)"
    if [ -n "$(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
      echo "dirty=yes (uncommitted changes to tracked files)"
    else
      echo "dirty=no"
    fi
    echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "tlc=$("$tlc" --version 2>&1 | head -n 1)"
    echo "ptxas=$("$ptxas" --version 2>/dev/null | tail -n 1)"
    echo "arch=$arch"
  } >"$gen/COMMIT"
  local entry name example defs var ok=0 total=0 index=0 part=0 parts=1
  if [ -n "${E2E_PART:-}" ]; then
    part="${E2E_PART%/*}" parts="${E2E_PART#*/}"
    [[ $part =~ ^[0-9]+$ && $parts =~ ^[0-9]+$ && $part -ge 1 &&
      $part -le $parts ]] || {
      echo "E2E_PART must be I/N with 1 <= I <= N, not '$E2E_PART'" >&2
      exit 1
    }
    part=$((part - 1))
  fi
  # A variant's name becomes a folder and a library name: checked before
  # anything compiles, as two of one name would overwrite each other.
  local variants=() seen=" "
  [ -n "${E2E_VARIANTS:-}" ] && IFS=';' read -ra variants <<<"$E2E_VARIANTS"
  CONFIGS+=("${variants[@]}")
  for entry in "${CONFIGS[@]}"; do
    IFS='|' read -r name example defs <<<"$entry"
    if ! [[ $name =~ ^[A-Za-z0-9_]+$ ]] || [[ $seen == *" $name "* ]] ||
      [ ! -f "$src/examples/$example" ]; then
      echo "e2e.sh: configuration '$entry' needs NAME|EXAMPLE|DEFS with a new NAME" \
        "of letters, digits and _ and an example under examples/" >&2
      exit 1
    fi
    seen+="$name "
  done
  for entry in "${CONFIGS[@]}"; do
    IFS='|' read -r name example defs <<<"$entry"
    if [ -n "${E2E_ONLY:-}" ] && ! [[ $name =~ $E2E_ONLY ]]; then
      continue
    fi
    index=$((index + 1))
    [ $(((index - 1) % parts)) = $part ] || continue
    var="E2E_DEFS_$name"
    [ -n "${!var+x}" ] && defs="${!var}"
    total=$((total + 1))
    # shellcheck disable=SC2086 # defs is a space-separated list
    prepare_one "$name" "$example" $defs && ok=$((ok + 1))
  done
  # SASS now if this machine has cuobjdump (run does it otherwise).
  dump_sass
  echo
  echo "prepared $ok of $total configurations in $gen ($(du -sh "$gen" | cut -f1))"
  if [ -s "$gen/FAILED.txt" ]; then
    echo "failures ($gen/FAILED.txt):"
    grep '^== ' "$gen/FAILED.txt"
  fi
  # The device tool carries at most 64 MiB: the PTX (already assembled) is
  # the first thing to go.
  local kb
  kb=$(du -sk "$gen" | cut -f1)
  if [ "$kb" -gt 49152 ]; then
    rm -f "$gen"/*/*.ptx
    echo "removed the .ptx files: $gen was $((kb / 1024)) MiB, now" \
      "$(du -sh "$gen" | cut -f1) (the device tool carries at most 64 MiB)"
  fi
  [ $ok = 0 ] && exit 1
  [ "${E2E_STRICT:-0}" = 1 ] && [ $ok != $total ] && exit 1
  exit 0
}

# cuobjdump on every cubin of prepare (ptxas from tlc's PTX) and every
# binary embedded in a stub (NAME.bin, extracted by harness.py): SASS
# (NAME.sass) and resource usage (NAME.res.txt).
dump_sass() {
  local cuobjdump="${CUOBJDUMP:-}"
  if [ -z "$cuobjdump" ]; then
    cuobjdump="$(command -v cuobjdump || true)"
    [ -z "$cuobjdump" ] && [ -x /usr/local/cuda/bin/cuobjdump ] &&
      cuobjdump=/usr/local/cuda/bin/cuobjdump
  fi
  [ -n "$cuobjdump" ] || return 0
  local f
  for f in "$gen"/*/*.cubin "$gen"/*/*.bin; do
    [ -s "$f" ] || continue
    "$cuobjdump" --dump-sass "$f" >"$f.sass" 2>&1 || rm -f "$f.sass"
    "$cuobjdump" --dump-resource-usage "$f" >"$f.res.txt" 2>&1 ||
      rm -f "$f.res.txt"
  done
}

# The tlc_tensor / tlc_launch_options layout as the C compiler sees it,
# checked against harness.py's ctypes structures.
abi_check() {
  local cxx="${CXX:-g++}" tmp
  tmp="$(mktemp -d)"
  cat >"$tmp/layout.c" <<'EOF'
#include <stddef.h>
#include <stdio.h>
#include "tlc/Runtime/tlc_runtime.h"
int main(void) {
  printf("%zu %zu %zu %zu %zu %zu %zu %zu %zu\n", offsetof(tlc_tensor, data),
         offsetof(tlc_tensor, dtype), offsetof(tlc_tensor, rank),
         offsetof(tlc_tensor, shape), offsetof(tlc_tensor, strides),
         sizeof(tlc_tensor), offsetof(tlc_launch_options, num_threads),
         offsetof(tlc_launch_options, stream), sizeof(tlc_launch_options));
  return 0;
}
EOF
  local cc="${CC:-gcc}"
  command -v "$cc" >/dev/null || cc="$cxx -x c"
  # shellcheck disable=SC2086
  $cc -std=c99 -I"$root/include" "$tmp/layout.c" -o "$tmp/layout" &&
    TLC_ABI_LAYOUT="$("$tmp/layout")" python3 "$here/harness.py" --check-abi
  local rc=$?
  rm -rf "$tmp"
  return $rc
}

run() {
  local cxx="${CXX:-g++}" out="${OUT:-$gen/out}" status=0
  [ -f "$gen/CONFIGS" ] || {
    echo "no $gen/CONFIGS: run 'e2e.sh prepare' on the build machine and" \
      "carry bench/cuda/gen-e2e" >&2
    exit 1
  }
  mkdir -p "$out"
  echo "== commit"
  cat "$gen/COMMIT"
  nvidia-smi -L 2>/dev/null || echo "(nvidia-smi not available)"
  echo "== ABI layout"
  abi_check || status=1

  echo "== build"
  local jobs="${E2E_JOBS:-$(nproc 2>/dev/null || echo 4)}" dir name
  : >"$out/build.log"
  build_one() { # dir name
    local dir="$1" name="$2" srcs=() f
    for f in "$dir"/*.tlc.cpp; do [ -f "$f" ] && srcs+=("$f"); done
    if [ ${#srcs[@]} = 0 ]; then
      for f in "$dir"/*.cpp; do [ -f "$f" ] && srcs+=("$f"); done
    fi
    rm -f "$dir/BUILD_FAILED" "$dir/libtlc_e2e_$name.so"
    if [ ${#srcs[@]} = 0 ]; then
      echo "no stub sources in $dir" >"$dir/build.log"
      touch "$dir/BUILD_FAILED"
      return
    fi
    "$cxx" -std=c++17 -O2 -fPIC -shared -Wl,-Bsymbolic -I"$root/include" \
      -I"$dir" "${srcs[@]}" -o "$dir/libtlc_e2e_$name.so" -ldl -pthread \
      >"$dir/build.log" 2>&1 || touch "$dir/BUILD_FAILED"
  }
  local t0
  t0="$(now)"
  for dir in "$gen"/*/; do
    dir="${dir%/}"
    name="$(basename "$dir")"
    [ -f "$dir/CONFIG" ] || continue
    grep -q '^status=ok' "$dir/CONFIG" || continue
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    build_one "$dir" "$name" &
  done
  wait
  for dir in "$gen"/*/; do
    dir="${dir%/}"
    [ -f "$dir/build.log" ] || continue
    name="$(basename "$dir")"
    if [ -f "$dir/BUILD_FAILED" ]; then
      echo "   $name: BUILD FAILED" | tee -a "$out/build.log"
      status=1
    else
      echo "   $name: built libtlc_e2e_$name.so" >>"$out/build.log"
    fi
    sed "s/^/   $name: /" "$dir/build.log" >>"$out/build.log"
  done
  echo "   built in $(elapsed "$t0" "$(now)") s (log: $out/build.log)"

  echo "== SASS / resource usage of the embedded binaries"
  python3 "$here/harness.py" --gen "$gen" --extract-binaries || true
  dump_sass

  echo "== harness"
  export PYTHONUNBUFFERED=1
  timeout "${E2E_TIMEOUT:-360}" python3 "$here/harness.py" --gen "$gen" \
    --out "$out" "$@" 2>&1 | tee "$out/harness.log"
  local hrc=${PIPESTATUS[0]}
  if [ "$hrc" = 124 ]; then
    echo "harness.py: TIMED OUT after ${E2E_TIMEOUT:-360} s" |
      tee -a "$out/harness.log"
    echo -e "\n**harness.py timed out after ${E2E_TIMEOUT:-360} s**" \
      >>"$out/results.md"
  fi
  [ "$hrc" = 0 ] || status=1

  echo "== Python bindings (tlc -emit=python) with torch tensors"
  timeout 120 python3 "$here/python_torch.py" "$gen" 2>&1 |
    tee "$out/python_torch.log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1

  for tool in ${E2E_SANITIZER_TOOLS:-memcheck racecheck initcheck synccheck}; do
  if [ "${E2E_SANITIZER:-1}" != 0 ]; then
    echo "== compute-sanitizer $tool (small sizes)"
    local san verdict
    san="$(command -v compute-sanitizer || true)"
    [ -z "$san" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] &&
      san=/usr/local/cuda/bin/compute-sanitizer
    if [ -z "$san" ]; then
      verdict="not run: compute-sanitizer not found"
    else
      # No caching allocator: every tensor is its own allocation, so an
      # access past a tensor's end is outside any allocation memcheck knows.
      PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "${E2E_SANITIZER_TIMEOUT:-150}" \
        "$san" --tool "$tool" --target-processes all $([ "$tool" = memcheck ] && echo --leak-check no) \
        --print-limit 50 python3 "$here/harness.py" --gen "$gen" \
        --out "$out/sanitizer-run" --small --no-timing "$@" \
        >"$out/sanitizer-$tool.log" 2>&1
      local san_rc=$?
      local errors
      # memcheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK
      # SUMMARY: N hazards displayed".
      errors="$(grep -E '(ERROR|RACECHECK) SUMMARY: [0-9]+ (error|hazard)' "$out/sanitizer-$tool.log" |
        sed -E 's/.*(ERROR|RACECHECK) SUMMARY: ([0-9]+) (error|hazard).*/\2/' |
        awk '{ s += $1 } END { print s + 0 }')"
      local summaries
      summaries="$(grep -cE '(ERROR|RACECHECK) SUMMARY' "$out/sanitizer-$tool.log")"
      if [ "$san_rc" = 124 ]; then
        verdict="TIMED OUT after ${E2E_SANITIZER_TIMEOUT:-150} s ($errors errors so far)"
        status=1
      elif [ "$summaries" = 0 ]; then
        verdict="NO SUMMARY (exit $san_rc; see sanitizer-$tool.log)"
        status=1
      elif [ "$errors" != 0 ]; then
        verdict="NOT CLEAN: $errors errors (exit $san_rc; see sanitizer-$tool.log)"
        status=1
      elif [ "$san_rc" != 0 ]; then
        verdict="clean (0 errors), but checks failed under the sanitizer (exit $san_rc)"
        status=1
      else
        verdict="clean (0 errors, all small checks pass)"
      fi
      tail -n 25 "$out/sanitizer-$tool.log"
      # Results of the sanitizer run are in its log; drop its folder so the
      # files that come back stay few.
      rm -rf "$out/sanitizer-run"
    fi
    echo "compute-sanitizer $tool: $verdict"
    {
      echo
      echo "## compute-sanitizer $tool (--small)"
      echo
      echo "$verdict"
    } >>"$out/results.md"
  fi
  done
  echo
  if [ $status = 0 ]; then echo "E2E: ALL PASS"; else echo "E2E: FAILURES"; fi
  echo "results: $out/results.md"
  exit $status
}

case "${1:-}" in
prepare) prepare ;;
run)
  shift
  run "$@"
  ;;
abi) abi_check ;;
*)
  echo "usage: $0 prepare | run [harness args] | abi" >&2
  exit 2
  ;;
esac
