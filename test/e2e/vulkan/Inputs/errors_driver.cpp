// errors_driver.cpp: what a Vulkan stub reports instead of launching
// (lavapipe): a kernel compiled for another subgroup size (SUBGROUP), a host
// pointer as tensor data (HOST) and a stride beyond 32 bits (STRIDE).
#include "tlc/Runtime/tlc_vulkan.h"

#include "softmax.h"

#include <cstdio>
#include <vector>

static void report(const char *what, const tlc::Status &s) {
  std::printf("%s: status=%d %s\n", what, s.code, s.message.c_str());
}

int main() {
  const int64_t M = 4, N = 8;
  void *x = nullptr, *y = nullptr;
  tlc::Status s = tlc::vulkan::allocate(M * N * 4, x);
  if (s.ok())
    s = tlc::vulkan::allocate(M * N * 4, y);
  if (!s.ok()) {
    report("allocate", s);
    return 1;
  }
  tlc::TensorView X = tlc::makeTensor(x, TLC_F32, {M, N});
  tlc::TensorView Y = tlc::makeTensor(y, TLC_F32, {M, N});
#if defined(TLC_SUBGROUP)
  report("SUBGROUP", tlc::kernels::softmax(X, Y));
#else
  std::vector<float> host(M * N);
  report("HOST", tlc::kernels::softmax(
                     tlc::makeTensor(host.data(), TLC_F32, {M, N}), Y));
  report("STRIDE",
         tlc::kernels::softmax(
             tlc::makeTensor(x, TLC_F32, {M, N}, {int64_t(1) << 31, 1}), Y));
  report("OK", tlc::kernels::softmax(X, Y));
#endif
  return 0;
}
