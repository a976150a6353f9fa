#!/usr/bin/env bash
# Runs one libFuzzer target of fuzz/ for SECONDS (docs/reliability.md):
#   bash scripts/fuzz.sh frontend|tile-ir SECONDS [libFuzzer flags...]
# Configures build-fuzz once (scripts/sanitized-build.sh; TLC_FUZZ_BUILD_DIR
# picks another, e.g. build-asan, configured the same way), builds the
# target, seeds from every .tl file of examples/ and test/, and keeps what
# the fuzzer learns in BUILD/fuzz/TARGET/corpus for the next run. A crash
# or a hang is written to BUILD/fuzz/TARGET/artifacts/ and exits non-zero;
# reproduce it with: BUILD/bin/tlc-fuzz-TARGET FILE
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 2 ]; then
  echo "usage: $0 frontend|tile-ir SECONDS [libFuzzer flags...]" >&2
  exit 2
fi
target="$1" seconds="$2"
shift 2
case "$target" in
frontend | tile-ir) ;;
*)
  echo "fuzz: unknown target '$target' (frontend or tile-ir)" >&2
  exit 2
  ;;
esac
build="${TLC_FUZZ_BUILD_DIR:-$root/build-fuzz}"

# shellcheck source=sanitized-build.sh
source "$root/scripts/sanitized-build.sh"
tlc_configure_sanitized "$root" "$build"
cmake --build "$build" --target "tlc-fuzz-$target" \
  ${TLC_BUILD_JOBS:+-j "$TLC_BUILD_JOBS"}

work="$build/fuzz/$target"
mkdir -p "$work/corpus" "$work/artifacts"
rm -rf "$work/seeds"
python3 "$root/fuzz/make-corpus.py" "$root" "$work/seeds"
# As in scripts/test-sanitized.sh (allow_user_poisoning=0: libMLIR.so).
export ASAN_OPTIONS="allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && command -v llvm-symbolizer-22 >/dev/null; then
  export ASAN_SYMBOLIZER_PATH="$(command -v llvm-symbolizer-22)"
fi
# -close_fd_mask=2: tlc's diagnostics go nowhere (libFuzzer and the
# sanitizers keep their own copy of stderr). -timeout: one input taking
# this long is a hang, a bug like a crash.
echo "fuzz: tlc-fuzz-$target for ${seconds}s (corpus $work/corpus)"
exec "$build/bin/tlc-fuzz-$target" \
  -max_total_time="$seconds" -timeout=25 -max_len=16384 -close_fd_mask=2 \
  -dict="$root/fuzz/tl.dict" -artifact_prefix="$work/artifacts/" \
  -print_final_stats=1 "$@" "$work/corpus" "$work/seeds"
