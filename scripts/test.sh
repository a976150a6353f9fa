#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing, builds, then ctest
# (which drives the lit suite: frontend, dialect, passes, codegen, stubs and
# end-to-end CPU tests).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TLC_BUILD_DIR:-$root/build}"

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure
