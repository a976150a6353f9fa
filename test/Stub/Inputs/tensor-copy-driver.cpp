// Calls the CUDA stub of examples/gemm.tl (bf16, sm_90a: TMA entry and its
// fallback) on tensors that suit TMA and on tensors that do not; runs
// without a GPU through fake-libcuda-tensor-maps.cpp.
#include "gemm.h"

#include <cstdint>
#include <cstdio>

alignas(64) static uint16_t a[384 * 136], b[136 * 512], c[384 * 512];

static void run(const char *what, int64_t M, int64_t N, int64_t K, int64_t lda,
                int64_t aOffset = 0, int64_t ldc = 0) {
  tlc::TensorView A = tlc::makeTensor(a + aOffset, TLC_BF16, {M, K}, {lda, 1});
  tlc::TensorView B = tlc::makeTensor(b, TLC_BF16, {K, N});
  tlc::TensorView C = tlc::makeTensor(c, TLC_BF16, {M, N}, {ldc ? ldc : N, 1});
  tlc::Status st = tlc::kernels::gemm(A, B, C);
  std::printf("%s: %d %s\n", what, st.code, st.message.c_str());
}

int main() {
  run("aligned", 256, 512, 128, 128);
  run("again", 256, 512, 128, 128); // the cached maps
  run("rows of 120 bytes", 256, 512, 60, 60);
  run("aligned again", 256, 512, 128, 128);
  run("three rows of tiles", 384, 512, 128, 128); // no clusters of two rows
  // Eight more A tensors (128-byte steps): the maps of the last 8 tensors
  // per argument stay cached, so the first A is encoded again after them.
  for (int i = 1; i <= 8; ++i)
    run("rotating A", 256, 512, 128, 128, 64 * i);
  run("first A again", 256, 512, 128, 128);
  // C's rows 1030 bytes apart: the TMA entry loads A and B by tensor maps
  // and stores C from registers (store flag 0, C's map left zero).
  run("C rows of 1030 bytes", 256, 512, 128, 128, 0, 515);
  return 0;
}
