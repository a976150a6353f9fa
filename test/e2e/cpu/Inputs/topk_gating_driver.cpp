// topk_gating_driver.cpp: examples/topk_gating.tl against a C++ reference
// of group-limited top-k gating (sigmoid, bias, top-2 group scores, TG
// groups, TopK experts, ties to the lower index, renormalized weights), on
// random logits and biases, ragged token counts, and rows of equal scores
// (every choice a tie). -DTLC_SMALL: compiled with -D T=f32 -D NG=4 -D GS=16
// -D TG=2 -D TopK=4 and E = 60 (the last group short).
#include "check.h"
#include "topk_gating.h"

#include <algorithm>
#include <cmath>
#include <string>

#ifdef TLC_SMALL
using T = float;
constexpr int NG = 4, GS = 16, TG = 2, TopK = 4, E = 60;
#else
using T = check::bfloat16_t;
constexpr int NG = 8, GS = 32, TG = 4, TopK = 8, E = 256;
#endif
constexpr double Scale = 2.5;

int main() {
  check::Checker c;
  for (int64_t tokens : {1, 37, 100, 5}) {
    bool ties = tokens == 5;
    std::string size = std::to_string(tokens) + "x" + std::to_string(E) +
                       (ties ? " ties" : "");
    check::Rng rng("topk_gating" + size);
    check::Tensor<T> logits({tokens, E}, 3);
    check::Tensor<float> bias({E}), weights({tokens, TopK});
    check::Tensor<int32_t> ids({tokens, TopK});
    if (ties) {
      logits.fill(0.0f);
      bias.fill(0.0f);
    } else {
      logits.fillRandom(rng, -4.f, 4.f);
      bias.fillRandom(rng, -0.5f, 0.5f);
    }
    weights.poison(), ids.poison();
    if (!c.launched(tlc::kernels::topk_gating(logits.view(), bias.view(),
                                              weights.view(), ids.view(),
                                              tlc::LaunchOptions(2)),
                    "topk_gating", size))
      continue;
    std::vector<double> refW(tokens * TopK);
    int64_t badId = -1;
    for (int64_t t = 0; t < tokens; ++t) {
      std::vector<float> s(E), ch(E);
      for (int e = 0; e < E; ++e) {
        s[e] = 1.0f / (1.0f + std::exp(-logits.get(t * E + e)));
        ch[e] = s[e] + bias.get(e);
      }
      // Group scores: the two largest choice scores of each group.
      std::vector<double> group(NG, -INFINITY);
      for (int g = 0; g < NG; ++g) {
        std::vector<float> in;
        for (int j = 0; j < GS && g * GS + j < E; ++j)
          in.push_back(ch[g * GS + j]);
        std::sort(in.rbegin(), in.rend());
        if (in.size() >= 2)
          group[g] = double(in[0]) + in[1];
      }
      std::vector<bool> kept(NG, false);
      for (int r = 0; r < TG; ++r) {
        int best = -1;
        for (int g = 0; g < NG; ++g)
          if (!kept[g] && (best < 0 || group[g] > group[best]))
            best = g;
        kept[best] = true;
      }
      std::vector<bool> taken(E, false);
      double total = 0;
      std::vector<int> chosen;
      for (int k = 0; k < TopK; ++k) {
        int best = -1;
        for (int e = 0; e < E; ++e)
          if (kept[e / GS] && !taken[e] && (best < 0 || ch[e] > ch[best]))
            best = e;
        taken[best] = true;
        chosen.push_back(best);
        total += s[best];
      }
      for (int k = 0; k < TopK; ++k) {
        refW[t * TopK + k] = s[chosen[k]] / total * Scale;
        if (ids.get(t * TopK + k) != chosen[k] && badId < 0)
          badId = t * TopK + k;
      }
    }
    c.expect(badId < 0 && ids.guardsIntact(), "topk_gating.ids",
             size + (badId < 0 ? ""
                               : " (first mismatch at " +
                                     std::to_string(badId) + ")"));
    c.compare("topk_gating.weights", size, weights, refW, 1e-5);
  }
  return c.finish();
}
