// w4a16_driver.cpp: examples/w4a16_gemm.tl against a C++ reference on
// random packed u4 weights (check::PackedTensor: low nibble first, padded
// rows), scales and activations; ragged M, N and K (K a multiple of G).
// -DTLC_T_F32: compiled with -D T=f32 (bf16 otherwise); -DG64: -D G=64.
#include "check.h"
#include "w4a16_gemm.h"

#include <tuple>

#ifdef TLC_T_F32
using T = float;
#else
using T = check::bfloat16_t;
#endif
#ifdef G64
constexpr int64_t G = 64;
#else
constexpr int64_t G = 128;
#endif

int main() {
  check::Checker c;
  for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, G},
                         {1, 300, 4 * G},
                         {5, 130, 3 * G},
                         {33, 77, 2 * G},
                         {64, 256, 8 * G}}) {
    std::string size = check::sizeStr({M, N, K});
    check::Rng rng("w4a16" + size);
    check::Tensor<T> A({M, K}, 3), S({K / G, N}, 2), C({M, N}, 1);
    check::PackedTensor<false> Wq({N, K}, 10);
    A.fillRandom(rng);
    S.fillRandom(rng, 0.001f, 0.02f);
    Wq.fillRandom(rng);
    C.poison();
    if (!c.launched(tlc::kernels::w4a16_gemm(A.view(), Wq.view(), S.view(),
                                             C.view(), tlc::LaunchOptions(2)),
                    "w4a16_gemm", size))
      continue;
    std::vector<double> ref(M * N);
    for (int64_t n = 0; n < N; ++n) {
      std::vector<double> w(K);
      for (int64_t k = 0; k < K; ++k)
        w[k] = double(Wq.get(n * K + k) - 8) * S.get((k / G) * N + n);
      for (int64_t m = 0; m < M; ++m) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += double(A.get(m * K + k)) * w[k];
        ref[m * N + n] = acc;
      }
    }
    c.compare("w4a16_gemm", size, C, ref,
              std::is_same_v<T, float> ? 1e-5 : 1.5e-2);
  }
  return c.finish();
}
