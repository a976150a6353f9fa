#!/usr/bin/env bash
# The CMake integration from the outside (docs/cmake.md), run by ctest:
#   1. cmake --install the build tree to a temporary prefix;
#   2. configure a copy of examples/cmake-consumer with only
#      CMAKE_PREFIX_PATH pointing there, build it, run its ctest;
#   3. touch the .tl file that one kernel file imports: exactly that file's
#      tlc command runs again; then nothing to do;
#   4. touch a .tl file nobody imports: only its own tlc command runs;
#   5. an unsupported TARGET (and TARGET metal off macOS) stops the configure
#      with a clear message;
#   6. PYTHON: a module per .tl file and the shared library it loads, run
#      with NumPy (and refused for TARGET vulkan).
# Usage: consumer.sh BUILD_DIR SOURCE_DIR   (cmake, ctest, ninja from PATH
# unless CMAKE / CTEST are set)
set -euo pipefail
build="$(cd "$1" && pwd)"
src="$(cd "$2" && pwd)"
cmake="${CMAKE:-cmake}"
ctest="${CTEST:-ctest}"
command -v ninja >/dev/null || { echo "FAIL: ninja not found"; exit 1; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/tlc-cmake-consumer.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
proj="$tmp/src"
out="$tmp/build"

fail() { echo "FAIL: $*"; exit 1; }
# The tlc command lines in a `ninja -v` log.
tlc_runs() { grep -F "$prefix/bin/tlc " "$1" || true; }

echo "== cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log"
for f in bin/tlc bin/tlc-opt include/tlc/Runtime/tlc_runtime.h \
         lib/cmake/tlc/tlcConfig.cmake lib/cmake/tlc/tlcConfigVersion.cmake \
         lib/cmake/tlc/tlcTargets.cmake lib/cmake/tlc/TlcAddKernels.cmake; do
  [ -e "$prefix/$f" ] || fail "$f is not installed"
done
"$prefix/bin/tlc" --version

echo "== configure a copy of examples/cmake-consumer (CMAKE_PREFIX_PATH only)"
cp -R "$src/examples/cmake-consumer" "$proj"
"$cmake" -G Ninja -S "$proj" -B "$out" -DCMAKE_PREFIX_PATH="$prefix" \
  >"$tmp/configure.log" || { cat "$tmp/configure.log"; fail "configure"; }
grep -qx "tlc_DIR:PATH=$prefix/lib/cmake/tlc" "$out/CMakeCache.txt" ||
  fail "find_package(tlc) did not use $prefix: $(grep tlc_DIR "$out/CMakeCache.txt")"

echo "== build"
ninja -C "$out" -v >"$tmp/build.log" || { cat "$tmp/build.log"; fail "build"; }
n=$(tlc_runs "$tmp/build.log" | wc -l)
[ "$n" -eq 3 ] || { cat "$tmp/build.log"; fail "expected 3 tlc runs, got $n"; }

echo "== ctest"
(cd "$out" && "$ctest" --output-on-failure) || fail "the consumer's tests"

echo "== touch kernels/common/activations.tl: only bias_act.tl is recompiled"
sleep 1 # coarse file system clocks
touch "$proj/kernels/common/activations.tl"
ninja -C "$out" -v >"$tmp/rebuild.log" || { cat "$tmp/rebuild.log"; fail "rebuild"; }
runs="$(tlc_runs "$tmp/rebuild.log")"
echo "$runs" | sed 's/^/   /'
[ "$(printf '%s\n' "$runs" | grep -c .)" -eq 1 ] &&
  printf '%s\n' "$runs" | grep -q "/kernels/bias_act.tl " ||
  { cat "$tmp/rebuild.log"; fail "expected exactly bias_act.tl to be recompiled"; }
grep -q "run_kernels" "$tmp/rebuild.log" || fail "run_kernels was not relinked"

echo "== build again: nothing to do"
ninja -C "$out" -v >"$tmp/noop.log"
grep -q "ninja: no work to do" "$tmp/noop.log" ||
  { cat "$tmp/noop.log"; fail "the second rebuild was not a no-op"; }

if [ "$(uname -m)" = x86_64 ]; then
  echo "== TUNING: the row_sum stub picks its variant by the rows"
  TLC_TRACE_DISPATCH=1 "$out/run_kernels" >/dev/null 2>"$tmp/trace.log" ||
    fail "run_kernels with TLC_TRACE_DISPATCH=1"
  grep -q "row_sum: M=3 N=75 -> variant 0 (BM=4, BN=128)" "$tmp/trace.log" &&
    grep -q "row_sum: M=100 N=75 -> variant 0 (BM=4, BN=128)" "$tmp/trace.log" &&
    grep -q "row_sum: M=3001 N=75 -> variant 1 (BM=64, BN=64)" "$tmp/trace.log" ||
    { cat "$tmp/trace.log"; fail "row_sum did not dispatch by its database"; }

  echo "== touch kernels/row_sum.tuning.json: the library's files are recompiled"
  sleep 1
  touch "$proj/kernels/row_sum.tuning.json"
  ninja -C "$out" -v >"$tmp/rebuild-db.log"
  runs="$(tlc_runs "$tmp/rebuild-db.log")"
  [ "$(printf '%s\n' "$runs" | grep -c .)" -eq 2 ] &&
    printf '%s\n' "$runs" | grep -q "/kernels/row_sum.tl .*--tuning=" ||
    { cat "$tmp/rebuild-db.log"; fail "expected bias_act.tl and row_sum.tl to be recompiled"; }
fi

echo "== touch kernels/gemm.tl: only gemm.tl is recompiled"
sleep 1
touch "$proj/kernels/gemm.tl"
ninja -C "$out" -v >"$tmp/rebuild2.log"
runs="$(tlc_runs "$tmp/rebuild2.log")"
[ "$(printf '%s\n' "$runs" | grep -c .)" -eq 1 ] &&
  printf '%s\n' "$runs" | grep -q "/kernels/gemm.tl .*-D BM=32" ||
  { cat "$tmp/rebuild2.log"; fail "expected exactly gemm.tl to be recompiled"; }
(cd "$out" && "$ctest" --output-on-failure >/dev/null) || fail "tests after rebuild"

echo "== an unknown TARGET is rejected at configure time"
mkdir -p "$tmp/bad"
cat >"$tmp/bad/CMakeLists.txt" <<'CML'
cmake_minimum_required(VERSION 3.20)
project(bad LANGUAGES CXX)
find_package(tlc CONFIG REQUIRED)
tlc_add_kernels(k SOURCES k.tl TARGET opencl)
CML
if "$cmake" -G Ninja -S "$tmp/bad" -B "$tmp/bad/build" \
    -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/bad.log" 2>&1; then
  fail "TARGET opencl was accepted"
fi
grep -q "TARGET 'opencl' is not supported" "$tmp/bad.log" &&
  grep -q "supported targets: cpu, cuda, rocm, vulkan, metal" "$tmp/bad.log" ||
  { cat "$tmp/bad.log"; fail "no clear message for TARGET opencl"; }

echo "== TARGET metal off macOS is rejected at configure time"
mkdir -p "$tmp/metal"
cat >"$tmp/metal/CMakeLists.txt" <<'CML'
cmake_minimum_required(VERSION 3.20)
project(metal LANGUAGES CXX)
find_package(tlc CONFIG REQUIRED)
tlc_add_kernels(k SOURCES k.tl TARGET metal)
CML
if "$cmake" -G Ninja -S "$tmp/metal" -B "$tmp/metal/build" \
    -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/metal.log" 2>&1; then
  fail "TARGET metal was accepted off macOS"
fi
grep -q "TARGET metal builds its stubs on macOS only" "$tmp/metal.log" ||
  { cat "$tmp/metal.log"; fail "no clear message for TARGET metal off macOS"; }

echo "== a TUNING database that does not exist is rejected at configure time"
mkdir -p "$tmp/nodb"
cat >"$tmp/nodb/CMakeLists.txt" <<'CML'
cmake_minimum_required(VERSION 3.20)
project(nodb LANGUAGES CXX)
find_package(tlc CONFIG REQUIRED)
tlc_add_kernels(k SOURCES k.tl TARGET cpu TUNING missing.json)
CML
if "$cmake" -G Ninja -S "$tmp/nodb" -B "$tmp/nodb/build" \
    -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/nodb.log" 2>&1; then
  fail "a missing TUNING database was accepted"
fi
grep -q "TUNING database" "$tmp/nodb.log" && grep -q "missing.json does not exist" "$tmp/nodb.log" ||
  { cat "$tmp/nodb.log"; fail "no clear message for a missing TUNING database"; }

# A GPU target builds a library whose stubs embed the device binary and
# link with nothing but -ldl (the driver library is loaded with dlopen):
# gpu_consumer TARGET ARCH SUFFIX builds one and checks that a call with
# wrong shapes fails cleanly before any driver call (no GPU needed).
gpu_consumer() {
  local target="$1" arch="$2" suffix="$3" dir="$tmp/$1"
  echo "== TARGET $target builds a library that links with nothing but -ldl"
  mkdir -p "$dir"
  cat >"$dir/CMakeLists.txt" <<CML
cmake_minimum_required(VERSION 3.20)
project(gpuconsumer LANGUAGES CXX)
find_package(tlc CONFIG REQUIRED)
tlc_add_kernels(gpu_kernels SOURCES scale.tl TARGET $target ARCH $arch)
add_executable(app main.cpp)
target_link_libraries(app PRIVATE gpu_kernels)
CML
  cat >"$dir/scale.tl" <<'TL'
kernel scale<B = 256>(X: f32[N], out Y: f32[N], a: f32)
  grid(cdiv(N, B)) as (bx) threads(128)
{
  fragment x: f32[B];
  copy(X[bx * B], x);
  parallel (i) in x { x[i] = x[i] * a; }
  copy(x, Y[bx * B]);
}
TL
  cat >"$dir/main.cpp" <<'CPP'
#include "scale.tlc.h"
#include <cstdio>
int main() {
  // Wrong shapes are caught before any driver call: no GPU needed.
  float x[4] = {}, y[3] = {};
  tlc::Status s = tlc::kernels::scale(tlc::makeTensor(x, TLC_F32, {4}),
                                      tlc::makeTensor(y, TLC_F32, {3}), 2.0f);
  std::printf("%d %s\n", s.code, s.message.c_str());
  return s.code == TLC_ERR_INVALID_ARGUMENT ? 0 : 1;
}
CPP
  "$cmake" -G Ninja -S "$dir" -B "$dir/build" \
    -DCMAKE_PREFIX_PATH="$prefix" >"$dir.log" 2>&1 &&
    ninja -C "$dir/build" >>"$dir.log" 2>&1 ||
    { cat "$dir.log"; fail "TARGET $target did not build"; }
  [ -s "$dir/build/tlc/gpu_kernels/scale$suffix" ] ||
    fail "no scale$suffix"
  "$dir/build/app" | grep -q "Y.shape\[0\] is 3 but N = 4" ||
    { "$dir/build/app"; fail "the $target stub did not check the shapes"; }
}

# TARGET cuda needs the CUDA toolkit's ptxas and fatbinary at build time
# (not at run time: the stubs load libcuda with dlopen).
cuda_home="${CUDA_HOME:-/usr/local/cuda}"
if [ -x "$cuda_home/bin/ptxas" ] && [ -x "$cuda_home/bin/fatbinary" ]; then
  gpu_consumer cuda sm_80 .fatbin
else
  echo "== (no CUDA toolkit at $cuda_home: TARGET cuda not built)"
fi
# TARGET rocm needs ld.lld and the ROCm device libraries (install-deps.sh).
gpu_consumer rocm gfx942 .hsaco
# TARGET vulkan needs the Vulkan headers (libvulkan-dev, install-deps.sh).
gpu_consumer vulkan lavapipe .spv

echo "== PYTHON: Python bindings and their shared library (docs/python.md)"
mkdir -p "$tmp/py/kernels"
cat >"$tmp/py/kernels/scale.tl" <<'TL'
kernel scale<BN = 64>(X: f32[N], out Y: f32[N], a: f32)
  grid(cdiv(N, BN)) as (bx) threads(64)
{
  fragment x: f32[BN];
  copy(X[bx * BN], x);
  parallel (i) in x { x[i] = x[i] * a; }
  copy(x, Y[bx * BN]);
}
TL
cat >"$tmp/py/CMakeLists.txt" <<'CML'
cmake_minimum_required(VERSION 3.20)
project(py LANGUAGES CXX)
find_package(tlc CONFIG REQUIRED)
tlc_add_kernels(py_kernels SOURCES kernels/scale.tl TARGET cpu PYTHON)
CML
"$cmake" -G Ninja -S "$tmp/py" -B "$tmp/py/build" \
  -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/py.log" 2>&1 &&
  ninja -C "$tmp/py/build" >>"$tmp/py.log" 2>&1 ||
  { cat "$tmp/py.log"; fail "PYTHON project"; }
py=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
  if "$p" -c "import numpy" 2>/dev/null; then py="$p" && break; fi
done
[ -n "$py" ] || fail "no Python 3 with NumPy (install-deps.sh installs python3-numpy)"
"$py" - "$tmp/py/build/tlc/py_kernels" >"$tmp/py-run.log" 2>&1 <<'PY' ||
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import scale
x = np.arange(100, dtype=np.float32)
y = np.zeros(100, dtype=np.float32)
scale.scale(x, y, 2.5)
assert np.array_equal(y, 2.5 * x), y
print("python bindings ok")
PY
  { cat "$tmp/py-run.log"; fail "the PYTHON module did not run"; }
cat "$tmp/py-run.log"
sed -i 's/TARGET cpu PYTHON/TARGET vulkan PYTHON/' "$tmp/py/CMakeLists.txt"
if "$cmake" -G Ninja -S "$tmp/py" -B "$tmp/py/build-vk" \
    -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/py-vk.log" 2>&1; then
  fail "PYTHON with TARGET vulkan was accepted"
fi
grep -q "PYTHON needs TARGET cpu, cuda or rocm" "$tmp/py-vk.log" ||
  { cat "$tmp/py-vk.log"; fail "no clear message for PYTHON with TARGET vulkan"; }

echo "PASS: cmake consumer"
