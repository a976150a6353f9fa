// gather_driver.cpp: checks Inputs/gather.tl (gathers and scatters through
// index tiles) against C++ references on random indices that include
// positions outside the tensor (negative, past the end, shifted out),
// ragged sizes and several tiles per dimension. -DTLC_T_BF16: compiled
// with -D T=bf16.
#include "check.h"
#include "gather_rows.h"
#include "gather_sum.h"
#include "patches.h"
#include "scatter_rows.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#ifdef TLC_T_BF16
using T = check::bfloat16_t;
#else
using T = float;
#endif

/// A random index in [lo, hi).
static int32_t pick(check::Rng &rng, int64_t lo, int64_t hi) {
  return static_cast<int32_t>(lo + int64_t(rng.next() % uint64_t(hi - lo)));
}

int main() {
  check::Checker c;
  constexpr double exact = 0.0;
  // gather_rows: V rows of D, M lookups, shifted by Shift.
  for (auto [V, D, M, Shift] :
       {std::tuple<int64_t, int64_t, int64_t, int>{50, 70, 37, 0},
        {9, 32, 16, 3},
        {200, 100, 129, -2}}) {
    std::string size = check::sizeStr({V, D, M, Shift});
    check::Rng rng("gather_rows" + size);
    check::Tensor<T> X({V, D}, 3), Y({M, D}, 1);
    check::Tensor<int32_t> Rows({M});
    X.fillRandom(rng);
    Y.poison();
    for (int64_t i = 0; i < M; ++i)
      Rows.set(i, float(pick(rng, -3, V + 3))); // some outside X
    if (!c.launched(
            tlc::kernels::gather_rows(X.view(), Rows.view(), Y.view(), Shift),
            "gather_rows", size))
      continue;
    std::vector<double> ref(M * D, 0.0);
    for (int64_t i = 0; i < M; ++i) {
      int64_t r = int64_t(Rows.get(i)) + Shift;
      for (int64_t d = 0; r >= 0 && r < V && d < D; ++d)
        ref[i * D + d] = double(X.get(r * D + d));
    }
    c.compare("gather_rows", size, Y, ref, exact);
  }
  // scatter_rows: M rows of X to distinct rows of Y (or nowhere).
  for (auto [V, D, M] : {std::tuple<int64_t, int64_t, int64_t>{60, 70, 37},
                         {16, 32, 16},
                         {300, 40, 200}}) {
    std::string size = check::sizeStr({V, D, M});
    check::Rng rng("scatter_rows" + size);
    check::Tensor<T> X({M, D}, 2), Y({V, D}, 5);
    check::Tensor<int32_t> Rows({M});
    X.fillRandom(rng);
    Y.fill(7.0f);
    std::vector<int32_t> perm(V);
    std::iota(perm.begin(), perm.end(), 0);
    for (int64_t i = V - 1; i > 0; --i)
      std::swap(perm[i], perm[rng.next() % uint64_t(i + 1)]);
    for (int64_t i = 0; i < M; ++i)
      Rows.set(i, i % 5 == 4 ? -1.0f : i % 7 == 6 ? float(V + i) : perm[i]);
    if (!c.launched(tlc::kernels::scatter_rows(X.view(), Rows.view(), Y.view()),
                    "scatter_rows", size))
      continue;
    std::vector<double> ref(V * D, 7.0);
    for (int64_t i = 0; i < M; ++i) {
      int64_t r = int64_t(Rows.get(i));
      for (int64_t d = 0; r >= 0 && r < V && d < D; ++d)
        ref[r * D + d] = double(X.get(i * D + d));
    }
    c.compare("scatter_rows", size, Y, ref, exact);
  }
  // patches: B images H x W x C, M positions around them.
  for (auto [B, H, W, C, M, P, Q] :
       {std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int, int>{
            2, 5, 7, 40, 45, 1, 2},
        {3, 4, 4, 32, 16, 0, 0},
        {1, 9, 3, 70, 33, 2, -1}}) {
    std::string size = check::sizeStr({B, H, W, C, M, P, Q});
    check::Rng rng("patches" + size);
    check::Tensor<T> X({B, H, W, C}, 1), Y({M, C}, 3);
    check::Tensor<int32_t> Img({M}), Top({M}), Left({M});
    X.fillRandom(rng);
    Y.poison();
    for (int64_t i = 0; i < M; ++i) {
      Img.set(i, float(pick(rng, 0, B + 1))); // image B: outside
      Top.set(i, float(pick(rng, -1, H + 3)));
      Left.set(i, float(pick(rng, -3, W + 1)));
    }
    if (!c.launched(tlc::kernels::patches(X.view(), Img.view(), Top.view(),
                                          Left.view(), Y.view(), P, Q),
                    "patches", size))
      continue;
    std::vector<double> ref(M * C, 0.0);
    for (int64_t i = 0; i < M; ++i) {
      int64_t b = int64_t(Img.get(i)), h = int64_t(Top.get(i)) - P,
              w = int64_t(Left.get(i)) + Q;
      if (b < 0 || b >= B || h < 0 || h >= H || w < 0 || w >= W)
        continue;
      for (int64_t ch = 0; ch < C; ++ch)
        ref[i * C + ch] = double(X.get(((b * H + h) * W + w) * C + ch));
    }
    c.compare("patches", size, Y, ref, exact);
  }
  // gather_sum: D = 64 (the kernel's), J steps from each of M rows.
  for (auto [V, M, J] : {std::tuple<int64_t, int64_t, int>{100, 70, 5},
                         {40, 32, 1},
                         {500, 100, 12}}) {
    constexpr int64_t D = 64;
    std::string size = check::sizeStr({V, M, J});
    check::Rng rng("gather_sum" + size);
    check::Tensor<T> X({V, D}, 2), Y({M, D}, 1);
    check::Tensor<int32_t> Rows({M});
    X.fillRandom(rng);
    Y.poison();
    for (int64_t i = 0; i < M; ++i)
      Rows.set(i, float(pick(rng, -2, V))); // some run past the end
    if (!c.launched(
            tlc::kernels::gather_sum(X.view(), Rows.view(), Y.view(), J),
            "gather_sum", size))
      continue;
    std::vector<double> ref(M * D, 0.0);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < J; ++j) {
        int64_t r = int64_t(Rows.get(i)) + j;
        for (int64_t d = 0; r >= 0 && r < V && d < D; ++d)
          ref[i * D + d] += double(X.get(r * D + d));
      }
    c.compare("gather_sum", size, Y, ref,
              std::is_same_v<T, float> ? 1e-6 : 1e-2);
  }
  return c.finish();
}
