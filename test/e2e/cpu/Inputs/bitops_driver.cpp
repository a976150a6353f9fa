// bitops_driver.cpp - bitops.tl against the same operators in C++ (unsigned
// arithmetic where C++ would overflow or shift a negative value).
#include "bitops.h"
#include "check.h"
#include "gridbits.h"
#include "gridwrap.h"

#include <cstdint>
#include <string>
#include <vector>

int main() {
  check::Checker c;
  const int64_t B = 64;
  for (int64_t N : {1, 37, 64, 200}) {
    check::Rng rng("bitops" + std::to_string(N));
    std::vector<int32_t> A(N), Out(N, -12345);
    std::vector<uint8_t> S(N), U(N, 0x5a);
    for (int64_t i = 0; i < N; ++i) {
      auto bits =
          uint32_t(int64_t(double(rng.uniform(0.f, 1.f)) * 4294967295.0));
      A[i] = int32_t(bits);
      S[i] = uint8_t(rng.uniform(0.f, 255.99f));
    }
    auto a = tlc::makeTensor(A.data(), TLC_I32, {N});
    auto s = tlc::makeTensor(S.data(), TLC_U8, {N});
    auto o = tlc::makeTensor(Out.data(), TLC_I32, {N});
    auto u = tlc::makeTensor(U.data(), TLC_U8, {N});
    bool ok = tlc::kernels::bitops(a, s, o, u).ok();
    int64_t bad = -1;
    for (int64_t g = 0; g < N && ok; ++g) {
      int64_t i = g % B;
      int32_t v = A[g];
      uint32_t shifted = uint32_t(v) << ((i % 40) & 31);
      uint32_t sum =
          ~shifted + (((v >> 28) & 7) == 3 ? 1u : 0u) + uint32_t((g >> 2) & 1);
      int32_t r = int32_t(uint32_t((v & 0xff) | (v >> 3)) ^ sum);
      uint8_t x = S[g];
      uint8_t ru = uint8_t(uint8_t((x >> 1) | uint8_t(x << 7)) ^
                           uint8_t(x << ((i % 11) & 7)));
      if (Out[g] != r || U[g] != ru)
        ok = false, bad = g;
    }
    c.expect(ok, "bitops",
             std::to_string(N) + " exact" +
                 (bad >= 0 ? " (first mismatch at " + std::to_string(bad) + ")"
                           : ""));
  }
  // The grid's bitwise operators, computed by the stub: as many blocks ran
  // as the device's own evaluation of the same expressions gives, and both
  // match C++ on the declared types (i32 arithmetic shift, u8 logical, the
  // amount modulo 32).
  struct GridCase {
    int32_t r;
    uint8_t m;
    int32_t sh;
  };
  for (GridCase g : {GridCase{1000, 0x40, 3}, GridCase{-77, 0xff, 3},
                     GridCase{0x7fffffff, 0, 34}, GridCase{-1, 0x1f, -30}}) {
    uint32_t amount = uint32_t(g.sh) & 31;
    int64_t gx = ((g.r >> amount) & 7) | 1;
    int64_t gy = uint8_t(uint8_t(~g.m) >> 5) ^ 2;
    int64_t gz = int64_t(int32_t(1u << ((uint32_t(g.sh) + 30u) & 31))) + 2;
    int32_t blocks = 0;
    int64_t extents[3] = {-1, -1, -1};
    auto b = tlc::makeTensor(&blocks, TLC_I32, {1});
    auto e = tlc::makeTensor(extents, TLC_I64, {3});
    bool ok = tlc::kernels::gridbits(b, e, g.r, g.m, g.sh).ok();
    std::string got = std::to_string(blocks) + " blocks, extents " +
                      std::to_string(extents[0]) + "x" +
                      std::to_string(extents[1]) + "x" +
                      std::to_string(extents[2]);
    c.expect(ok && blocks == gx * gy * gz && extents[0] == gx &&
                 extents[1] == gy && extents[2] == gz,
             "gridbits",
             "r=" + std::to_string(g.r) + " m=" + std::to_string(g.m) +
                 " sh=" + std::to_string(g.sh) + ": " + got + ", expected " +
                 std::to_string(gx * gy * gz));
  }
  // Narrow integer arithmetic wraps in the grid (u8 and i32).
  struct WrapCase {
    uint8_t s, m;
    int32_t r;
  };
  for (WrapCase w :
       {WrapCase{4, 0, 65537}, WrapCase{9, 3, -65535}, WrapCase{0, 1, 7}}) {
    int64_t gx = uint8_t(255u >> (w.s & 7));
    int64_t gy = uint8_t(w.m - 1u);
    int64_t gz = int32_t(uint32_t(w.r) * 65536u) >> 16;
    int32_t blocks = 0;
    int64_t extents[3] = {-1, -1, -1};
    auto b = tlc::makeTensor(&blocks, TLC_I32, {1});
    auto e = tlc::makeTensor(extents, TLC_I64, {3});
    bool ok = tlc::kernels::gridwrap(b, e, w.s, w.m, w.r).ok();
    int64_t expected = gx > 0 && gy > 0 && gz > 0 ? gx * gy * gz : 0;
    bool extentsOk = expected == 0 ||
                     (extents[0] == gx && extents[1] == gy && extents[2] == gz);
    c.expect(ok && blocks == expected && extentsOk, "gridwrap",
             "s=" + std::to_string(w.s) + " m=" + std::to_string(w.m) +
                 " r=" + std::to_string(w.r) + ": " + std::to_string(blocks) +
                 " blocks, expected " + std::to_string(expected));
  }
  return c.finish();
}
