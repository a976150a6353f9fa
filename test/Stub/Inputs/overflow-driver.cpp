// overflow-driver.cpp: sizes near INT64_MAX must give a clean status from the
// softmax stub (examples/softmax.tl), never a wrapped grid or address.
#include "softmax.h"

#include <cstdint>
#include <cstdio>

static void run(const char *what, int64_t rows, int64_t cols,
                int64_t rowStride) {
  static float x[16], y[16];
  tlc_tensor X = {x, TLC_F32, 2, {rows, cols}, {rowStride, 1}};
  tlc_tensor Y = {y, TLC_F32, 2, {rows, cols}, {rowStride, 1}};
  char err[256] = "";
  int rc = tlc_softmax(&X, &Y, nullptr, err, sizeof err);
  std::printf("%s: status %d '%s'\n", what, rc, err);
}

int main() {
  // tlc::cdiv is exact near INT64_MAX.
  std::printf("cdiv %lld %lld\n", (long long)tlc::cdiv(INT64_MAX, 64),
              (long long)tlc::cdiv(-7, 2));
  run("rows", INT64_MAX, 4, 4);
  run("extent", int64_t(1) << 62, 8, 8);
  run("stride", 2, 4, INT64_MIN);
  run("small", 2, 4, 4); // still runs
  return 0;
}
