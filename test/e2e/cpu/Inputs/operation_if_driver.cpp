// operation_if_driver.cpp: calls the operation `pick` of operation_if.tl
// on sizes that take each branch and prints what every element holds.
#include "pick.h"

#include <cstdio>
#include <vector>

static void run(int64_t n, int32_t limit, int32_t per, int32_t q = 0) {
  std::vector<int32_t> y(n, -1);
  tlc::Status s = tlc::kernels::pick(tlc::makeTensor(y.data(), TLC_I32, {n}),
                                     limit, per, q);
  if (!s.ok()) {
    std::printf("N=%lld limit=%d per=%d q=%d: error: %s\n", (long long)n, limit,
                per, q, s.message.c_str());
    return;
  }
  bool same = true;
  for (int32_t v : y)
    same &= v == y[0];
  std::printf("N=%lld limit=%d per=%d q=%d: %s %d\n", (long long)n, limit, per,
              q, same ? "all" : "MIXED", y[0]);
}

int main() {
  run(50, 200, 1000);       // N < 100
  run(150, 200, 1000);      // N < limit
  run(300, 200, 1000);      // else: put 2, add 10
  run(300, 200, 100);       // and N / per > 2: add 100
  run(50, 200, 10);         // first branch and the second if
  run(150, 200, 1000, 500); // and 1000 / q
  run(50, 200, 0);          // N / 0: an error before any launch
  return 0;
}
