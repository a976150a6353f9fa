// rmsnorm_driver.cpp: checks examples/rmsnorm.tl,
// Y[i, :] = X[i, :] * rsqrt(mean(X[i, :]^2) + eps) * W.
// Build with -DTLC_T_BF16 for a kernel compiled with -D T=bf16;
// -DTLC_RMSNORM_CLUSTER runs the kernel rmsnorm_cluster (a row over the
// blocks of a cluster), -DTLC_RMSNORM_ANY the operation rmsnorm_any.
#include "check.h"

#include <cstdlib>
#if defined(TLC_RMSNORM_CLUSTER)
#include "rmsnorm_cluster.h"
#define TLC_RMSNORM_ENTRY rmsnorm_cluster
#elif defined(TLC_RMSNORM_ANY)
#include "rmsnorm_any.h"
#define TLC_RMSNORM_ENTRY rmsnorm_any
#else
#include "rmsnorm.h"
#define TLC_RMSNORM_ENTRY rmsnorm
#endif
#define TLC_STRINGIFY(x) #x
#define TLC_NAME(x) TLC_STRINGIFY(x)

#ifdef TLC_T_BF16
using T = check::bfloat16_t;
#else
using T = float;
#endif

int main() {
  check::Checker checker;
  struct Case {
    int64_t M, N, pad;
    float eps;
  };
  // Ragged N (sum of squares over several column tiles), tiny rows, and a
  // large eps that changes the result noticeably.
  const Case cases[] = {{1, 1, 0, 1e-5f},     {3, 5, 0, 1e-5f},
                        {17, 300, 2, 1e-5f},  {100, 257, 0, 1e-6f},
                        {33, 1024, 0, 1e-5f}, {257, 3, 1, 1e-5f},
                        {16, 256, 0, 0.5f}};
  std::string name =
      std::string(TLC_NAME(TLC_RMSNORM_ENTRY)) + "." + check::Elem<T>::name;
  tlc::LaunchOptions options; // RMSNORM_THREADS=N: N threads
  if (const char *threads = std::getenv("RMSNORM_THREADS"))
    options.num_threads = std::atoi(threads);
  for (const Case &c : cases) {
    const int64_t M = c.M, N = c.N;
    std::string size = check::sizeStr({M, N});
    check::Rng rng(name + size);
    check::Tensor<T> X({M, N}, c.pad), W({N}), Y({M, N}, c.pad);
    X.fillRandom(rng, -2.0f, 2.0f);
    W.fillRandom(rng, 0.5f, 1.5f);
    Y.poison();
    if (!checker.launched(tlc::kernels::TLC_RMSNORM_ENTRY(
                              X.view(), W.view(), Y.view(), c.eps, options),
                          name, size))
      continue;
    std::vector<double> ref(M * N);
    for (int64_t i = 0; i < M; ++i) {
      double ss = 0;
      for (int64_t j = 0; j < N; ++j)
        ss += double(X.get(i * N + j)) * X.get(i * N + j);
      double r = 1.0 / std::sqrt(ss / double(N) + double(c.eps));
      for (int64_t j = 0; j < N; ++j)
        ref[i * N + j] = X.get(i * N + j) * r * W.get(j);
    }
    char eps[32];
    std::snprintf(eps, sizeof eps, " eps=%g", c.eps);
    checker.compare(name, size + eps, Y, ref, check::Elem<T>::tol);
  }
  return checker.finish();
}
