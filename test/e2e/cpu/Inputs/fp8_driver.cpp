// fp8_driver.cpp - fp8.tl against check.h's reference f8 formats: every
// code decoded, rounding of ties, subnormals, saturation, infinities, NaN
// and signed zero, on ragged sizes. -DTLC_F8_E5M2 when F is f8e5m2 (and G
// f8e4m3).
#include "check.h"
#include "f8_convert.h"
#include "f8_elements.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#ifdef TLC_F8_E5M2
using F = check::f8e5m2_t;
using G = check::f8e4m3_t;
#else
using F = check::f8e4m3_t;
using G = check::f8e5m2_t;
#endif
using check::Elem;

namespace {

/// Same value, NaNs alike (the two formats spell NaN differently).
bool sameF8(float got, float want) {
  return (std::isnan(got) && std::isnan(want)) ||
         (got == want && std::signbit(got) == std::signbit(want));
}

/// Inputs that probe the rounding: specials, every code, the midpoints
/// between neighbouring codes (ties) and just beside them, random values
/// over the whole range and near zero.
std::vector<float> probeValues(int64_t n, check::Rng &rng) {
  std::vector<float> v = {0.0f,     -0.0f,  NAN,    INFINITY, -INFINITY,
                          1e30f,    -1e30f, 1e-30f, -1e-30f,  448.0f,
                          57344.0f, 480.0f, 464.0f, 61440.0f, 1e-3f};
  for (int c = 0; c < 0x7f; ++c) {
    float a = Elem<F>::toFloat(F{uint8_t(c)});
    float b = Elem<F>::toFloat(F{uint8_t(c + 1)});
    if (std::isnan(a) || std::isnan(b) || std::isinf(b))
      continue;
    float mid = (a + b) / 2; // exact in f32
    for (float x :
         {a, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)})
      v.push_back(x), v.push_back(-x);
  }
  while ((int64_t)v.size() < n)
    v.push_back(v.size() % 3 ? rng.uniform(-600.f, 600.f)
                             : rng.uniform(-0.02f, 0.02f));
  v.resize(n);
  return v;
}

std::string firstBad(int64_t i) {
  return i < 0 ? "" : " (first mismatch at " + std::to_string(i) + ")";
}

} // namespace

int main() {
  check::Checker c;
  for (int64_t n : {1, 37, 200, 1500}) {
    std::string size = std::to_string(n);
    check::Rng rng("fp8" + size);
    std::vector<float> x = probeValues(n, rng);
    check::Tensor<float> X({n}), Y({n});
    check::Tensor<F> Q({n}), Z({n});
    for (int64_t i = 0; i < n; ++i)
      X.set(i, x[i]);
    Q.poison(), Y.poison(), Z.poison();
    if (c.launched(
            tlc::kernels::f8_convert(X.view(), Q.view(), Y.view(), Z.view()),
            "f8_convert", size)) {
      int64_t badQ = -1, badY = -1, badZ = -1;
      for (int64_t i = n; i-- > 0;) {
        float want = Elem<F>::toFloat(Elem<F>::fromFloat(x[i]));
        if (!sameF8(Q.get(i), want))
          badQ = i;
        if (!sameF8(Y.get(i), want))
          badY = i;
        if (!sameF8(Z.get(i), want))
          badZ = i;
      }
      c.expect(badQ < 0 && Q.guardsIntact(), "f8_convert.q",
               std::string(Elem<F>::name) + " " + size + firstBad(badQ));
      c.expect(badY < 0 && Y.guardsIntact(), "f8_convert.widen",
               size + firstBad(badY));
      c.expect(badZ < 0 && Z.guardsIntact(), "f8_convert.store",
               size + firstBad(badZ));
    }
  }
  for (int64_t n : {256, 300, 1027}) {
    std::string size = std::to_string(n);
    check::Tensor<F> Q({n}), V({n});
    check::Tensor<float> W({n});
    check::Tensor<G> U({n});
    for (int64_t i = 0; i < n; ++i)
      Q.data()[i] = F{uint8_t(i * 7 % 256)}; // every code (7 is odd)
    W.poison(), V.poison(), U.poison();
    if (!c.launched(
            tlc::kernels::f8_elements(Q.view(), W.view(), V.view(), U.view()),
            "f8_elements", size))
      continue;
    int64_t badW = -1, badV = -1, badU = -1;
    for (int64_t i = n; i-- > 0;) {
      float q = Q.get(i);
      if (!sameF8(W.get(i), q))
        badW = i;
      float v = 2.0f * q - 1.0f;
      if (!sameF8(V.get(i), Elem<F>::toFloat(Elem<F>::fromFloat(v))))
        badV = i;
      if (!sameF8(U.get(i), Elem<G>::toFloat(Elem<G>::fromFloat(q))))
        badU = i;
    }
    c.expect(badW < 0 && W.guardsIntact(), "f8_elements.decode",
             size + firstBad(badW));
    c.expect(badV < 0 && V.guardsIntact(), "f8_elements.arith",
             size + firstBad(badV));
    c.expect(badU < 0 && U.guardsIntact(), "f8_elements.other",
             std::string(Elem<G>::name) + " " + size + firstBad(badU));
  }
  return c.finish();
}
