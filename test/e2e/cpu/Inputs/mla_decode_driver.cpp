// mla_decode_driver.cpp: examples/mla_decode.tl (split-KV latent attention
// decode, then the combine) against a double-precision reference on random
// data: ragged head counts, sequences of 1 token, shorter than a split's
// share, and longer than the cache stride; several splits empty.
// -DTLC_SMALL: compiled with -D T=f32 -D D=72 -D DV=64 -D Splits=4 (bf16,
// D = 576, DV = 512, 8 splits otherwise). The kernels run one by one with
// the caller's scratch, then as the operation mla_decode (one call, scratch
// allocated by its stub).
#include "check.h"
#include "mla_combine.h"
#include "mla_decode.h"
#include "mla_decode_split.h"

#include <cmath>
#include <tuple>

#ifdef TLC_SMALL
using T = float;
constexpr int64_t D = 72, DV = 64, Splits = 4;
#else
using T = check::bfloat16_t;
constexpr int64_t D = 576, DV = 512, Splits = 8;
#endif

int main() {
  check::Checker c;
  for (auto [B, H, S] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {2, 20, 300},
                         {3, 16, 77},
                         {1, 128, 64}}) {
    std::string size = check::sizeStr({B, H, S, D});
    check::Rng rng("mla" + size);
    check::Tensor<T> Q({B, H, D}, 2), KV({B, S, D}, 3), O({B, H, DV}),
        O2({B, H, DV});
    check::Tensor<int32_t> Lengths({B});
    check::Tensor<float> Opart({B, H, Splits, DV}), Lpart({B, H, Splits});
    Q.fillRandom(rng), KV.fillRandom(rng);
    for (int64_t b = 0; b < B; ++b) // 1, the whole cache, something between
      Lengths.set(b, b == 0 ? std::min<int64_t>(S, 1 + S / 3) : b == 1 ? S : 1);
    O.poison();
    O2.poison();
    float scale = float(1.0 / std::sqrt(double(D)));
    bool ok =
        c.launched(tlc::kernels::mla_decode_split(
                       Q.view(), KV.view(), Lengths.view(), Opart.view(),
                       Lpart.view(), scale, tlc::LaunchOptions(2)),
                   "mla_decode_split", size) &&
        c.launched(tlc::kernels::mla_combine(Opart.view(), Lpart.view(),
                                             O.view(), tlc::LaunchOptions(2)),
                   "mla_combine", size);
    bool opOk = c.launched(
        tlc::kernels::mla_decode(Q.view(), KV.view(), Lengths.view(), O2.view(),
                                 scale, tlc::LaunchOptions(2)),
        "mla_decode (operation)", size);
    if (!ok && !opOk)
      continue;
    std::vector<double> ref(B * H * DV);
    for (int64_t b = 0; b < B; ++b) {
      int64_t len = int64_t(Lengths.get(b));
      for (int64_t h = 0; h < H; ++h) {
        std::vector<double> sc(len);
        double mx = -INFINITY, total = 0;
        for (int64_t t = 0; t < len; ++t) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += double(Q.get((b * H + h) * D + d)) *
                   KV.get((b * S + t) * D + d);
          sc[t] = dot * scale;
          mx = std::max(mx, sc[t]);
        }
        for (int64_t t = 0; t < len; ++t)
          total += sc[t] = std::exp(sc[t] - mx);
        for (int64_t d = 0; d < DV; ++d) {
          double acc = 0;
          for (int64_t t = 0; t < len; ++t)
            acc += sc[t] * KV.get((b * S + t) * D + d);
          ref[(b * H + h) * DV + d] = acc / total;
        }
      }
    }
    double tol = std::is_same_v<T, float> ? 1e-5 : 2e-2;
    if (ok)
      c.compare("mla_decode", size, O, ref, tol);
    if (opOk)
      c.compare("mla_decode_op", size, O2, ref, tol);
  }
  return c.finish();
}
