#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing, builds, then ctest
# (which drives the lit suite: frontend, dialect, passes, codegen, stubs and
# end-to-end CPU tests). Then the same lit suite under ASan and UBSan in
# build-asan (scripts/test-sanitized.sh) and a minute of each fuzz target
# (fuzz/, ctest's fuzz-* tests of that build); TLC_TEST_SANITIZED=0 skips
# those two (docs/reliability.md says what they add).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TLC_BUILD_DIR:-$root/build}"

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
(cd "$build" && ctest --output-on-failure)

if [ "${TLC_TEST_SANITIZED:-1}" != 0 ]; then
  export TLC_ASAN_BUILD_DIR="${TLC_ASAN_BUILD_DIR:-$root/build-asan}"
  bash "$root/scripts/test-sanitized.sh"
  cmake --build "$TLC_ASAN_BUILD_DIR" --target tlc-fuzzers \
    ${TLC_BUILD_JOBS:+-j "$TLC_BUILD_JOBS"}
  cd "$TLC_ASAN_BUILD_DIR"
  # The two fuzz targets side by side (one core each).
  ctest -R '^fuzz-' -j2 --output-on-failure
fi
