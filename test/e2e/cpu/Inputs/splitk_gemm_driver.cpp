// splitk_gemm_driver.cpp: checks examples/splitk_gemm.tl: C += A @ B with K
// split over blocks that add atomically (3 threads), C starting from random
// values; ragged sizes, more splits than K tiles. -DTLC_T_F32: the kernel
// was compiled with -D T=f32 (bf16 otherwise).
#include "check.h"
#include "splitk_gemm.h"

#include <tuple>

#ifdef TLC_T_F32
using T = float;
#else
using T = check::bfloat16_t;
#endif

int main() {
  check::Checker checker;
  for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {16, 64, 1000},
                         {37, 70, 129},
                         {5, 130, 64},
                         {64, 8, 3000}}) {
    std::string size = check::sizeStr({M, N, K});
    check::Rng rng("splitk_gemm" + size);
    check::Tensor<T> A({M, K}, 3), B({K, N}, 1);
    check::Tensor<float> C({M, N}, 2);
    A.fillRandom(rng);
    B.fillRandom(rng);
    C.fillRandom(rng);
    std::vector<double> ref = C.values();
    if (!checker.launched(tlc::kernels::splitk_gemm(A.view(), B.view(),
                                                    C.view(),
                                                    tlc::LaunchOptions(3)),
                          "splitk_gemm", size))
      continue;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k)
          s += double(A.get(i * K + k)) * B.get(k * N + j);
        ref[i * N + j] += s;
      }
    checker.compare("splitk_gemm", size, C, ref,
                    std::is_same_v<T, float> ? 1e-5 : 1e-2);
  }
  return checker.finish();
}
