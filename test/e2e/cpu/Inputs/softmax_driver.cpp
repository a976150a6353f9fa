// softmax_driver.cpp: checks examples/softmax.tl, a row-wise softmax: the
// kernel softmax, or with -DTLC_SOFTMAX_SPLIT the operation softmax_split
// (rows split over blocks), with -DTLC_SOFTMAX_ANY the operation
// softmax_any (one of the two per shape), with -DTLC_SOFTMAX_CLUSTER the
// kernel softmax_cluster (a row over the blocks of a cluster).
// Build with -DTLC_T_F16 for a kernel compiled with -D T=f16.
// SOFTMAX_THREADS=N launches on N threads (default: all hardware threads).
#include "check.h"
#if defined(TLC_SOFTMAX_SPLIT)
#include "softmax_split.h"
#define TLC_SOFTMAX_ENTRY softmax_split
#elif defined(TLC_SOFTMAX_CLUSTER)
#include "softmax_cluster.h"
#define TLC_SOFTMAX_ENTRY softmax_cluster
#elif defined(TLC_SOFTMAX_ANY)
#include "softmax_any.h"
#define TLC_SOFTMAX_ENTRY softmax_any
#else
#include "softmax.h"
#define TLC_SOFTMAX_ENTRY softmax
#endif
#define TLC_STRINGIFY(x) #x
#define TLC_NAME(x) TLC_STRINGIFY(x)

#include <algorithm>
#include <cstdlib>
#include <tuple>

#ifdef TLC_T_F16
using T = check::half_t;
#else
using T = float;
#endif

int main() {
  check::Checker checker;
  // (M, N, row padding, lo, hi): ragged N exercises the -inf masking of the
  // columns past N; a range far from 0 checks that the max is subtracted (a
  // plain exp(100) overflows f32); an increasing row makes the running max
  // grow in every column tile.
  struct Case {
    int64_t M, N, pad;
    float lo, hi;
    bool increasing;
  };
  const Case cases[] = {
      {1, 1, 0, -5, 5, false},    {3, 5, 0, -5, 5, false},
      {17, 129, 2, -5, 5, false}, {100, 257, 0, -5, 5, false},
      {64, 128, 0, -5, 5, false}, {5, 1000, 1, -5, 5, false},
      {257, 3, 0, -5, 5, false},  {7, 300, 0, 80, 100, false},
      {9, 200, 0, -8, 8, true},   {3, 20000, 3, -5, 5, false},
      {2, 8192, 0, -5, 5, true},  {4, 9000, 0, 80, 100, false}};
  tlc::LaunchOptions options;
  if (const char *threads = std::getenv("SOFTMAX_THREADS"))
    options.num_threads = std::atoi(threads);
  const std::string name =
      std::string(TLC_NAME(TLC_SOFTMAX_ENTRY)) + "." + check::Elem<T>::name;
  for (const Case &c : cases) {
    const int64_t M = c.M, N = c.N;
    std::string size = check::sizeStr({M, N});
    check::Rng rng(name + size);
    check::Tensor<T> X({M, N}, c.pad), Y({M, N}, c.pad);
    X.fillRandom(rng, c.lo, c.hi);
    if (c.increasing)
      for (int64_t i = 0; i < M * N; ++i)
        X.set(i, c.lo + (c.hi - c.lo) * float(i % N) / float(N));
    Y.poison();
    if (!checker.launched(
            tlc::kernels::TLC_SOFTMAX_ENTRY(X.view(), Y.view(), options), name,
            size))
      continue;
    std::vector<double> ref(M * N);
    for (int64_t i = 0; i < M; ++i) {
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < N; ++j)
        mx = std::max(mx, double(X.get(i * N + j)));
      for (int64_t j = 0; j < N; ++j)
        sum += ref[i * N + j] = std::exp(X.get(i * N + j) - mx);
      for (int64_t j = 0; j < N; ++j)
        ref[i * N + j] /= sum;
    }
    checker.compare(name, size, Y, ref, check::Elem<T>::tol);
  }
  return checker.finish();
}
