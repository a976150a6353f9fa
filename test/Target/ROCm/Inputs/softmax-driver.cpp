// Calls the ROCm stub of examples/softmax.tl (C++ and C API) on host buffers
// and prints the statuses; runs without a GPU (the launch fails cleanly, or
// goes to the stand-in libamdhip64 of fake-hip-2d.cpp).
#include "softmax.h"

#include <cstdio>
#include <vector>

int main() {
  const int64_t M = 200, N = 300;
  std::vector<float> x(M * N), y(M * 320);
  tlc::TensorView X = tlc::makeTensor(x.data(), TLC_F32, {M, N});
  tlc::TensorView Y = tlc::makeTensor(y.data(), TLC_F32, {M, N}, {320, 1});
  // Argument checks come first, whatever the runtime can do.
  tlc::TensorView badY = tlc::makeTensor(y.data(), TLC_F32, {M, N + 1});
  tlc::Status st = tlc::kernels::softmax(X, badY);
  std::printf("bad: %d %s\n", st.code, st.message.c_str());
  st = tlc::kernels::softmax(X, Y, tlc::LaunchOptions(0, (void *)0x5EA));
  std::printf("cxx: %d %s\n", st.code, st.message.c_str());
  char error[256];
  int rc = tlc_softmax(&X, &Y, nullptr, error, sizeof error);
  std::printf("c: %d %s\n", rc, error);
  return 0;
}
