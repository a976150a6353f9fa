// operation_tuned_driver.cpp: quad (Inputs/operation_tuned.tl) = 4 * X
// through a scratch tensor and two launches of the tuned kernel scale.
#include "operation_tuned.tlc.h"

#include <cstdio>
#include <vector>

int main() {
  for (int n : {100, 100000, 7}) {
    std::vector<float> x(n), y(n, -1.0f);
    for (int i = 0; i < n; ++i)
      x[i] = float(i % 1000) - 3.5f;
    tlc::Status s = tlc::kernels::quad(tlc::makeTensor(x.data(), TLC_F32, {n}),
                                       tlc::makeTensor(y.data(), TLC_F32, {n}));
    bool ok = s.ok();
    for (int i = 0; i < n; ++i)
      ok &= y[i] == 4.0f * x[i];
    std::printf("%s quad %d %s\n", ok ? "PASS" : "FAIL", n, s.message.c_str());
  }
  return 0;
}
