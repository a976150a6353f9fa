// flash_attention_driver.cpp: checks examples/flash_attention.tl,
// O = softmax(Q K^T / sqrt(D)) V per (batch, head), with Hkv <= H key/value
// heads (query head h reads key/value head h * Hkv / H), and its log-sum-exp
// output L = log(sum_j exp(q . k_j / sqrt(D))) per query row, against a
// double reference. Build flags must match the kernel's compile-time
// parameters:
//   -DTLC_T_BF16   for -D T=bf16, -DTLC_T_F16 for -D T=f16 (default f32,
//                  -D T=f32)
//   -DCAUSAL=1     for -D Causal=true
//   -DHEAD_DIM=64  for -D D=64
#include "check.h"
#include "flash_attn_fwd.h"

#include <algorithm>
#include <tuple>

#if defined(TLC_T_F16)
using T = check::half_t;
#elif defined(TLC_T_BF16)
using T = check::bfloat16_t;
#else
using T = float;
#endif
#ifndef CAUSAL
#define CAUSAL 0
#endif
#ifndef HEAD_DIM
#define HEAD_DIM 64
#endif

int main() {
  check::Checker checker;
  const int64_t D = HEAD_DIM;
  // (B, H, Hkv, S, row padding): S = 1, S smaller than a tile, exact tiles
  // and ragged tails; padding makes all four tensors row-strided; grouped
  // queries (Hkv < H: 2 and 3 query heads per key/value head) ragged too.
  const std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t> cases[] = {
      {1, 1, 1, 1, 0},
      {1, 2, 1, 5, 0},
      {2, 1, 1, 64, 3},
      {1, 4, 2, 97, 0},
      {2, 3, 1, 130, 1}};
  std::string name = std::string("flash_attn.") + check::Elem<T>::name +
                     (CAUSAL ? ".causal" : "");
  for (auto [B, H, Hkv, S, pad] : cases) {
    std::string size = check::sizeStr({B, H, S, D}) +
                       (Hkv != H ? " kv" + std::to_string(Hkv) : "");
    check::Rng rng(name + size);
    check::Tensor<T> Q({B, H, S, D}, pad), K({B, Hkv, S, D}, pad),
        V({B, Hkv, S, D}, pad), O({B, H, S, D}, pad);
    check::Tensor<float> L({B, H, S}, pad);
    // Scores of a few units: the softmax is neither flat nor one-hot.
    Q.fillRandom(rng, -1.5f, 1.5f);
    K.fillRandom(rng, -1.5f, 1.5f);
    V.fillRandom(rng);
    O.poison();
    L.poison();
    if (!checker.launched(tlc::kernels::flash_attn_fwd(
                              Q.view(), K.view(), V.view(), O.view(), L.view()),
                          name, size))
      continue;
    std::vector<double> ref(B * H * S * D, 0.0), lse(B * H * S), p(S);
    const double scale = 1.0 / std::sqrt(double(D));
    for (int64_t bh = 0; bh < B * H; ++bh) {
      const int64_t base = bh * S * D;
      const int64_t kvBase = (bh / H * Hkv + bh % H * Hkv / H) * S * D;
      for (int64_t i = 0; i < S; ++i) {
        const int64_t keys = CAUSAL ? i + 1 : S;
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < keys; ++j) {
          double s = 0;
          for (int64_t d = 0; d < D; ++d)
            s += double(Q.get(base + i * D + d)) * K.get(kvBase + j * D + d);
          p[j] = s * scale;
          mx = std::max(mx, p[j]);
        }
        for (int64_t j = 0; j < keys; ++j)
          sum += p[j] = std::exp(p[j] - mx);
        lse[bh * S + i] = mx + std::log(sum);
        for (int64_t j = 0; j < keys; ++j)
          for (int64_t d = 0; d < D; ++d)
            ref[base + i * D + d] += p[j] / sum * V.get(kvBase + j * D + d);
      }
    }
    checker.compare(name, size, O, ref, check::Elem<T>::tol);
    // L is computed in f32 from the same (rounded) inputs whatever T is.
    checker.compare(name + ".L", size, L, lse, check::Elem<float>::tol);
  }
  return checker.finish();
}
