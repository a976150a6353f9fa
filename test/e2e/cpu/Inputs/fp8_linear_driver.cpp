// fp8_linear_driver.cpp: examples/fp8_quant.tl and examples/fp8_gemm.tl
// against C++ references (check.h's f8 formats) on ragged sizes, rows of
// very different magnitudes and an all-zero row; then the two together
// (quantize A, multiply with a quantized weight) against the f32 product.
// -DTLC_F8_E5M2: compiled with -D F=f8e5m2 -D Fmax=57344.0 (f8e4m3
// otherwise); -DTLC_T_F32: with -D T=f32 (bf16 otherwise).
#include "check.h"
#include "fp8_gemm.h"
#include "fp8_quant.h"

#include <cmath>
#include <tuple>

#ifdef TLC_F8_E5M2
using F = check::f8e5m2_t;
constexpr double kFmax = 57344.0;
#else
using F = check::f8e4m3_t;
constexpr double kFmax = 448.0;
#endif
#ifdef TLC_T_F32
using T = float;
#else
using T = check::bfloat16_t;
#endif
using check::Elem;

namespace {

/// Rows of X scaled by 10^(-3..3); row 1 all zero when there are 3 rows.
void fillRows(check::Tensor<T> &X, int64_t M, int64_t N, check::Rng &rng) {
  for (int64_t i = 0; i < M; ++i) {
    float rowScale = std::pow(10.0f, float(i % 7) - 3.0f);
    for (int64_t j = 0; j < N; ++j)
      X.set(i * N + j,
            M >= 3 && i == 1 ? 0.0f : rng.uniform(-1.f, 1.f) * rowScale);
  }
}

/// Checks Q and S of fp8_quant for X; returns whether they match.
bool checkQuant(check::Checker &c, const std::string &size,
                const check::Tensor<T> &X, const check::Tensor<F> &Q,
                const check::Tensor<float> &S, int64_t M, int64_t N) {
  int64_t badS = -1, badQ = -1;
  for (int64_t i = M; i-- > 0;) {
    float amax = 0;
    for (int64_t j = 0; j < N; ++j)
      amax = std::max(amax, std::fabs(X.get(i * N + j)));
    float s = amax > 0 ? float(amax / kFmax) : 1.0f;
    if (std::fabs(S.get(i) - s) > 1e-6f * s)
      badS = i;
    for (int64_t j = N; j-- > 0;) {
      float want = Elem<F>::toFloat(Elem<F>::fromFloat(X.get(i * N + j) / s));
      if (Q.get(i * N + j) != want)
        badQ = i * N + j;
    }
  }
  auto where = [](int64_t i) {
    return i < 0 ? std::string()
                 : " (first mismatch at " + std::to_string(i) + ")";
  };
  bool okS = c.expect(badS < 0 && S.guardsIntact(), "fp8_quant.scale",
                      size + where(badS));
  bool okQ = c.expect(badQ < 0 && Q.guardsIntact(), "fp8_quant.q",
                      std::string(Elem<F>::name) + " " + size + where(badQ));
  return okS && okQ;
}

/// A @ W^T in double for A [M, K] and W [N, K] of any stored types.
template <class SA, class SW>
std::vector<double> productABt(const check::Tensor<SA> &A,
                               const check::Tensor<SW> &W, int64_t M, int64_t N,
                               int64_t K) {
  std::vector<double> out(M * N);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += double(A.get(i * K + k)) * W.get(j * K + k);
      out[i * N + j] = acc;
    }
  return out;
}

} // namespace

int main() {
  check::Checker c;
  for (auto [M, N] : {std::tuple<int64_t, int64_t>{1, 1},
                      {5, 100},
                      {17, 1024},
                      {3, 3000},
                      {9, 2049}}) {
    std::string size = check::sizeStr({M, N});
    check::Rng rng("fp8_quant" + size);
    check::Tensor<T> X({M, N}, 3);
    check::Tensor<F> Q({M, N}, 5);
    check::Tensor<float> S({M});
    fillRows(X, M, N, rng);
    Q.poison(), S.poison();
    if (c.launched(tlc::kernels::fp8_quant(X.view(), Q.view(), S.view(),
                                           tlc::LaunchOptions(2)),
                   "fp8_quant", size))
      checkQuant(c, size, X, Q, S, M, N);
  }

  for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {37, 45, 70},
                         {128, 128, 256},
                         {130, 260, 129}}) {
    std::string size = check::sizeStr({M, N, K});
    check::Rng rng("fp8_gemm" + size);
    check::Tensor<F> A({M, K}, 4), W({N, K});
    check::Tensor<float> SA({M}), SB({N});
    check::Tensor<T> C({M, N}, 2);
    A.fillRandom(rng, -2.f, 2.f);
    W.fillRandom(rng, -2.f, 2.f);
    SA.fillRandom(rng, 0.01f, 1.f);
    SB.fillRandom(rng, 0.01f, 1.f);
    C.poison();
    if (!c.launched(tlc::kernels::fp8_gemm(A.view(), W.view(), SA.view(),
                                           SB.view(), C.view(),
                                           tlc::LaunchOptions(2)),
                    "fp8_gemm", size))
      continue;
    std::vector<double> ref = productABt(A, W, M, N, K);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        ref[i * N + j] *= SA.get(i) * SB.get(j);
    c.compare("fp8_gemm", size, C, ref, std::is_same_v<T, float> ? 1e-5 : 1e-2);
  }

  // Quantize activations and weights, multiply: close to the f32 product
  // (the error of two 8-bit roundings).
  {
    const int64_t M = 33, N = 70, K = 300;
    check::Rng rng("fp8_linear");
    check::Tensor<T> X({M, K}), Wt({N, K});
    check::Tensor<F> QX({M, K}), QW({N, K});
    check::Tensor<float> SX({M}), SW({N});
    check::Tensor<T> C({M, N});
    X.fillRandom(rng), Wt.fillRandom(rng);
    C.poison();
    bool ok =
        c.launched(tlc::kernels::fp8_quant(X.view(), QX.view(), SX.view()),
                   "fp8_linear.quant_x", "33x300") &&
        c.launched(tlc::kernels::fp8_quant(Wt.view(), QW.view(), SW.view()),
                   "fp8_linear.quant_w", "70x300") &&
        c.launched(tlc::kernels::fp8_gemm(QX.view(), QW.view(), SX.view(),
                                          SW.view(), C.view()),
                   "fp8_linear.gemm", "33x70x300");
    if (ok)
      c.compare("fp8_linear", "33x70x300", C, productABt(X, Wt, M, N, K),
                std::is_same_v<F, check::f8e4m3_t> ? 0.06 : 0.12);
  }
  return c.finish();
}
