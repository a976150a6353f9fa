#!/usr/bin/env bash
# pack-examples.sh OUT [TLC]: compiles the examples of cases.txt for Metal
# (stubs and MSL) into OUT, with what a Mac needs to build and run them
# against the CPU reference: the drivers, check.h, tlc's runtime headers and
# run-examples.sh. Copy OUT to a Mac (Xcode's command line tools) and run
# `bash OUT/run-examples.sh` there. TLC: the tlc binary (default: tlc on
# PATH).
set -euo pipefail
out=$1
tlc=${2:-tlc}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out/include" "$out/drivers"
cp -r "$root/include/tlc" "$out/include/"
cp "$root"/test/e2e/cpu/Inputs/check.h "$root"/test/e2e/cpu/Inputs/*_driver.cpp \
  "$out/drivers/"
cp "$root/scripts/metal/run-examples.sh" "$root/scripts/metal/cases.txt" "$out/"
n=0
while read -r name example defines _; do
  [[ -z $name || $name == \#* ]] && continue
  args=()
  [[ $defines != - ]] && IFS=, read -r -a args <<< "$defines"
  rm -rf "${out:?}/$name" && mkdir -p "$out/$name"
  IFS=+ read -r -a files <<< "$example"
  for file in "${files[@]}"; do
    "$tlc" "$root/examples/$file" -target=metal --bundle ${args[@]+"${args[@]}"} \
      -o "$out/$name/"
  done
  n=$((n + 1))
done < "$root/scripts/metal/cases.txt"
echo "pack-examples: $n examples in $out; on a Mac: bash $out/run-examples.sh"
