#!/usr/bin/env bash
# Installs the Debian 12 packages tlc needs (nothing when all are present),
# then the lavapipe with cooperative matrices of the Vulkan tests
# (scripts/install-lavapipe-coopmat.sh: a download the first time, no root;
# TLC_LAVAPIPE_COOPMAT=0 skips it). Non-interactive and idempotent; needs
# root (or sudo) only if a package is missing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

packages=(
  cmake ninja-build ccache g++ python3
  python3-numpy # test/Stub/python-numpy.test: the Python bindings (-emit=python)
  nodejs # test/Driver/dump-dir.test runs the script of --dump-dir's page
  chromium # test/Driver/dump-dir-chromium.test opens that page headless
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22
  libcli11-dev libopenblas-dev
  rocm-device-libs libamdhip64-dev clang-format-22
  spirv-tools mesa-vulkan-drivers libvulkan1 libvulkan-dev # -target=vulkan, lavapipe
  vulkan-validationlayers # test/e2e/vulkan/validation.test
  libspirv-cross-c-shared-dev # -target=metal (SPIR-V to MSL)
  clang-22 libclang-rt-22-dev # the sanitizer build and fuzz/ (libFuzzer)
)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
else
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ "${TLC_LAVAPIPE_COOPMAT:-1}" != 0 ]; then
  "$root/scripts/install-lavapipe-coopmat.sh"
fi
