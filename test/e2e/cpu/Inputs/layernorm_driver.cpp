// layernorm_driver.cpp: checks examples/layernorm.tl,
// Y[i, :] = (X[i, :] - mean) * rsqrt(var + eps) * W + B per row.
// Build with -DTLC_T_BF16 for a kernel compiled with -D T=bf16;
// -DTLC_LAYERNORM_CLUSTER runs the kernel layernorm_cluster (a row over the
// blocks of a cluster), -DTLC_LAYERNORM_ANY the operation layernorm_any.
// LAYERNORM_THREADS=N launches on N threads.
#include "check.h"
#if defined(TLC_LAYERNORM_CLUSTER)
#include "layernorm_cluster.h"
#define TLC_LAYERNORM_ENTRY layernorm_cluster
#elif defined(TLC_LAYERNORM_ANY)
#include "layernorm_any.h"
#define TLC_LAYERNORM_ENTRY layernorm_any
#else
#include "layernorm.h"
#define TLC_LAYERNORM_ENTRY layernorm
#endif
#define TLC_STRINGIFY(x) #x
#define TLC_NAME(x) TLC_STRINGIFY(x)

#include <algorithm>
#include <cstdlib>

#ifdef TLC_T_BF16
using T = check::bfloat16_t;
#else
using T = float;
#endif

int main() {
  check::Checker checker;
  struct Case {
    int64_t M, N, pad;
    float lo, hi, eps;
    double tol = 0; // 0: the dtype's default
  };
  // Ragged N (statistics merged over several column tiles, a last tile
  // that is mostly padding), tiny rows, a large eps, and rows whose mean
  // (around 300) is large against their spread, where sum(x^2) - sum(x)^2
  // would lose the variance (errors near 1e-2 in f32); what remains there is
  // the rounding of an f32 mean of values near 300 (2e-5 relative).
  const Case cases[] = {
      {1, 1, 0, -2, 2, 1e-5f},     {3, 5, 0, -2, 2, 1e-5f},
      {17, 300, 2, -2, 2, 1e-5f},  {100, 257, 0, -2, 2, 1e-6f},
      {33, 1024, 0, -2, 2, 1e-5f}, {257, 3, 1, -2, 2, 1e-5f},
      {16, 256, 0, -2, 2, 0.5f},   {9, 1000, 0, 299, 301, 1e-5f, 1e-4},
      {5, 4099, 3, -2, 2, 1e-5f}};
  std::string name =
      std::string(TLC_NAME(TLC_LAYERNORM_ENTRY)) + "." + check::Elem<T>::name;
  tlc::LaunchOptions options;
  if (const char *threads = std::getenv("LAYERNORM_THREADS"))
    options.num_threads = std::atoi(threads);
  for (const Case &c : cases) {
    const int64_t M = c.M, N = c.N;
    std::string size = check::sizeStr({M, N});
    check::Rng rng(name + size);
    check::Tensor<T> X({M, N}, c.pad), W({N}), B({N}), Y({M, N}, c.pad);
    X.fillRandom(rng, c.lo, c.hi);
    W.fillRandom(rng, 0.5f, 1.5f);
    B.fillRandom(rng, -1.0f, 1.0f);
    Y.poison();
    if (!checker.launched(tlc::kernels::TLC_LAYERNORM_ENTRY(X.view(), W.view(),
                                                            B.view(), Y.view(),
                                                            c.eps, options),
                          name, size))
      continue;
    std::vector<double> ref(M * N);
    for (int64_t i = 0; i < M; ++i) {
      double mean = 0, var = 0;
      for (int64_t j = 0; j < N; ++j)
        mean += X.get(i * N + j);
      mean /= double(N);
      for (int64_t j = 0; j < N; ++j) {
        double dev = X.get(i * N + j) - mean;
        var += dev * dev;
      }
      double r = 1.0 / std::sqrt(var / double(N) + double(c.eps));
      for (int64_t j = 0; j < N; ++j)
        ref[i * N + j] = (X.get(i * N + j) - mean) * r * W.get(j) + B.get(j);
    }
    char eps[32];
    std::snprintf(eps, sizeof eps, " eps=%g", c.eps);
    checker.compare(name, size + eps, Y, ref,
                    c.tol > 0 ? std::max(c.tol, check::Elem<T>::tol)
                              : check::Elem<T>::tol);
  }
  return checker.finish();
}
