// flash_attention_bwd_driver.cpp: checks examples/flash_attention_bwd.tl, the
// FlashAttention-2 backward pass, against a double reference. Per case it
// runs the forward (examples/flash_attention.tl: O and the log-sum-exp L),
// then the three backward launches (preprocess: Delta and a zeroed dQ
// accumulator; the main kernel: dK, dV and atomic adds into the
// accumulator; dq: the accumulator converted to T), and compares
//   Delta with sum_d dO * O over the forward's actual O (the preprocess
//         alone, f32 tolerance whatever T is);
//   dQ, dK, dV with the gradients of softmax attention computed in double
//         from the same (rounded) Q, K, V, dO,
// by the largest error relative to the largest reference magnitude. Build
// flags must match the kernels' compile-time parameters:
//   -DTLC_T_BF16   for -D T=bf16 (default f32, -D T=f32)
//   -DCAUSAL=1     for -D Causal=true
//   -DHEAD_DIM=64  for -D D=64
// The launch stubs are compiled into this file, found through -I: the
// forward's (flash_attn_fwd.cpp) and the backward's bundle (tlc --bundle:
// flash_attention_bwd.tlc.cpp, its three stubs). One translation unit instead
// of five halves the build of each configuration the test compiles (Metal's
// stubs are Objective-C++: .mm).
#include "check.h"
#ifdef TLC_CHECK_METAL
#include "flash_attention_bwd.tlc.mm"
#include "flash_attn_fwd.mm"
#else
#include "flash_attention_bwd.tlc.cpp"
#include "flash_attn_fwd.cpp"
#endif

#include <algorithm>
#include <tuple>

#ifdef TLC_T_BF16
using T = check::bfloat16_t;
// P and dS are rounded to bf16 before their gemms.
static const double kTol = 2e-2;
#else
using T = float;
static const double kTol = 1e-4;
#endif
#ifndef CAUSAL
#define CAUSAL 0
#endif
#ifndef HEAD_DIM
#define HEAD_DIM 64
#endif

// max |out - ref| / max |ref|; an unwritten (NaN) element or a write into
// the padding or guard fails the case.
template <class S>
static bool compareMax(check::Checker &checker, const std::string &name,
                       const std::string &size, const check::Tensor<S> &out,
                       const std::vector<double> &ref, double tol) {
  double maxDiff = 0, maxRef = 0;
  bool nan = false;
  for (int64_t i = 0; i < out.numel(); ++i) {
    double o = out.get(i);
    nan |= std::isnan(o);
    maxDiff = std::max(maxDiff, std::abs(o - ref[i]));
    maxRef = std::max(maxRef, std::abs(ref[i]));
  }
  double err = nan ? NAN : maxRef > 0 ? maxDiff / maxRef : maxDiff;
  bool guards = out.guardsIntact();
  char what[128];
  std::snprintf(what, sizeof what, "%s max_rel=%.3g%s", size.c_str(), err,
                err <= tol ? "" : " (over the tolerance)");
  return checker.expect(err <= tol && guards, name,
                        std::string(what) +
                            (guards ? "" : " (wrote outside the tensor)"));
}

int main() {
  check::Checker checker;
  const int64_t D = HEAD_DIM;
  // (B, H, S, row padding): S = 1, ragged tails of every block size, an
  // exact multiple; B * H > 1 but in the first; padding makes the tensors
  // row-strided.
  const std::tuple<int64_t, int64_t, int64_t, int64_t> cases[] = {
      {1, 1, 1, 0},
      {2, 1, 37, 0},
      {1, 2, 64, 2},
      {2, 1, 100, 3},
      {2, 2, 130, 1}};
  std::string name = std::string("flash_attn_bwd.") + check::Elem<T>::name +
                     (CAUSAL ? ".causal" : "");
  for (auto [B, H, S, pad] : cases) {
    std::string size = check::sizeStr({B, H, S, D});
    check::Rng rng(name + size);
    const std::vector<int64_t> shape = {B, H, S, D}, rows = {B, H, S};
    check::Tensor<T> Q(shape, pad), K(shape, pad), V(shape, pad), O(shape, pad),
        dO(shape, pad), dQ(shape, pad), dK(shape, pad), dV(shape, pad);
    check::Tensor<float> L(rows, pad), Delta(rows, pad), dQacc(shape, pad);
    // Scores of a few units (the softmax is neither flat nor one-hot); no
    // input is zero, so no gradient term vanishes by accident.
    Q.fillRandom(rng, -1.5f, 1.5f);
    K.fillRandom(rng, -1.5f, 1.5f);
    V.fillRandom(rng);
    dO.fillRandom(rng);
    // The preprocess must zero the accumulator, the others write the rest.
    for (auto *t : {&O, &dQ, &dK, &dV})
      t->poison();
    for (auto *t : {&L, &Delta, &dQacc})
      t->poison();
    if (!checker.launched(tlc::kernels::flash_attn_fwd(
                              Q.view(), K.view(), V.view(), O.view(), L.view()),
                          name + ".fwd", size) ||
        !checker.launched(tlc::kernels::flash_attn_bwd_preprocess(
                              O.view(), dO.view(), Delta.view(), dQacc.view()),
                          name + ".preprocess", size) ||
        !checker.launched(tlc::kernels::flash_attn_bwd(
                              Q.view(), K.view(), V.view(), dO.view(), L.view(),
                              Delta.view(), dQacc.view(), dK.view(), dV.view()),
                          name, size) ||
        !checker.launched(
            tlc::kernels::flash_attn_bwd_dq(dQacc.view(), dQ.view()),
            name + ".dq", size))
      continue;

    // The reference, one (batch, head) at a time, rows of S keys.
    const double scale = 1.0 / std::sqrt(double(D));
    std::vector<double> refDelta(B * H * S), refDQ(B * H * S * D, 0.0),
        refDK(B * H * S * D, 0.0), refDV(B * H * S * D, 0.0);
    std::vector<double> P(S * S), dS(S * S);
    for (int64_t bh = 0; bh < B * H; ++bh) {
      const int64_t base = bh * S * D;
      auto at = [&](const check::Tensor<T> &t, int64_t r, int64_t d) {
        return double(t.get(base + r * D + d));
      };
      for (int64_t i = 0; i < S; ++i) {
        // P[i, :] = softmax of the visible scaled scores, 0 elsewhere.
        const int64_t keys = CAUSAL ? i + 1 : S;
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < S; ++j) {
          double s = 0;
          for (int64_t d = 0; d < D; ++d)
            s += at(Q, i, d) * at(K, j, d);
          P[i * S + j] = j < keys ? s * scale : -INFINITY;
          mx = std::max(mx, P[i * S + j]);
        }
        for (int64_t j = 0; j < S; ++j)
          sum += P[i * S + j] = std::exp(P[i * S + j] - mx);
        for (int64_t j = 0; j < S; ++j)
          P[i * S + j] /= sum;
        // dP[i, j] = dO_i . V_j; Delta_i = sum_j P dP = dO_i . O_i.
        double delta = 0;
        for (int64_t j = 0; j < S; ++j) {
          double dp = 0;
          for (int64_t d = 0; d < D; ++d)
            dp += at(dO, i, d) * at(V, j, d);
          dS[i * S + j] = dp;
          delta += P[i * S + j] * dp;
        }
        for (int64_t j = 0; j < S; ++j)
          dS[i * S + j] = P[i * S + j] * (dS[i * S + j] - delta);
        // What the preprocess computes, from the forward's O.
        double od = 0;
        for (int64_t d = 0; d < D; ++d)
          od += at(O, i, d) * at(dO, i, d);
        refDelta[bh * S + i] = od;
      }
      for (int64_t i = 0; i < S; ++i)
        for (int64_t j = 0; j < S; ++j)
          for (int64_t d = 0; d < D; ++d) {
            refDQ[base + i * D + d] += dS[i * S + j] * at(K, j, d) * scale;
            refDK[base + j * D + d] += dS[i * S + j] * at(Q, i, d) * scale;
            refDV[base + j * D + d] += P[i * S + j] * at(dO, i, d);
          }
    }
    compareMax(checker, name + ".Delta", size, Delta, refDelta, 1e-5);
    compareMax(checker, name + ".dQ", size, dQ, refDQ, kTol);
    compareMax(checker, name + ".dK", size, dK, refDK, kTol);
    compareMax(checker, name + ".dV", size, dV, refDV, kTol);
  }
  return checker.finish();
}
