// bench_gemm.cpp: tlc's CPU gemm against OpenBLAS cblas_sgemm, same inputs,
// same run, 1 and 2 threads. Prints one markdown table row per case.
#include "bench_util.h"
#include "gemm.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

extern "C" void openblas_set_num_threads(int);
extern "C" char *openblas_get_corename(void);

int main(int argc, char **argv) {
  std::vector<int64_t> sizes = {1024, 2048, 4096};
  std::vector<int> threadCounts = {1, 2};
  if (argc > 1)
    sizes = {std::atoll(argv[1])};
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::printf("OpenBLAS kernel: %s\n\n", openblas_get_corename());
  std::printf("| size | threads | tlc GFLOP/s | OpenBLAS GFLOP/s | tlc / "
              "OpenBLAS | max rel diff |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (int64_t n : sizes) {
    std::vector<float> A(n * n), B(n * n), C(n * n), R(n * n);
    for (float &x : A)
      x = dist(rng);
    for (float &x : B)
      x = dist(rng);
    auto a = tlc::makeTensor(A.data(), TLC_F32, {n, n});
    auto b = tlc::makeTensor(B.data(), TLC_F32, {n, n});
    auto c = tlc::makeTensor(C.data(), TLC_F32, {n, n});
    for (int threads : threadCounts) {
      openblas_set_num_threads(threads);
      tlc::LaunchOptions opts(threads);
      // Interleaved: each rep times tlc, then OpenBLAS, so that a shared
      // machine's drift moves both; the ratio is the median of the reps'.
      int reps = n >= 4096 ? 5 : 9;
      auto runTlc = [&] {
        tlc::Status s = tlc::kernels::gemm(a, b, c, opts);
        if (!s.ok()) {
          std::fprintf(stderr, "%s\n", s.message.c_str());
          std::exit(1);
        }
      };
      auto runBlas = [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                    A.data(), n, B.data(), n, 0.0f, R.data(), n);
      };
      runTlc();
      runBlas();
      std::vector<double> tTlcs, tBlases, ratios;
      for (int r = 0; r < reps; ++r) {
        tTlcs.push_back(secondsOf(runTlc));
        tBlases.push_back(secondsOf(runBlas));
        ratios.push_back(tBlases.back() / tTlcs.back());
      }
      double tTlc = median(tTlcs), tBlas = median(tBlases);
      double diff = 0, scale = 0;
      for (int64_t i = 0; i < n * n; ++i) {
        diff = std::max(diff, (double)std::fabs(C[i] - R[i]));
        scale = std::max(scale, (double)std::fabs(R[i]));
      }
      double flop = 2.0 * n * n * n;
      std::printf("| %lld | %d | %.1f | %.1f | %.2fx | %.1e |\n", (long long)n,
                  threads, flop / tTlc * 1e-9, flop / tBlas * 1e-9,
                  median(ratios), diff / scale);
      std::fflush(stdout);
    }
  }
  return 0;
}
