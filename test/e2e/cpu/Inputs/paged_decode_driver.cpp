// paged_decode_driver.cpp: checks examples/paged_decode.tl (decode attention
// over a paged KV cache) against a C++ reference: random pages in random
// order, sequence lengths that end inside a page, an empty sequence, grouped
// query heads. -DTLC_T_F32: compiled with -D T=f32 (bf16 otherwise);
// -DSMALL: with -D D=32 -D G=2 -D PS=8. Each size runs the kernel
// paged_decode and the operation paged_decode_split_kv (split KV: a page or
// more per split, empty splits past a sequence's end, then the combine).
#include "check.h"
#include "paged_decode.h"
#include "paged_decode_split_kv.h"

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
constexpr int64_t D = 32, G = 2, PS = 8;
#else
constexpr int64_t D = 128, G = 4, PS = 16;
#endif

int main() {
  check::Checker checker;
  for (auto [B, Hkv, MaxLen] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                                {3, 2, 50},
                                {4, 1, 200},
                                {2, 3, 16}}) {
    const int64_t H = Hkv * G, MaxPages = (MaxLen + PS - 1) / PS;
    std::string size = check::sizeStr({B, H, Hkv, MaxLen});
    check::Rng rng("paged_decode" + size);
    std::vector<int64_t> lens(B);
    for (int64_t b = 0; b < B; ++b)
      lens[b] = b == 1 ? 0 : 1 + int64_t(rng.next() % MaxLen);
    // The pool: every sequence's pages, shuffled, plus two unused pages.
    int64_t pages = 2;
    for (int64_t len : lens)
      pages += (len + PS - 1) / PS;
    std::vector<int64_t> order(pages);
    std::iota(order.begin(), order.end(), 0);
    for (int64_t i = pages - 1; i > 0; --i)
      std::swap(order[i], order[rng.next() % (i + 1)]);
    check::Tensor<T> Q({B, H, D}, 1), K({pages, PS, Hkv, D}),
        V({pages, PS, Hkv, D}, 2), O({B, H, D}, 3), O2({B, H, D}, 1);
    check::Tensor<int32_t> Table({B, MaxPages}), Lens({B});
    Q.fillRandom(rng);
    K.fillRandom(rng);
    V.fillRandom(rng);
    O.poison();
    O2.poison();
    int64_t next = 0;
    for (int64_t b = 0; b < B; ++b) {
      Lens.set(b, float(lens[b]));
      for (int64_t p = 0; p < MaxPages; ++p)
        Table.set(b * MaxPages + p,
                  p * PS < lens[b] ? float(order[next++]) : -7.0f);
    }
    float scale = 1.0f / std::sqrt(float(D));
    bool ok = checker.launched(
        tlc::kernels::paged_decode(Q.view(), K.view(), V.view(), Table.view(),
                                   Lens.view(), scale, O.view()),
        "paged_decode", size);
    bool splitOk =
        checker.launched(tlc::kernels::paged_decode_split_kv(
                             Q.view(), K.view(), V.view(), Table.view(),
                             Lens.view(), scale, O2.view()),
                         "paged_decode_split_kv", size);
    if (!ok && !splitOk)
      continue;
    std::vector<double> ref(B * H * D, 0.0);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < H; ++h) {
        int64_t hk = h / G;
        std::vector<double> score(lens[b]);
        double mx = -INFINITY, sum = 0;
        auto at = [&](int64_t t, int64_t d) {
          int64_t page = int64_t(Table.get(b * MaxPages + t / PS));
          return ((page * PS + t % PS) * Hkv + hk) * D + d;
        };
        for (int64_t t = 0; t < lens[b]; ++t) {
          double s = 0;
          for (int64_t d = 0; d < D; ++d)
            s += double(Q.get((b * H + h) * D + d)) * K.get(at(t, d));
          score[t] = s * scale;
          mx = std::max(mx, score[t]);
        }
        for (int64_t t = 0; t < lens[b]; ++t)
          sum += score[t] = std::exp(score[t] - mx);
        for (int64_t t = 0; t < lens[b]; ++t)
          for (int64_t d = 0; d < D; ++d)
            ref[(b * H + h) * D + d] += score[t] / sum * V.get(at(t, d));
      }
    double tol = std::is_same_v<T, float> ? 1e-5 : 2e-2;
    if (ok)
      checker.compare("paged_decode", size, O, ref, tol);
    if (splitOk)
      checker.compare("paged_decode_split_kv", size, O2, ref, tol);
  }
  return checker.finish();
}
