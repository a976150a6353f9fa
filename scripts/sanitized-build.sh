#!/usr/bin/env bash
# Sourced by scripts/test-sanitized.sh and scripts/fuzz.sh: configures (once)
# a build directory with clang, ASan + UBSan (TLC_SANITIZE) and the fuzz
# targets (TLC_FUZZ), so one such directory serves both scripts.
# -O1 with line tables: fast enough to build on two cores, stack traces
# with lines; no -DNDEBUG, so tlc's own assertions are checked too.
tlc_configure_sanitized() {
  local root="$1" build="$2"
  if [ -f "$build/build.ninja" ]; then
    return 0
  fi
  local clang="${TLC_CLANG:-clang-22}"
  if ! command -v "$clang" >/dev/null; then
    echo "$clang not found (scripts/install-deps.sh installs it)" >&2
    return 2
  fi
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$clang" -DCMAKE_CXX_COMPILER="${clang/clang/clang++}" \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -gline-tables-only" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" \
    -DTLC_SANITIZE=address,undefined -DTLC_FUZZ=ON \
    -DMLIR_DIR="$(llvm-config-22 --cmakedir)/../mlir" >/dev/null
}
