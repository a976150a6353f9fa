// check.h - Shared helpers of the CPU end-to-end test drivers.
//
// A driver fills its inputs with random data (a fixed seed per case), poisons
// its outputs with NaN, runs a tlc-generated stub, compares the outputs with a
// plain C++ reference computed in double precision and prints one line per
// case:
//
//   PASS <name> <size> err=<relative error>
//   FAIL <name> <size> err=<relative error> tol=<tolerance> [what went wrong]
//
// The relative error is ||out - ref|| / ||ref|| (2-norms, in double). An
// unwritten output element stays NaN and fails the case. Tensors may be
// allocated with padded rows and a guard zone after the end; both are filled
// with a sentinel, and a write to them fails the case. Checker::finish()
// returns the exit code: 1 if any case failed.
#ifndef TLC_TEST_E2E_CHECK_H
#define TLC_TEST_E2E_CHECK_H

#include "tlc/Runtime/tlc_runtime.h"
#if defined(TLC_CHECK_VULKAN)
#include "tlc/Runtime/tlc_vulkan.h"
#include <cstdlib>
#define TLC_CHECK_DEVICE_MIRRORS
namespace check_device = tlc::vulkan;
#elif defined(TLC_CHECK_METAL)
#include "tlc/Runtime/tlc_metal.h"
#include <cstdlib>
#define TLC_CHECK_DEVICE_MIRRORS
namespace check_device = tlc::metal;
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace check {

//===--- 16-bit floating-point storage -----------------------------------===//

/// IEEE binary16, stored as its bits.
struct half_t {
  uint16_t bits;
};
/// bfloat16, stored as its bits.
struct bfloat16_t {
  uint16_t bits;
};

inline uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// float -> binary16, round to nearest even; overflow gives +-inf, NaN stays
/// NaN (quiet).
inline uint16_t floatToHalfBits(float f) {
  uint32_t u = bitsOf(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  u &= 0x7fffffffu;
  if (u > 0x7f800000u) // NaN
    return sign | 0x7e00u;
  if (u >= 0x477ff000u) // >= 65520 rounds to infinity
    return sign | 0x7c00u;
  uint32_t e = u >> 23; // biased float exponent
  if (e < 113) {        // below 2^-14: a subnormal half (or zero)
    if (e < 102)        // below 2^-25: rounds to zero
      return sign;
    uint32_t m = (u & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - e; // value in units of 2^-24 is m >> shift
    uint32_t q = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
      ++q; // may carry into the smallest normal, which is right
    return sign | static_cast<uint16_t>(q);
  }
  uint32_t mant = u & 0x7fffffu;
  uint32_t h = ((e - 112) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
    ++h; // a carry into the exponent is right too
  return sign | static_cast<uint16_t>(h);
}

inline float halfBitsToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu;
  uint32_t m = h & 0x3ffu;
  if (e == 0) { // zero or subnormal: m * 2^-24
    float v = std::ldexp(static_cast<float>(m), -24);
    return sign ? -v : v;
  }
  if (e == 31) // inf or NaN
    return floatOf(sign | 0x7f800000u | (m << 13));
  return floatOf(sign | ((e + 112) << 23) | (m << 13));
}

/// float -> bfloat16, round to nearest even; NaN stays NaN (quiet).
inline uint16_t floatToBf16Bits(float f) {
  uint32_t u = bitsOf(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

inline float bf16BitsToFloat(uint16_t h) {
  return floatOf(static_cast<uint32_t>(h) << 16);
}

//===--- Element types ----------------------------------------------------===//

/// What the driver needs to know about a storage type S: its tlc dtype,
/// conversions to and from float, a NaN, a sentinel bit pattern for guard
/// zones, and the default tolerance of a result stored as S.
template <class S> struct Elem;

template <> struct Elem<float> {
  static constexpr tlc_dtype dtype = TLC_F32;
  static constexpr const char *name = "f32";
  static constexpr double tol = 1e-5;
  static float toFloat(float x) { return x; }
  static float fromFloat(float x) { return x; }
  static float nan() { return floatOf(0x7fc00000u); }
  static float sentinel() { return floatOf(0x7fa5a5a5u); } // a signaling NaN
};

template <> struct Elem<half_t> {
  static constexpr tlc_dtype dtype = TLC_F16;
  static constexpr const char *name = "f16";
  static constexpr double tol = 1e-2;
  static float toFloat(half_t x) { return halfBitsToFloat(x.bits); }
  static half_t fromFloat(float x) { return half_t{floatToHalfBits(x)}; }
  static half_t nan() { return half_t{0x7e00u}; }
  static half_t sentinel() { return half_t{0x7da5u}; }
};

template <> struct Elem<bfloat16_t> {
  static constexpr tlc_dtype dtype = TLC_BF16;
  static constexpr const char *name = "bf16";
  static constexpr double tol = 1e-2;
  static float toFloat(bfloat16_t x) { return bf16BitsToFloat(x.bits); }
  static bfloat16_t fromFloat(float x) {
    return bfloat16_t{floatToBf16Bits(x)};
  }
  static bfloat16_t nan() { return bfloat16_t{0x7fc0u}; }
  static bfloat16_t sentinel() { return bfloat16_t{0x7fa5u}; }
};

/// The OCP 8-bit floats, decoded from their fields and encoded by search
/// over every code (nearest, ties to the even code, saturating to the
/// largest finite value): a reference independent of tlc's bit arithmetic.
template <int MantissaBits, int Bias, bool HasInf> struct F8Format {
  static float decode(uint8_t c) {
    int exponent = (c & 0x7f) >> MantissaBits;
    int mantissa = c & ((1 << MantissaBits) - 1);
    float sign = (c & 0x80) ? -1.0f : 1.0f;
    int top = 0x7f >> MantissaBits;
    if (HasInf && exponent == top)
      return mantissa ? std::nanf("") : sign * INFINITY;
    if (!HasInf && (c & 0x7f) == 0x7f)
      return std::nanf("");
    float scale = 1.0f;
    int e = exponent == 0 ? 1 - Bias : exponent - Bias;
    for (int i = 0; i < (e < 0 ? -e : e); ++i)
      scale = e < 0 ? scale / 2 : scale * 2;
    float fraction = float(mantissa) / float(1 << MantissaBits);
    return sign * scale * (exponent == 0 ? fraction : 1.0f + fraction);
  }
  static uint8_t encode(float x) {
    if (std::isnan(x))
      return HasInf ? 0x7e : 0x7f;
    uint8_t sign = std::signbit(x) ? 0x80 : 0;
    // Saturating: beyond the largest finite value (infinities too), that.
    double largest = decode(HasInf ? 0x7b : 0x7e);
    double a = std::min(std::fabs(double(x)), largest);
    uint8_t best = 0;
    double bestDist = INFINITY;
    for (int c = 0; c < 0x80; ++c) {
      double v = decode(uint8_t(c));
      if (std::isnan(v) || std::isinf(v))
        continue;
      double d = std::fabs(v - a);
      if (d < bestDist || (d == bestDist && (c & 1) == 0))
        best = uint8_t(c), bestDist = d;
    }
    return uint8_t(sign | best);
  }
};
using F8E4M3Format = F8Format<3, 7, false>;
using F8E5M2Format = F8Format<2, 15, true>;

struct f8e4m3_t {
  uint8_t bits;
};
struct f8e5m2_t {
  uint8_t bits;
};

template <> struct Elem<f8e4m3_t> {
  static constexpr tlc_dtype dtype = TLC_F8E4M3;
  static constexpr const char *name = "f8e4m3";
  static constexpr double tol = 7e-2;
  static float toFloat(f8e4m3_t x) { return F8E4M3Format::decode(x.bits); }
  static f8e4m3_t fromFloat(float x) {
    return f8e4m3_t{F8E4M3Format::encode(x)};
  }
  static f8e4m3_t nan() { return f8e4m3_t{0x7f}; }
  static f8e4m3_t sentinel() { return f8e4m3_t{0xff}; } // the other NaN
};

template <> struct Elem<f8e5m2_t> {
  static constexpr tlc_dtype dtype = TLC_F8E5M2;
  static constexpr const char *name = "f8e5m2";
  static constexpr double tol = 1.3e-1;
  static float toFloat(f8e5m2_t x) { return F8E5M2Format::decode(x.bits); }
  static f8e5m2_t fromFloat(float x) {
    return f8e5m2_t{F8E5M2Format::encode(x)};
  }
  static f8e5m2_t nan() { return f8e5m2_t{0x7e}; }
  static f8e5m2_t sentinel() { return f8e5m2_t{0xfd}; } // another NaN
};

template <> struct Elem<uint8_t> {
  static constexpr tlc_dtype dtype = TLC_U8;
  static constexpr const char *name = "u8";
  static constexpr double tol = 0;
  static float toFloat(uint8_t x) { return static_cast<float>(x); }
  static uint8_t fromFloat(float x) { return static_cast<uint8_t>(x); }
  static uint8_t nan() { return 0xff; }
  static uint8_t sentinel() { return 0xa5; }
};

template <> struct Elem<int32_t> {
  static constexpr tlc_dtype dtype = TLC_I32;
  static constexpr const char *name = "i32";
  static constexpr double tol = 0;
  static float toFloat(int32_t x) { return static_cast<float>(x); }
  static int32_t fromFloat(float x) { return static_cast<int32_t>(x); }
  static int32_t nan() { return INT32_MIN; }
  static int32_t sentinel() { return 0x5a5a5a5a; }
};

//===--- Random numbers ---------------------------------------------------===//

/// A seed from a case name, so every case has its own fixed data (FNV-1a).
inline uint64_t seedOf(const std::string &s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

/// splitmix64: small, fast and the same on every platform.
class Rng {
public:
  explicit Rng(uint64_t seed) : state(seed) {}
  explicit Rng(const std::string &name) : state(seedOf(name)) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi).
  float uniform(float lo, float hi) {
    double u = static_cast<double>(next() >> 11) * 0x1.0p-53;
    return static_cast<float>(lo + (hi - lo) * u);
  }

private:
  uint64_t state;
};

//===--- Device mirrors (Vulkan, Metal) -----------------------------------===//

#ifdef TLC_CHECK_DEVICE_MIRRORS
/// With -DTLC_CHECK_VULKAN (-DTLC_CHECK_METAL) the same drivers check
/// Vulkan (Metal) stubs: a view is a copy of the host tensor (padding and
/// guard included) in a buffer of the runtime's allocate, copied back when
/// the launch is reported.
struct DeviceMirror {
  void *host;
  size_t bytes;
  void *device;
};
inline std::vector<DeviceMirror> &deviceMirrors() {
  static std::vector<DeviceMirror> mirrors;
  return mirrors;
}
inline void *mirrorOnDevice(void *host, size_t bytes) {
  void *device = nullptr;
  tlc::Status s = check_device::allocate(bytes, device);
  if (s.ok())
    s = check_device::upload(device, host, bytes);
  if (!s.ok()) {
    std::printf("FAIL device buffer: %s\n", s.message.c_str());
    std::exit(1);
  }
  deviceMirrors().push_back({host, bytes, device});
  return device;
}
inline void copyMirrorsBack() {
  for (const DeviceMirror &m : deviceMirrors()) {
    check_device::download(m.host, m.device, m.bytes);
    check_device::release(m.device);
  }
  deviceMirrors().clear();
}
#endif

//===--- Host tensors -----------------------------------------------------===//

/// The view of a row-major buffer of `bytes` whose innermost rows are `ld`
/// elements apart (on the device under TLC_CHECK_DEVICE_MIRRORS).
inline tlc::TensorView rowPaddedView(void *data, size_t bytes, tlc_dtype dtype,
                                     const std::vector<int64_t> &shape,
                                     int64_t ld) {
  tlc::TensorView t{};
  t.data = data;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    t.shape[d] = shape[d];
    t.strides[d] = stride;
    stride *= d + 1 == shape.size() ? ld : shape[d];
  }
#ifdef TLC_CHECK_DEVICE_MIRRORS
  t.data = mirrorOnDevice(data, bytes);
#else
  (void)bytes;
#endif
  return t;
}

/// A host tensor in row-major order whose innermost rows may be padded by
/// `pad` elements (so strides[rank - 2] = shape[rank - 1] + pad), followed by
/// a guard zone. Padding and guard hold a sentinel that the kernel must not
/// overwrite. Elements are addressed by their logical row-major index.
template <class S> class Tensor {
public:
  explicit Tensor(std::vector<int64_t> shape, int64_t pad = 0)
      : shape_(std::move(shape)), pad_(shape_.size() > 1 ? pad : 0) {
    cols_ = shape_.empty() ? 1 : shape_.back();
    numel_ = 1;
    for (int64_t s : shape_)
      numel_ *= s;
    rows_ = 1;
    for (size_t d = 0; d + 1 < shape_.size(); ++d)
      rows_ *= shape_[d];
    ld_ = cols_ + pad_;
    buf_.assign(static_cast<size_t>(rows_ * ld_ + kGuard), Elem<S>::sentinel());
  }

  int64_t numel() const { return numel_; }
  const std::vector<int64_t> &shape() const { return shape_; }

  /// Storage offset of the logical element `i`.
  int64_t offset(int64_t i) const { return (i / cols_) * ld_ + i % cols_; }

  float get(int64_t i) const { return Elem<S>::toFloat(buf_[offset(i)]); }
  void set(int64_t i, float v) { buf_[offset(i)] = Elem<S>::fromFloat(v); }

  /// Logical elements uniform in [lo, hi), rounded to S.
  void fillRandom(Rng &rng, float lo = -1.0f, float hi = 1.0f) {
    for (int64_t i = 0; i < numel_; ++i)
      set(i, rng.uniform(lo, hi));
  }
  void fill(float v) {
    for (int64_t i = 0; i < numel_; ++i)
      set(i, v);
  }
  /// Every logical element becomes NaN (padding and guard keep the sentinel).
  void poison() {
    for (int64_t i = 0; i < numel_; ++i)
      buf_[offset(i)] = Elem<S>::nan();
  }

  /// The logical elements, in double.
  std::vector<double> values() const {
    std::vector<double> v(static_cast<size_t>(numel_));
    for (int64_t i = 0; i < numel_; ++i)
      v[i] = get(i);
    return v;
  }

  /// True if no padding or guard element was written.
  bool guardsIntact() const {
    S s = Elem<S>::sentinel();
    for (int64_t r = 0; r < rows_; ++r)
      for (int64_t c = cols_; c < ld_; ++c)
        if (std::memcmp(&buf_[r * ld_ + c], &s, sizeof s))
          return false;
    for (size_t i = static_cast<size_t>(rows_ * ld_); i < buf_.size(); ++i)
      if (std::memcmp(&buf_[i], &s, sizeof s))
        return false;
    return true;
  }

  S *data() { return buf_.data(); }

  /// The view passed to a stub.
  tlc::TensorView view() {
    return rowPaddedView(buf_.data(), buf_.size() * sizeof(S), Elem<S>::dtype,
                         shape_, ld_);
  }

private:
  static constexpr int64_t kGuard = 16;
  std::vector<int64_t> shape_;
  int64_t pad_, cols_, rows_, ld_, numel_;
  std::vector<S> buf_;
};

/// A host tensor of packed 4-bit integers (u4, or i4 when Signed), two per
/// byte along the innermost dimension (element 2c in the low nibble), whose
/// rows may be padded by `pad` elements (even), followed by a guard zone.
/// Padding and guard hold a sentinel byte that the kernel must not
/// overwrite.
template <bool Signed> class PackedTensor {
public:
  explicit PackedTensor(std::vector<int64_t> shape, int64_t pad = 0)
      : shape_(std::move(shape)), pad_(shape_.size() > 1 ? pad : 0) {
    cols_ = shape_.back();
    numel_ = 1;
    for (int64_t s : shape_)
      numel_ *= s;
    rows_ = numel_ / (cols_ ? cols_ : 1);
    ld_ = cols_ + pad_;
    buf_.assign(static_cast<size_t>(rows_ * ld_ / 2 + kGuard), kSentinel);
  }

  int64_t numel() const { return numel_; }

  /// Nibble position (in nibbles from the start) of the logical element i.
  int64_t offset(int64_t i) const { return (i / cols_) * ld_ + i % cols_; }

  float get(int64_t i) const {
    int64_t o = offset(i);
    int v = (buf_[o / 2] >> (4 * (o % 2))) & 15;
    return float(Signed && v >= 8 ? v - 16 : v);
  }
  /// Stores the low 4 bits of v (wrapping, as the kernels' conversions).
  void set(int64_t i, float v) {
    int64_t o = offset(i);
    int bits = int(v) & 15, shift = 4 * int(o % 2);
    buf_[o / 2] = uint8_t((buf_[o / 2] & ~(15 << shift)) | (bits << shift));
  }
  void fillRandom(Rng &rng) {
    for (int64_t i = 0; i < numel_; ++i)
      set(i, float(rng.next() % 16));
  }
  void fill(float v) {
    for (int64_t i = 0; i < numel_; ++i)
      set(i, v);
  }

  bool guardsIntact() const {
    for (int64_t r = 0; r < rows_; ++r)
      for (int64_t c = cols_; c < ld_; c += 2)
        if (buf_[(r * ld_ + c) / 2] != kSentinel)
          return false;
    for (size_t i = static_cast<size_t>(rows_ * ld_ / 2); i < buf_.size(); ++i)
      if (buf_[i] != kSentinel)
        return false;
    return true;
  }

  tlc::TensorView view() {
    return rowPaddedView(buf_.data(), buf_.size(), Signed ? TLC_I4 : TLC_U4,
                         shape_, ld_);
  }

private:
  static constexpr int64_t kGuard = 16;
  static constexpr uint8_t kSentinel = 0xa5;
  std::vector<int64_t> shape_;
  int64_t pad_, cols_, rows_, ld_, numel_;
  std::vector<uint8_t> buf_;
};

/// ||out - ref|| / ||ref|| in double (the absolute error norm if ref is all
/// zero). NaN in out gives NaN.
template <class TensorT>
double relError(const TensorT &out, const std::vector<double> &ref) {
  double num = 0, den = 0;
  for (int64_t i = 0; i < out.numel(); ++i) {
    double d = static_cast<double>(out.get(i)) - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  if (std::isnan(num))
    return NAN;
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

/// "3x5x7"
inline std::string sizeStr(std::initializer_list<int64_t> dims) {
  std::string s;
  for (int64_t d : dims)
    s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

//===--- Reporting --------------------------------------------------------===//

class Checker {
public:
  /// Reports a launch that failed; returns status.ok().
  bool launched(const tlc::Status &status, const std::string &name,
                const std::string &size) {
#ifdef TLC_CHECK_DEVICE_MIRRORS
    copyMirrorsBack();
#endif
    if (status.ok())
      return true;
    std::printf("FAIL %s %s status=%d: %s\n", name.c_str(), size.c_str(),
                status.code, status.message.c_str());
    ++failed;
    return false;
  }

  /// Compares out with ref and checks that out's padding and guard are intact.
  template <class TensorT>
  bool compare(const std::string &name, const std::string &size,
               const TensorT &out, const std::vector<double> &ref, double tol) {
    double err = relError(out, ref);
    bool guards = out.guardsIntact();
    bool ok = err <= tol && guards; // false for NaN
    std::printf("%s %s %s err=%.3g", ok ? "PASS" : "FAIL", name.c_str(),
                size.c_str(), err);
    if (!ok)
      std::printf(" tol=%.3g%s", tol,
                  guards ? "" : " (wrote outside the tensor)");
    std::printf("\n");
    ok ? ++passed : ++failed;
    return ok;
  }

  /// A check that is not a comparison of numbers.
  bool expect(bool ok, const std::string &name, const std::string &what) {
    std::printf("%s %s %s\n", ok ? "PASS" : "FAIL", name.c_str(), what.c_str());
    ok ? ++passed : ++failed;
    return ok;
  }

  /// Prints a summary; the exit code of the driver.
  int finish() {
    std::printf("%s: %d passed, %d failed\n", failed ? "FAILED" : "ALL PASSED",
                passed, failed);
    std::fflush(stdout);
    return failed ? 1 : 0;
  }

private:
  int passed = 0, failed = 0;
};

} // namespace check

#endif // TLC_TEST_E2E_CHECK_H
