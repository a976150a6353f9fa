// block_sparse_driver.cpp: checks examples/block_sparse_attention.tl against
// attention in double over each query block's listed key blocks: random
// subsets in random order, a query block with none (zeros), ragged S.
// -DTLC_T_F32 -DSMALL: compiled with -D T=f32 -D D=32 -D BM=16 -D BN=16
// (bf16 with the defaults otherwise; the driver reads BM/BN from NQ).
#include "block_sparse_attn.h"
#include "check.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#ifdef TLC_T_F32
using T = float;
#else
using T = check::bfloat16_t;
#endif
#ifdef SMALL
constexpr int64_t D = 32, BM = 16, BN = 16;
#else
constexpr int64_t D = 128, BM = 128, BN = 128;
#endif

int main() {
  check::Checker checker;
  for (auto [B, H, S] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 5},
                         {1, 2, 3 * BM + 7},
                         {2, 1, 5 * BN}}) {
    std::string size = check::sizeStr({B, H, S, D});
    check::Rng rng("block_sparse" + size);
    const int64_t NQ = (S + BM - 1) / BM, NK = (S + BN - 1) / BN;
    check::Tensor<T> Q({B, H, S, D}, 2), K({B, H, S, D}), V({B, H, S, D}, 1),
        O({B, H, S, D}, 3);
    check::Tensor<int32_t> Blocks({B, H, NQ, NK}), Count({B, H, NQ});
    Q.fillRandom(rng);
    K.fillRandom(rng);
    V.fillRandom(rng);
    O.poison();
    std::vector<std::vector<int64_t>> lists(B * H * NQ);
    for (int64_t g = 0; g < B * H * NQ; ++g) {
      std::vector<int64_t> all(NK);
      std::iota(all.begin(), all.end(), 0);
      for (int64_t i = NK - 1; i > 0; --i)
        std::swap(all[i], all[rng.next() % (i + 1)]);
      int64_t n = g == 1 ? 0 : 1 + int64_t(rng.next() % NK);
      lists[g].assign(all.begin(), all.begin() + n);
      Count.set(g, float(n));
      for (int64_t t = 0; t < NK; ++t)
        Blocks.set(g * NK + t, t < n ? float(lists[g][t]) : -1.0f);
    }
    if (!checker.launched(tlc::kernels::block_sparse_attn(
                              Q.view(), K.view(), V.view(), Blocks.view(),
                              Count.view(), O.view(), tlc::LaunchOptions(2)),
                          "block_sparse_attn", size))
      continue;
    std::vector<double> ref(B * H * S * D, 0.0);
    for (int64_t bh = 0; bh < B * H; ++bh)
      for (int64_t q = 0; q < S; ++q) {
        std::vector<int64_t> keys;
        for (int64_t kb : lists[bh * NQ + q / BM])
          for (int64_t k = kb * BN; k < std::min(S, kb * BN + BN); ++k)
            keys.push_back(k);
        if (keys.empty())
          continue;
        std::vector<double> w(keys.size());
        double mx = -INFINITY, sum = 0;
        for (size_t i = 0; i < keys.size(); ++i) {
          double s = 0;
          for (int64_t d = 0; d < D; ++d)
            s += double(Q.get((bh * S + q) * D + d)) *
                 K.get((bh * S + keys[i]) * D + d);
          w[i] = s / std::sqrt(double(D));
          mx = std::max(mx, w[i]);
        }
        for (double &x : w)
          sum += x = std::exp(x - mx);
        for (size_t i = 0; i < keys.size(); ++i)
          for (int64_t d = 0; d < D; ++d)
            ref[(bh * S + q) * D + d] +=
                w[i] / sum * V.get((bh * S + keys[i]) * D + d);
      }
    checker.compare("block_sparse_attn", size, O, ref,
                    std::is_same_v<T, float> ? 1e-5 : 2e-2);
  }
  return checker.finish();
}
