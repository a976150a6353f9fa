#!/usr/bin/env bash
# The lit suite under AddressSanitizer and UndefinedBehaviorSanitizer
# (docs/reliability.md): configures build-asan once (scripts/
# sanitized-build.sh: clang, -O1, TLC_SANITIZE=address,undefined), builds
# only what the suite runs (tlc, tlc-opt, tlc-lsp) and runs it through ctest. The
# suite's C++ drivers and the stub runtime they include are compiled with
# the same sanitizers (test/lit.cfg.py).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TLC_ASAN_BUILD_DIR:-$root/build-asan}"

# shellcheck source=sanitized-build.sh
source "$root/scripts/sanitized-build.sh"
tlc_configure_sanitized "$root" "$build"
cmake --build "$build" --target tlc tlc-opt tlc-lsp ${TLC_BUILD_JOBS:+-j "$TLC_BUILD_JOBS"}
# allow_user_poisoning=0: libMLIR.so is not instrumented but shares LLVM's
# BumpPtrAllocator slabs with the instrumented code, whose poisoning of
# them would read as a use-after-poison there. test/lit.cfg.py sets the
# same options (and abort_on_error=1) for every test.
export ASAN_OPTIONS="allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
cd "$build"
# -V: lit's summary and its warnings (tests it skips) show in the log.
ctest -R '^lit$' --output-on-failure -V
