#!/usr/bin/env bash
# Installs, without root and outside the system, a Mesa lavapipe that has
# VK_KHR_cooperative_matrix: Debian 12's has not; trixie-backports' has
# (8x8x8 f16 x f16 -> f32/f16, subgroup size 8) but needs trixie's glibc.
# So the backports Mesa and the trixie runtime it needs (glibc, libstdc++,
# LLVM, the Vulkan loader, vulkaninfo, glslang, and a spirv-val that knows
# the cooperative-matrix capability) are unpacked into
# DEST/sysroot, through a private APT configuration (/etc/apt and dpkg's
# database are untouched), and DEST/run.sh is written:
#   DEST/run.sh PROGRAM [ARGS...]
# runs a program built on Debian 12 through the sysroot's dynamic loader,
# with the Vulkan loader pointed at that lavapipe only. test/lit.cfg.py
# offers it to the tests as %vk-coopmat-run (feature lavapipe-coopmat).
# Does nothing when DEST/run.sh already exposes the extension; fails if a
# fresh install does not. Usage: install-lavapipe-coopmat.sh [DEST]
# (default: .deps/lavapipe-coopmat in the repository; about 70 MB to fetch,
# 430 MB unpacked).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/.deps/lavapipe-coopmat}"
lib=usr/lib/x86_64-linux-gnu

# vulkaninfo of the sysroot through DEST/run.sh (empty if that fails).
run_vulkaninfo() {
  if [ -x "$dest/run.sh" ]; then
    "$dest/run.sh" "$dest/sysroot/usr/bin/vulkaninfo" 2>/dev/null || true
  fi
}
has_coopmat() {
  [[ "$(run_vulkaninfo)" == *VK_KHR_cooperative_matrix* ]] &&
    [ -x "$dest/sysroot/usr/bin/spirv-val" ]
}
driver_info() {
  run_vulkaninfo | sed -n 's/^[[:space:]]*driverInfo *= *//p' | sort -u
}

if has_coopmat; then
  echo "install-lavapipe-coopmat: present in $dest ($(driver_info))"
  exit 0
fi
if [ "$(dpkg --print-architecture)" != amd64 ]; then
  echo "install-lavapipe-coopmat: only for amd64, skipped" >&2
  exit 0
fi

echo "install-lavapipe-coopmat: fetching trixie-backports Mesa into $dest"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/archives/partial" "$work/parts.d"
: >"$work/status"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
cat >"$work/sources.list" <<EOF
deb [signed-by=$keyring] http://deb.debian.org/debian trixie main
deb [signed-by=$keyring] http://deb.debian.org/debian trixie-backports main
EOF
cat >"$work/apt.conf" <<EOF
Dir::State "$work";
Dir::State::lists "$work/lists";
Dir::State::status "$work/status";
Dir::Cache "$work";
Dir::Cache::archives "$work/archives";
Dir::Etc::sourcelist "$work/sources.list";
Dir::Etc::sourceparts "$work/parts.d";
Dir::Etc::preferences "$work/none";
Dir::Etc::preferencesparts "$work/parts.d";
APT::Architecture "amd64";
Debug::NoLocking "true";
APT::Sandbox::User "root";
EOF
export APT_CONFIG="$work/apt.conf"
# An empty dpkg status: APT fetches the whole dependency closure, trixie's
# glibc included.
if ! apt-get update -qq ||
  ! apt-get install -y -qq --download-only --no-install-recommends \
    mesa-vulkan-drivers/trixie-backports libvulkan1 libvulkan-dev \
    vulkan-tools glslang-tools spirv-tools; then
  echo "install-lavapipe-coopmat: apt could not fetch the trixie packages" \
    "(network? trixie keys in $keyring?)" >&2
  exit 1
fi

# No run.sh (so no lit feature) until the new sysroot is complete.
rm -rf "$dest/run.sh" "$dest/sysroot"
mkdir -p "$dest/sysroot"
for deb in "$work"/archives/*.deb; do
  dpkg-deb -x "$deb" "$dest/sysroot"
done

# The package's own ICD manifest, its library named relative to the
# manifest (the Vulkan loader resolves it so), so DEST can move.
icds=("$dest"/sysroot/usr/share/vulkan/icd.d/lvp_icd*.json)
if [ ! -f "${icds[0]}" ]; then
  echo "install-lavapipe-coopmat: no lavapipe ICD manifest in the packages" >&2
  exit 1
fi
sed "s|\"library_path\": *\"[^\"]*\"|\"library_path\": \"sysroot/$lib/libvulkan_lvp.so\"|" \
  "${icds[0]}" >"$dest/lvp_icd.x86_64.json"

cat >"$dest/run.sh" <<'EOF'
#!/bin/sh
# run.sh PROGRAM [ARGS...]: runs a program built on Debian 12 on trixie's
# runtime in ./sysroot, whose Mesa lavapipe has VK_KHR_cooperative_matrix
# (written by tlc's scripts/install-lavapipe-coopmat.sh).
d=$(cd "$(dirname "$0")" && pwd)
lib="$d/sysroot/usr/lib/x86_64-linux-gnu"
export VK_DRIVER_FILES="$d/lvp_icd.x86_64.json"
export VK_ICD_FILENAMES="$d/lvp_icd.x86_64.json"
# The system's implicit layers were built for Debian 12's runtime.
export VK_LOADER_LAYERS_DISABLE="${VK_LOADER_LAYERS_DISABLE:-~implicit~}"
prog=$(command -v "$1") || { echo "run.sh: $1 not found" >&2; exit 127; }
shift
exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib:$lib/vulkan" "$prog" "$@"
EOF
chmod +x "$dest/run.sh"

if ! has_coopmat; then
  echo "install-lavapipe-coopmat: the lavapipe in $dest does not expose" \
    "VK_KHR_cooperative_matrix (driver: $(driver_info))" >&2
  exit 1
fi
echo "install-lavapipe-coopmat: installed in $dest ($(driver_info))"
