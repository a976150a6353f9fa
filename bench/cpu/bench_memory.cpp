// bench_memory.cpp: memory-bound tlc kernels (softmax, rmsnorm) against the
// copy bandwidth measured in the same run (memcpy split over the threads).
// Bandwidth counts the minimum bytes: each input read once, output written
// once.
#include "bench_util.h"
#include "rmsnorm.h"
#include "softmax.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <thread>
#include <vector>

int main() {
  const int64_t M = 4096,
                N = 4096; // 64 MiB per f32 matrix: well past the caches
  std::vector<float> X(M * N), Y(M * N), W(N);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-2, 2);
  for (float &x : X)
    x = dist(rng);
  for (float &w : W)
    w = dist(rng);
  auto x = tlc::makeTensor(X.data(), TLC_F32, {M, N});
  auto y = tlc::makeTensor(Y.data(), TLC_F32, {M, N});
  auto w = tlc::makeTensor(W.data(), TLC_F32, {N});
  double bytes = 2.0 * M * N * sizeof(float);
  std::printf("| kernel (f32 %lldx%lld) | threads | GB/s | copy GB/s | "
              "fraction of copy |\n",
              (long long)M, (long long)N);
  std::printf("|---|---|---|---|---|\n");
  for (int threads : {1, 2}) {
    double tCopy = medianSeconds(
        [&] {
          std::vector<std::thread> pool;
          int64_t chunk = M * N / threads;
          for (int t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
              std::memcpy(Y.data() + t * chunk, X.data() + t * chunk,
                          chunk * sizeof(float));
            });
          for (auto &p : pool)
            p.join();
        },
        9);
    double copyBW = bytes / tCopy * 1e-9;
    tlc::LaunchOptions opts(threads);
    double tSoftmax =
        medianSeconds([&] { tlc::kernels::softmax(x, y, opts); }, 9);
    double tRms =
        medianSeconds([&] { tlc::kernels::rmsnorm(x, w, y, 1e-6f, opts); }, 9);
    double sm = bytes / tSoftmax * 1e-9, rms = (bytes + N * 4.0) / tRms * 1e-9;
    std::printf("| softmax | %d | %.1f | %.1f | %.0f%% |\n", threads, sm,
                copyBW, 100 * sm / copyBW);
    std::printf("| rmsnorm | %d | %.1f | %.1f | %.0f%% |\n", threads, rms,
                copyBW, 100 * rms / copyBW);
  }
  return 0;
}
