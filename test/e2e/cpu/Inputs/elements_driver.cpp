// elements_driver.cpp: checks the kernels of elements.tl (element access to
// global tensors) against C++ references on random data, ragged sizes and
// indices outside the tensors. -DTLC_T_F32: row_stats compiled with T=f32.
#include "check.h"
#include "gather_rows.h"
#include "histogram.h"
#include "row_stats.h"

#include <algorithm>
#include <cstdint>
#include <tuple>

#ifdef TLC_T_F32
using T = float;
#else
using T = int32_t;
#endif

static int32_t randomInt(check::Rng &rng, int32_t lo, int32_t hi) {
  return lo + static_cast<int32_t>(rng.next() % uint64_t(hi - lo));
}

int main() {
  check::Checker checker;

  // Counts[X[i]] += 1 for X[i] in [0, E); Blocks[0] += number of blocks.
  for (auto [N, E] :
       {std::tuple<int64_t, int64_t>{1, 1}, {300, 7}, {1000, 64}, {4097, 5}}) {
    std::string size = check::sizeStr({N, E});
    check::Rng rng("histogram" + size);
    check::Tensor<int32_t> X({N}), Counts({E}), Blocks({1});
    for (int64_t i = 0; i < N; ++i)
      X.set(i, randomInt(rng, -3, int32_t(E) + 3));
    std::vector<double> counts(E), blocks{17};
    for (int64_t e = 0; e < E; ++e)
      Counts.set(e, counts[e] = randomInt(rng, 0, 5));
    Blocks.set(0, 17);
    if (!checker.launched(tlc::kernels::histogram(X.view(), Counts.view(),
                                                  Blocks.view(),
                                                  tlc::LaunchOptions(3)),
                          "histogram", size))
      continue;
    for (int64_t i = 0; i < N; ++i)
      if (int64_t e = int64_t(X.get(i)); e >= 0 && e < E)
        counts[e] += 1;
    blocks[0] += (N + 255) / 256;
    checker.compare("histogram", size, Counts, counts, 0);
    checker.compare("histogram.blocks", size, Blocks, blocks, 0);
  }

  // Y[r, :] = X[Idx[r], :] * S[r], zero rows for indices outside X.
  for (auto [R, M, D] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {5, 3, 63},
                         {33, 17, 64},
                         {9, 40, 130}}) {
    std::string size = check::sizeStr({R, M, D});
    check::Rng rng("gather_rows" + size);
    check::Tensor<int32_t> Idx({R});
    check::Tensor<float> X({M, D}, 3), S({R}), Y({R, D}, 1);
    X.fillRandom(rng);
    S.fillRandom(rng);
    Y.poison();
    for (int64_t r = 0; r < R; ++r)
      Idx.set(r, randomInt(rng, -2, int32_t(M) + 2));
    if (!checker.launched(
            tlc::kernels::gather_rows(Idx.view(), X.view(), S.view(), Y.view()),
            "gather_rows", size))
      continue;
    std::vector<double> ref(R * D, 0.0);
    for (int64_t r = 0; r < R; ++r)
      if (int64_t row = int64_t(Idx.get(r)); row >= 0 && row < M)
        for (int64_t d = 0; d < D; ++d)
          ref[r * D + d] = double(X.get(row * D + d)) * S.get(r);
    checker.compare("gather_rows", size, Y, ref, 1e-6);
  }

  // Row sums stored once per row and added once to Total; Mx and Mn combined
  // atomically from every element.
  for (auto [M, N] :
       {std::tuple<int64_t, int64_t>{1, 1}, {9, 31}, {30, 33}, {17, 100}}) {
    std::string size = check::sizeStr({M, N});
    check::Rng rng("row_stats" + size);
    check::Tensor<T> X({M, N}, 2), Sums({M}), Total({1}), Mx({M}), Mn({M});
    for (int64_t i = 0; i < M * N; ++i)
      X.set(i, std::is_same_v<T, float> ? rng.uniform(-1, 1)
                                        : float(randomInt(rng, -50, 50)));
    Sums.poison();
    Total.set(0, 5);
    std::vector<double> sums(M, 0.0), total{5}, mx(M), mn(M);
    for (int64_t r = 0; r < M; ++r) {
      Mx.set(r, mx[r] = randomInt(rng, -60, 0));
      Mn.set(r, mn[r] = randomInt(rng, 0, 60));
    }
    if (!checker.launched(tlc::kernels::row_stats(
                              X.view(), Sums.view(), Total.view(), Mx.view(),
                              Mn.view(), tlc::LaunchOptions(2)),
                          "row_stats", size))
      continue;
    for (int64_t r = 0; r < M; ++r)
      for (int64_t c = 0; c < N; ++c) {
        double x = X.get(r * N + c);
        sums[r] += x;
        total[0] += x;
        mx[r] = std::max(mx[r], x);
        mn[r] = std::min(mn[r], x);
      }
    double tol = std::is_same_v<T, float> ? 1e-5 : 0;
    checker.compare("row_stats.sums", size, Sums, sums, tol);
    checker.compare("row_stats.total", size, Total, total, tol);
    checker.compare("row_stats.max", size, Mx, mx, 0);
    checker.compare("row_stats.min", size, Mn, mn, 0);
  }
  return checker.finish();
}
