#!/usr/bin/env bash
# check-msl.sh FILE.metal SHIMDIR: a syntax and type check of the Metal
# Shading Language that tlc -target=metal writes, with clang in place of
# Apple's compiler (there is none on Linux). Each translation unit of FILE
# (#if defined(TLC_KERNEL_<entry>)) is parsed on its own, as the stubs
# compile it, against SHIMDIR's <metal_stdlib> and <simd/simd.h>, the
# declarations of the part of Metal's standard library the kernels use.
# $CLANG is the compiler (clang++-22 by default).
#
# The units are parsed as C++ for OpenCL 2021 (C++17 with OpenCL's address
# spaces, which SHIMDIR/metal_stdlib maps Metal's device, constant,
# threadgroup and thread to; plain C++ has no address-space qualified member
# functions and no threadgroup variables), for spir64, without fp64 and with
# single-precision floating literals, as in Metal; the [[...]] attributes are
# not checked.
set -uo pipefail
if [ $# -ne 2 ]; then
  echo "usage: check-msl.sh FILE.metal SHIMDIR" >&2
  exit 2
fi
file=$1 shim=$2
clang=${CLANG:-clang++-22}
[ -f "$file" ] || { echo "check-msl.sh: no file $file" >&2; exit 2; }
[ -f "$shim/metal_stdlib" ] ||
  { echo "check-msl.sh: no metal_stdlib in $shim" >&2; exit 2; }

units=$(sed -n 's/^#if defined(TLC_KERNEL_\([A-Za-z0-9_]*\))[[:space:]]*$/\1/p' "$file")
if [ -z "$units" ]; then
  echo "check-msl.sh: $file has no translation unit (#if defined(TLC_KERNEL_<entry>))" >&2
  exit 1
fi

flags=(-x clcpp -cl-std=clc++2021 --target=spir64 -cl-no-stdinc
  -Xclang -cl-ext=-cl_khr_fp64,-__opencl_c_fp64 -cl-single-precision-constant
  -fsyntax-only -Wno-unknown-attributes -ferror-limit=20
  -fshow-overloads=best -fmacro-backtrace-limit=1 -I "$shim")
checked=0 failed=0
for unit in $units; do
  # The unit must hold a kernel: an empty one would pass the check.
  if ! awk -v open="#if defined(TLC_KERNEL_$unit)" '
      $0 == open { inside = 1; next }
      inside && /^#endif/ { exit }
      inside && /^kernel void / { found = 1 }
      END { exit !found }' "$file"; then
    echo "check-msl.sh: $file: unit TLC_KERNEL_$unit has no kernel function" >&2
    failed=$((failed + 1))
    continue
  fi
  if ! "$clang" "${flags[@]}" "-DTLC_KERNEL_$unit" "$file"; then
    echo "check-msl.sh: $file: unit TLC_KERNEL_$unit does not compile" >&2
    failed=$((failed + 1))
    continue
  fi
  checked=$((checked + 1))
done
if [ $failed -ne 0 ]; then
  echo "check-msl.sh: $file: $failed of $((checked + failed)) kernels failed" >&2
  exit 1
fi
echo "checked $checked kernels"
