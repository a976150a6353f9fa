// slices_driver.cpp: checks slices.tl (explicit windows) against C++
// references: a point in a middle dimension, columns (strided windows) with
// a slice end that masks, an atomic add into a column, slices with a step.
// Ragged sizes, and points outside the tensor. -DTLC_T_BF16: heads compiled
// with T=bf16.
#include "check.h"
#include "column.h"
#include "head_sums.h"
#include "heads.h"
#include "strided.h"

#include <tuple>

#ifdef TLC_T_BF16
using T = check::bfloat16_t;
#else
using T = float;
#endif

int main() {
  check::Checker checker;
  for (auto [B, S, H] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {2, 37, 3},
                         {3, 16, 5}}) {
    const int64_t D = 64;
    std::string size = check::sizeStr({B, S, H, D});
    check::Rng rng("heads" + size);
    check::Tensor<T> X({B, S, H, D}, 3), Y({B, S, H, D}, 2);
    X.fillRandom(rng);
    Y.poison();
    if (!checker.launched(tlc::kernels::heads(X.view(), Y.view()), "heads",
                          size))
      continue;
    std::vector<double> ref(B * S * H * D);
    for (int64_t i = 0; i < B * S * H * D; ++i)
      ref[i] = 2.0 * X.get(i) + double((i / D) % H);
    checker.compare("heads", size, Y, ref,
                    std::is_same_v<T, float> ? 1e-6 : 1e-2);
  }
  for (auto [B, S, H] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {2, 100, 3},
                         {1, 64, 2}}) {
    const int64_t D = 64;
    std::string size = check::sizeStr({B, S, H, D});
    check::Rng rng("head_sums" + size);
    check::Tensor<T> X({B, S, H, D}, 1);
    check::Tensor<float> Y({B, H, D}, 2);
    X.fillRandom(rng);
    Y.poison();
    if (!checker.launched(tlc::kernels::head_sums(X.view(), Y.view()),
                          "head_sums", size))
      continue;
    std::vector<double> ref(B * H * D, 0.0);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t d = 0; d < D; ++d)
            ref[(b * H + h) * D + d] += X.get(((b * S + s) * H + h) * D + d);
    checker.compare("head_sums", size, Y, ref, 1e-5);
  }
  for (auto [M, N, C, k, end, c] :
       {std::tuple<int64_t, int64_t, int64_t, int32_t, int32_t, int32_t>{
            1, 1, 1, 0, 1, 0},
        {70, 5, 3, 4, 50, 2},
        {33, 9, 2, 0, 100, 0},
        {40, 3, 4, 7, 40, 1},    // k outside X: zeros
        {45, 6, 2, 2, 45, 5}}) { // c outside Out: nothing written
    std::string size = check::sizeStr({M, N, C, k, end, c});
    check::Rng rng("column" + size);
    check::Tensor<float> X({M, N}, 1), Out({M, C}, 2), Sum({M, 2});
    X.fillRandom(rng);
    Out.fillRandom(rng);
    Sum.fillRandom(rng);
    std::vector<double> out = Out.values(), sum = Sum.values();
    if (!checker.launched(
            tlc::kernels::column(X.view(), k, end, Out.view(), c, Sum.view()),
            "column", size))
      continue;
    for (int64_t r = 0; r < M; ++r) {
      double x = k < N ? X.get(r * N + k) : 0.0;
      if (r < end && c < C)
        out[r * C + c] = x;
      sum[r * 2 + 1] += x;
    }
    checker.compare("column.out", size, Out, out, 0);
    checker.compare("column.sum", size, Sum, sum, 1e-6);
  }
  for (auto [M, N] : {std::tuple<int64_t, int64_t>{37, 40}, {2, 5}, {64, 32}}) {
    const int64_t MY = (M + 1) / 2;
    std::string size = check::sizeStr({M, N});
    check::Rng rng("strided" + size);
    check::Tensor<T> X({M, N}, 3), Y({MY, N}), Z({MY, N}, 1), V({MY, 8}),
        W({M, N});
    X.fillRandom(rng);
    Y.poison();
    Z.poison();
    V.poison();
    W.fill(7.0f);
    if (!checker.launched(tlc::kernels::strided(X.view(), Y.view(), Z.view(),
                                                V.view(), W.view()),
                          "strided", size))
      continue;
    std::vector<double> refY(MY * N), refZ(MY * N), refV(MY * 8, 0.0),
        refW(M * N, 7.0);
    for (int64_t r = 0; r < MY; ++r) {
      for (int64_t c = 0; c < N; ++c) {
        refY[r * N + c] = X.get(2 * r * N + c);
        refZ[r * N + c] = 2 * r - 3 >= 0 ? X.get((2 * r - 3) * N + c) : 0.0;
        refW[2 * r * N + c] = X.get(2 * r * N + c);
      }
      for (int64_t j = 0; j < 8; ++j)
        if (3 * j + 1 < N)
          refV[r * 8 + j] = X.get(2 * r * N + 3 * j + 1);
    }
    checker.compare("strided.rows", size, Y, refY, 0.0);
    checker.compare("strided.before", size, Z, refZ, 0.0);
    checker.compare("strided.columns", size, V, refV, 0.0);
    checker.compare("strided.store", size, W, refW, 0.0);
  }
  return checker.finish();
}
