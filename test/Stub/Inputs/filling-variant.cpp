// Which variant tlc::runtime::fillingVariant picks
// (test/Stub/fill-occupancy.test).
#include "tlc/Runtime/tlc_runtime.h"

#include <cstdio>

int main() {
  // gemm bf16 on an H200's 132 SMs: 128x256, 64x128 and 32x64 tiles, of
  // which one SM holds 1, 2 and 4 blocks.
  const int64_t perUnit[3] = {1, 2, 4};
  const int64_t square[3] = {512, 2048, 8192}; // 4096^3
  const int64_t skinny[3] = {32, 64, 256};     // 64 x 8192 x 8192
  const int64_t mid[3] = {100, 400, 1600};     // 132 SMs need 132 of v0
  std::printf("square %d\n",
              tlc::runtime::fillingVariant(square, 3, 132, perUnit));
  std::printf("skinny %d\n",
              tlc::runtime::fillingVariant(skinny, 3, 132, perUnit));
  std::printf("mid %d\n", tlc::runtime::fillingVariant(mid, 3, 132, perUnit));
  // Without occupancies: 4 blocks per unit for every variant.
  std::printf("square-default %d\n",
              tlc::runtime::fillingVariant(square, 3, 132));
  std::printf("unknown-units %d\n",
              tlc::runtime::fillingVariant(skinny, 3, 0, perUnit));
  return 0;
}
