// gemm_demo.cpp: runs the tlc-compiled gemm kernel on random data, checks it
// against a plain C++ reference and reports GFLOP/s.
//
//   tlc examples/gemm.tl -target=cpu -o out/
//   g++ -O2 -std=c++17 examples/demo/gemm_demo.cpp out/gemm.cpp out/gemm.o \
//       -Iinclude -Iout -pthread -o gemm_demo && ./gemm_demo [M N K]
#include "gemm.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  int64_t M = 1000, N = 1000, K = 1000; // not multiples of the tile sizes
  if (argc == 4) {
    M = std::atoll(argv[1]);
    N = std::atoll(argv[2]);
    K = std::atoll(argv[3]);
  }
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> A(M * K), B(K * N), C(M * N, NAN);
  for (float &x : A)
    x = dist(rng);
  for (float &x : B)
    x = dist(rng);

  auto a = tlc::makeTensor(A.data(), TLC_F32, {M, K});
  auto b = tlc::makeTensor(B.data(), TLC_F32, {K, N});
  auto c = tlc::makeTensor(C.data(), TLC_F32, {M, N});
  tlc::Status status = tlc::kernels::gemm(a, b, c);
  if (!status.ok()) {
    std::fprintf(stderr, "gemm failed: %s\n", status.message.c_str());
    return 1;
  }

  // Reference in double precision. The error of each element is scaled by
  // sum_k |A[i,k] * B[k,j]|, the size of the terms it accumulates.
  double maxErr = 0;
  std::vector<double> row(N), scale(N);
  for (int64_t i = 0; i < M; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    std::fill(scale.begin(), scale.end(), 0.0);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j) {
        double p = double(A[i * K + k]) * B[k * N + j];
        row[j] += p;
        scale[j] += std::fabs(p);
      }
    for (int64_t j = 0; j < N; ++j) {
      double err = std::fabs(row[j] - C[i * N + j]) / std::max(scale[j], 1e-30);
      if (!(err <= maxErr)) // also catches NaN (unwritten outputs)
        maxErr = std::isnan(err) ? INFINITY : err;
    }
  }

  // Median of several timed runs.
  std::vector<double> times;
  for (int rep = 0; rep < 7; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    status = tlc::kernels::gemm(a, b, c);
    auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  std::sort(times.begin(), times.end());
  double sec = times[times.size() / 2];
  double gflops = 2.0 * M * N * K / sec * 1e-9;
  bool ok = maxErr < 1e-4 && status.ok();
  std::printf("gemm %lldx%lldx%lld f32: max error %.2e (%s), %.3f ms, %.1f "
              "GFLOP/s\n",
              (long long)M, (long long)N, (long long)K, maxErr,
              ok ? "PASS" : "FAIL", sec * 1e3, gflops);
  return ok ? 0 : 1;
}
