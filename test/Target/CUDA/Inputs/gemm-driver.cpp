// Calls the CUDA stub of examples/gemm.tl (C++ and C API) on host buffers
// and prints the statuses; runs without a GPU (the launch fails cleanly, or
// goes to the stand-in libcuda of test/Stub/Inputs/fake-libcuda.cpp).
#include "gemm.h"

#include <cstdio>
#include <vector>

int main() {
  const int64_t M = 200, K = 64, N = 300;
  std::vector<float> a(M * K), b(K * N), c(M * N);
  tlc::TensorView A = tlc::makeTensor(a.data(), TLC_F32, {M, K});
  tlc::TensorView B = tlc::makeTensor(b.data(), TLC_F32, {K, N});
  tlc::TensorView C = tlc::makeTensor(c.data(), TLC_F32, {M, N});
  // Argument checks come first, whatever the driver can do.
  tlc::TensorView badB = tlc::makeTensor(b.data(), TLC_F32, {K + 1, N});
  tlc::Status st = tlc::kernels::gemm(A, badB, C);
  std::printf("bad: %d %s\n", st.code, st.message.c_str());
  st = tlc::kernels::gemm(A, B, C);
  std::printf("cxx: %d %s\n", st.code, st.message.c_str());
  char error[256];
  int rc = tlc_gemm(&A, &B, &C, nullptr, error, sizeof error);
  std::printf("c: %d %s\n", rc, error);
  return 0;
}
