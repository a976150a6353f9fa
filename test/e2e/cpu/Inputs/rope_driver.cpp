// rope_driver.cpp: checks examples/rope.tl (rotary embedding) against a C++
// reference on random data and tables, ragged sequence lengths, strided X.
// -DTLC_T_F32: the kernel was compiled with -D T=f32 (bf16 otherwise); -DD64:
// with -D D=64.
#include "check.h"
#include "rope.h"

#include <cmath>
#include <tuple>

#ifdef TLC_T_F32
using T = float;
#else
using T = check::bfloat16_t;
#endif
#ifdef D64
constexpr int64_t D = 64;
#else
constexpr int64_t D = 128;
#endif

int main() {
  check::Checker checker;
  for (auto [B, S, H] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {2, 37, 3},
                         {1, 64, 8},
                         {3, 5, 2}}) {
    std::string size = check::sizeStr({B, S, H, D});
    check::Rng rng("rope" + size);
    check::Tensor<T> X({B, S, H, D}, 5), Y({B, S, H, D}, 2);
    check::Tensor<float> Cos({S, D}, 1), Sin({S, D});
    X.fillRandom(rng);
    Y.poison();
    for (int64_t s = 0; s < S; ++s)
      for (int64_t j = 0; j < D / 2; ++j) {
        double freq = std::pow(10000.0, -2.0 * j / D);
        for (int64_t k : {j, j + D / 2}) {
          Cos.set(s * D + k, float(std::cos(s * freq)));
          Sin.set(s * D + k, float(std::sin(s * freq)));
        }
      }
    if (!checker.launched(tlc::kernels::rope(X.view(), Cos.view(), Sin.view(),
                                             Y.view(), tlc::LaunchOptions(2)),
                          "rope", size))
      continue;
    std::vector<double> ref(B * S * H * D);
    for (int64_t row = 0; row < B * S * H; ++row) {
      int64_t s = (row / H) % S;
      for (int64_t j = 0; j < D; ++j) {
        double x = X.get(row * D + j);
        double partner = j < D / 2 ? -double(X.get(row * D + j + D / 2))
                                   : double(X.get(row * D + j - D / 2));
        ref[row * D + j] =
            x * Cos.get(s * D + j) + partner * Sin.get(s * D + j);
      }
    }
    checker.compare("rope", size, Y, ref,
                    std::is_same_v<T, float> ? 1e-6 : 1e-2);
  }
  return checker.finish();
}
