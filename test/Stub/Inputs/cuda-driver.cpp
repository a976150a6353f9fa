// Calls the CUDA stub of cuda-stub.tl's scale_rows (C++ and C API) and
// prints the statuses; runs without a GPU.
#include "scale_rows.h"

#include <cstdio>

int main() {
  static float x[4 * 8], s[4], y[4 * 8];
  tlc::TensorView X = tlc::makeTensor(x, TLC_F32, {4, 8});
  tlc::TensorView S = tlc::makeTensor(s, TLC_F32, {4});
  tlc::TensorView Y = tlc::makeTensor(y, TLC_F32, {4, 8}, {16, 1});
  // Argument checks come first, whatever the driver can do.
  tlc::TensorView bad = tlc::makeTensor(s, TLC_F32, {3});
  tlc::Status st = tlc::kernels::scale_rows(X, bad, Y, 2.0f);
  std::printf("bad: %d %s\n", st.code, st.message.c_str());
  for (int i = 0; i < 2; ++i) {
    st = tlc::kernels::scale_rows(X, S, Y, 2.0f,
                                  tlc::LaunchOptions(0, (void *)0x5EA));
    std::printf("cxx: %d %s\n", st.code, st.message.c_str());
  }
  char error[256];
  int rc = tlc_scale_rows(&X, &S, &Y, 0.5f, nullptr, error, sizeof error);
  std::printf("c: %d %s\n", rc, error);
  return 0;
}
