// math_driver.cpp: math builtins of math.tl against libm on special values,
// negative bases of pow and large arguments of sin/cos.
#include "check.h"

#include "abs_u8.h"
#include "ceil_f16.h"
#include "math_f32.h"
#include "u8_convert.h"

#include <cmath>
#include <limits>

static bool close(double got, double want, double rel) {
  if (std::isnan(want))
    return std::isnan(got);
  if (std::isinf(want))
    return got == want;
  return std::fabs(got - want) <= rel * std::max(1.0, std::fabs(want));
}

int main() {
  check::Checker c;
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> X = {-2,     -2,        -3,         0,      nan,  1,
                          -1,     -inf,      2,          7,      0.5f, 1234.5f,
                          123450, 1.2345e7f, 1.2345e14f, -0.75f, 3};
  std::vector<float> E = {3, 2,  -1, 0,    0, nan, inf, 3,   15,
                          2, 10, 1,  0.5f, 2, 1,   3,   0.5f};
  int64_t n = X.size();
  std::vector<std::vector<float>> out(5, std::vector<float>(n, -12345));
  auto t = [&](std::vector<float> &v) {
    return tlc::makeTensor(v.data(), TLC_F32, {n});
  };
  bool ok = tlc::kernels::math_f32(t(X), t(E), t(out[0]), t(out[1]), t(out[2]),
                                   t(out[3]), t(out[4]))
                .ok();
  bool powOk = ok, trigOk = ok, expOk = ok;
  for (int64_t i = 0; i < n && ok; ++i) {
    powOk &= close(out[0][i], std::pow(X[i], E[i]), 1e-6);
    trigOk &= close(out[1][i], std::sin(X[i]), 1e-6) &&
              close(out[2][i], std::cos(X[i]), 1e-6);
    expOk &= close(out[3][i], std::exp(std::min(X[i], 80.0f)), 1e-6) &&
             close(out[4][i], std::tanh(X[i]), 1e-6);
    if (!powOk || !trigOk || !expOk) {
      std::printf("  at x=%g e=%g: pow %g sin %g cos %g exp %g tanh %g\n", X[i],
                  E[i], out[0][i], out[1][i], out[2][i], out[3][i], out[4][i]);
      break;
    }
  }
  c.expect(powOk, "pow", "negative bases, 0^0, nan, inf match libm");
  c.expect(trigOk, "sin/cos", "large arguments match libm");
  c.expect(expOk, "exp/tanh", "approximations within 1e-6");

  std::vector<uint16_t> H;
  for (float v : {nan, -inf, inf, 0.5f, -0.5f, 1000.5f})
    H.push_back(check::floatToHalfBits(v));
  std::vector<uint16_t> HY(H.size());
  int64_t hn = H.size();
  ok = tlc::kernels::ceil_f16(tlc::makeTensor(H.data(), TLC_F16, {hn}),
                              tlc::makeTensor(HY.data(), TLC_F16, {hn}))
           .ok();
  for (int64_t i = 0; i < hn && ok; ++i) {
    float x = check::halfBitsToFloat(H[i]), y = check::halfBitsToFloat(HY[i]);
    ok = close(y, std::ceil(x), 0);
  }
  c.expect(ok, "ceil_f16", "nan and inf stay nan and inf");

  std::vector<uint8_t> U = {0, 1, 100, 127, 128, 200, 255, 3}, UY(U.size());
  int64_t un = U.size();
  ok = tlc::kernels::abs_u8(tlc::makeTensor(U.data(), TLC_U8, {un}),
                            tlc::makeTensor(UY.data(), TLC_U8, {un}))
           .ok() &&
       UY == U;
  c.expect(ok, "abs_u8", "abs of unsigned values is the value");

  std::vector<uint8_t> UX(37), UY2(37);
  std::vector<float> UF(37);
  for (size_t i = 0; i < UX.size(); ++i)
    UX[i] = uint8_t(i * 7 + 3);
  int64_t n8 = UX.size();
  ok = tlc::kernels::u8_convert(tlc::makeTensor(UX.data(), TLC_U8, {n8}),
                                tlc::makeTensor(UF.data(), TLC_F32, {n8}),
                                tlc::makeTensor(UY2.data(), TLC_U8, {n8}))
           .ok();
  for (int64_t i = 0; i < n8 && ok; ++i)
    ok = UF[i] == float(UX[i]) &&
         UY2[i] == uint8_t(float(UX[i]) * 0.5f + 100.0f);
  c.expect(ok, "u8_convert", "u8 <-> f32 copies are unsigned");
  return c.finish();
}
