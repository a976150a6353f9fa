// moe_topk_driver.cpp: checks examples/moe_topk.tl (router softmax + top-k)
// against a C++ reference: random logits, expert counts below and at the
// tile width, ragged token counts. -DTLC_T_F32: compiled with -D T=f32;
// -DTOPK=n: with -D TopK=n; -DNO_RENORM: with -D Renorm=false.
#include "check.h"
#include "moe_topk.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#ifdef TLC_T_F32
using T = float;
#else
using T = check::bfloat16_t;
#endif
#ifndef TOPK
#define TOPK 2
#endif
#ifdef NO_RENORM
constexpr bool kRenorm = false;
#else
constexpr bool kRenorm = true;
#endif

int main() {
  check::Checker checker;
  for (auto [Tokens, E] : {std::tuple<int64_t, int64_t>{1, 8},
                           {37, 8},
                           {100, 60},
                           {16, 64},
                           {5, 3}}) {
    if (E < TOPK)
      continue;
    std::string size = check::sizeStr({Tokens, E});
    check::Rng rng("moe_topk" + size);
    check::Tensor<T> Logits({Tokens, E}, 2);
    check::Tensor<float> Weights({Tokens, TOPK});
    check::Tensor<int32_t> Ids({Tokens, TOPK});
    Logits.fillRandom(rng, -4, 4);
    Weights.poison();
    if (!checker.launched(
            tlc::kernels::moe_topk(Logits.view(), Weights.view(), Ids.view()),
            "moe_topk", size))
      continue;
    std::vector<double> weights(Tokens * TOPK), ids(Tokens * TOPK);
    for (int64_t t = 0; t < Tokens; ++t) {
      std::vector<double> p(E);
      double mx = -INFINITY, sum = 0;
      for (int64_t e = 0; e < E; ++e)
        mx = std::max(mx, double(Logits.get(t * E + e)));
      for (int64_t e = 0; e < E; ++e)
        sum += p[e] = std::exp(double(Logits.get(t * E + e)) - mx);
      std::vector<int64_t> order(E);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) { return p[a] > p[b]; });
      double picked = 0;
      for (int k = 0; k < TOPK; ++k)
        picked += p[order[k]] / sum;
      for (int k = 0; k < TOPK; ++k) {
        weights[t * TOPK + k] = p[order[k]] / sum / (kRenorm ? picked : 1.0);
        ids[t * TOPK + k] = double(order[k]);
      }
    }
    checker.compare("moe_topk.weights", size, Weights, weights, 1e-5);
    checker.compare("moe_topk.ids", size, Ids, ids, 0);
  }
  return checker.finish();
}
