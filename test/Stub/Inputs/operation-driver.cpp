// Calls the operation `twice` of operation.tl through its CUDA stub (C++ and
// C API) with fake device pointers; prints the statuses.
#include "operation.tlc.h"

#include <cstdio>

int main() {
  void *x = reinterpret_cast<void *>(0x1000000);
  void *y = reinterpret_cast<void *>(0x2000000);
  tlc::TensorView X = tlc::makeTensor(x, TLC_F32, {100});
  tlc::TensorView Y = tlc::makeTensor(y, TLC_F32, {100});
  // The operation checks its own arguments before anything runs.
  tlc::TensorView bad = tlc::makeTensor(y, TLC_F32, {99});
  tlc::Status st = tlc::kernels::twice(X, bad, 2.0f);
  std::printf("bad: %d %s\n", st.code, st.message.c_str());
  st = tlc::kernels::twice(X, Y, 2.0f, tlc::LaunchOptions(0, (void *)0x5EA));
  std::printf("cxx: %d %s\n", st.code, st.message.c_str());
  char error[256];
  int rc = tlc_twice(&X, &Y, 0.5f, nullptr, error, sizeof error);
  std::printf("c: %d %s\n", rc, rc ? error : "");
  return 0;
}
