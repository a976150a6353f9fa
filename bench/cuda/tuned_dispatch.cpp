// tuned_dispatch.cpp: a kernel's dispatching stub (tlc --tuning=db.json: a
// variant per shape bucket) against the same kernel with its defaults, at
// the same shapes, on one GPU. The kernel is softmax(X: T[M, N], out Y) of
// examples/softmax.tl; bench/cuda/tune.sh builds and runs it:
//   tlc softmax.tl -target=cuda -D T=f32 --tuning=db.json -o tuned/
//   tlc softmax.tl -target=cuda -D T=f32 --kernel-suffix=_defaults -o defaults/
//   c++ -std=c++17 -O2 -I<tlc>/include -Ituned -Idefaults tuned_dispatch.cpp
//       tuned/softmax.cpp defaults/softmax_defaults.cpp -ldl
// Prints, per shape, both times, the speedup and whether the outputs agree.
#define TLC_TUNE_CUDA 1
#include "tlc/Runtime/tlc_tune.h"

#include "softmax.h"
#include "softmax_defaults.h"

#include <cstdio>
#include <vector>

int main() {
  tlc::tune::Device device;
  if (!device.error.empty()) {
    std::fprintf(stderr, "error: %s\n", device.error.c_str());
    return 2;
  }
  const int64_t shapes[][2] = {{1, 4096},    {16, 4096},  {16, 32768},
                               {64, 8192},   {128, 8192}, {4096, 4096},
                               {16384, 1024}};
  int failures = 0;
  for (const auto &shape : shapes) {
    int64_t M = shape[0], N = shape[1];
    size_t n = size_t(M * N), bytes = n * sizeof(float);
    std::vector<float> x(n), yTuned(n), yDefaults(n);
    tlc::tune::fillRandom(x.data(), TLC_F32, n, 7);
    void *dx = device.alloc(bytes), *dy = device.alloc(bytes);
    device.upload(dx, x.data(), bytes);
    tlc::TensorView X = tlc::makeTensor(dx, TLC_F32, {M, N});
    tlc::TensorView Y = tlc::makeTensor(dy, TLC_F32, {M, N});
    tlc::Status st = tlc::kernels::softmax(X, Y);
    device.sync();
    device.download(yTuned.data(), dy, bytes);
    tlc::Status st2 = tlc::kernels::softmax_defaults(X, Y);
    device.sync();
    device.download(yDefaults.data(), dy, bytes);
    if (!st.ok() || !st2.ok()) {
      std::printf("%lldx%lld: launch failed: %s %s\n", (long long)M,
                  (long long)N, st.message.c_str(), st2.message.c_str());
      ++failures;
      continue;
    }
    double worst = 0;
    for (size_t i = 0; i < n; ++i)
      worst = std::max(worst, double(std::fabs(yTuned[i] - yDefaults[i])));
    double tuned = tlc::tune::microsecondsPerCall(
        [&] { tlc::kernels::softmax(X, Y); }, device, 50);
    double defaults = tlc::tune::microsecondsPerCall(
        [&] { tlc::kernels::softmax_defaults(X, Y); }, device, 50);
    bool agree = worst <= 1e-5;
    failures += !agree;
    std::printf("softmax f32 %6lldx%-6lld tuned %9.3f us  defaults %9.3f us  "
                "%.2fx  max diff %.2e %s\n",
                (long long)M, (long long)N, tuned, defaults, defaults / tuned,
                worst, agree ? "ok" : "MISMATCH");
    device.release(dx);
    device.release(dy);
  }
  return failures ? 1 : 0;
}
