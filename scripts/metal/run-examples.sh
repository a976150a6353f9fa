#!/usr/bin/env bash
# run-examples.sh (in a folder made by pack-examples.sh): on a Mac, builds
# each example's Metal stub with its driver and runs it; the driver checks
# the kernel against a CPU reference on random data, ragged sizes included,
# and prints ALL PASSED. Needs Xcode's command line tools (clang++); Metal
# compiles the MSL when a kernel first launches. CXX picks the compiler.
#
# TLC_METAL_CHECK_ONLY=DIR: compile only (-fsyntax-only) against the
# declarations of Metal and Foundation in DIR, not the SDK's: tlc's own test
# of this script and the stubs on Linux, where there is no Metal.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cxx=${CXX:-clang++}
check_only=${TLC_METAL_CHECK_ONLY:-}
failed=0 passed=0
while read -r name _ _ driver stub driver_defines; do
  [[ -z $name || $name == \#* ]] && continue
  defines=()
  [[ $driver_defines != - ]] && IFS=, read -r -a defines <<< "$driver_defines"
  # ${a[@]+"${a[@]}"}: an empty array under set -u in macOS's bash 3.2.
  flags=(-x objective-c++ -std=c++17 -DTLC_CHECK_METAL
         ${defines[@]+"${defines[@]}"}
         -I"$here/include" -I"$here/$name")
  sources=("$here/drivers/$driver")
  [[ $stub != - ]] && sources+=("$here/$name/$stub.mm")
  if [[ -n $check_only ]]; then
    if "$cxx" "${flags[@]}" -fsyntax-only -Wall -Werror -I"$check_only" \
        "${sources[@]}"; then
      echo "checked $name"
      passed=$((passed + 1))
    else
      echo "FAIL $name: does not compile"
      failed=$((failed + 1))
    fi
    continue
  fi
  if ! "$cxx" "${flags[@]}" -O2 "${sources[@]}" -framework Metal \
      -framework Foundation -o "$here/$name/driver"; then
    echo "FAIL $name: does not compile"
    failed=$((failed + 1))
    continue
  fi
  if "$here/$name/driver" > "$here/$name/log" 2>&1 &&
      grep -q "ALL PASSED" "$here/$name/log" &&
      ! grep -q "FAIL" "$here/$name/log"; then
    echo "PASS $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name (log: $name/log)"
    grep "FAIL" "$here/$name/log" | head -5
    failed=$((failed + 1))
  fi
done < "$here/cases.txt"
echo "run-examples: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
