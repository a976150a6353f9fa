// conv2d_driver.cpp: checks examples/conv2d.tl (implicit-GEMM convolution,
// NHWC x KRSC -> NPQK) against a direct convolution in double: padding,
// strides, dilation, ragged channel counts. -DTLC_T_F32: compiled with
// -D T=f32 (bf16 otherwise); -DRS1: with -D R=1 -D S=1.
#include "check.h"
#include "conv2d.h"

#include <tuple>

#ifdef TLC_T_F32
using T = float;
#else
using T = check::bfloat16_t;
#endif
#ifdef RS1
constexpr int64_t R = 1, S = 1;
#else
constexpr int64_t R = 3, S = 3;
#endif

int main() {
  check::Checker checker;
  // N, H, W, C, K, stride, pad, dilation
  for (auto [N, H, W, C, K, st, pad, dil] :
       {std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int32_t,
                   int32_t, int32_t>{1, 1, 1, 1, 1, 1, 1, 1},
        {2, 9, 7, 3, 5, 1, 1, 1},
        {1, 16, 16, 17, 40, 2, 1, 1},
        {3, 10, 12, 8, 33, 1, 2, 2},
        {1, 5, 5, 64, 130, 1, 0, 1}}) {
    int64_t P = (H + 2 * pad - dil * (R - 1) - 1) / st + 1;
    int64_t Q = (W + 2 * pad - dil * (S - 1) - 1) / st + 1;
    if (P <= 0 || Q <= 0)
      continue;
    std::string size = check::sizeStr({N, H, W, C, K, st, pad, dil});
    check::Rng rng("conv2d" + size);
    check::Tensor<T> X({N, H, W, C}, 1), Wt({K, R * S * C}, 2),
        Y({N * P * Q, K}, 3);
    X.fillRandom(rng);
    Wt.fillRandom(rng);
    Y.poison();
    if (!checker.launched(tlc::kernels::conv2d(X.view(), Wt.view(), Y.view(),
                                               int32_t(P), int32_t(Q), st, st,
                                               pad, pad, dil, dil,
                                               tlc::LaunchOptions(2)),
                          "conv2d", size))
      continue;
    std::vector<double> ref(N * P * Q * K, 0.0);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t p = 0; p < P; ++p)
        for (int64_t q = 0; q < Q; ++q)
          for (int64_t k = 0; k < K; ++k) {
            double s = 0;
            for (int64_t r = 0; r < R; ++r)
              for (int64_t t = 0; t < S; ++t) {
                int64_t y = p * st - pad + r * dil, x = q * st - pad + t * dil;
                if (y < 0 || y >= H || x < 0 || x >= W)
                  continue;
                for (int64_t c = 0; c < C; ++c)
                  s += double(X.get(((n * H + y) * W + x) * C + c)) *
                       Wt.get(k * R * S * C + (r * S + t) * C + c);
              }
            ref[((n * P + p) * Q + q) * K + k] = s;
          }
    checker.compare("conv2d", size, Y, ref,
                    std::is_same_v<T, float> ? 1e-5 : 1e-2);
  }
  return checker.finish();
}
