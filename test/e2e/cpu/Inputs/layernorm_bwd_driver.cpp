// layernorm_bwd_driver.cpp: checks examples/layernorm_bwd.tl against the
// analytic gradient in double: dX from the saved row statistics, dW and dB
// accumulated onto random starting values by every row block (3 threads).
// Ragged sizes, rows narrower and wider than a tile, strided tensors.
// -DTLC_T_BF16: the kernel was compiled with -D T=bf16.
#include "check.h"
#include "layernorm_bwd.h"

#include <cmath>
#include <tuple>

#ifdef TLC_T_BF16
using T = check::bfloat16_t;
#else
using T = float;
#endif

int main() {
  check::Checker checker;
  for (auto [M, N] : {std::tuple<int64_t, int64_t>{1, 1},
                      {37, 100},
                      {16, 256},
                      {5, 1000},
                      {70, 513}}) {
    std::string size = check::sizeStr({M, N});
    check::Rng rng("layernorm_bwd" + size);
    check::Tensor<T> X({M, N}, 3), dY({M, N}, 1), W({N}), dX({M, N}, 2);
    check::Tensor<float> Mean({M}), Rstd({M}), dW({N}), dB({N});
    X.fillRandom(rng, -2, 3);
    dY.fillRandom(rng);
    W.fillRandom(rng);
    dW.fillRandom(rng);
    dB.fillRandom(rng);
    dX.poison();
    std::vector<double> mean(M), rstd(M);
    for (int64_t i = 0; i < M; ++i) {
      double s = 0, v = 0;
      for (int64_t j = 0; j < N; ++j)
        s += X.get(i * N + j);
      s /= N;
      for (int64_t j = 0; j < N; ++j)
        v += (X.get(i * N + j) - s) * (X.get(i * N + j) - s);
      Mean.set(i, float(s));
      Rstd.set(i, float(1.0 / std::sqrt(v / N + 1e-5)));
      mean[i] = Mean.get(i);
      rstd[i] = Rstd.get(i);
    }
    std::vector<double> dw = dW.values(), db = dB.values(), dx(M * N);
    if (!checker.launched(tlc::kernels::layernorm_bwd(
                              X.view(), dY.view(), W.view(), Mean.view(),
                              Rstd.view(), dX.view(), dW.view(), dB.view(),
                              tlc::LaunchOptions(3)),
                          "layernorm_bwd", size))
      continue;
    for (int64_t i = 0; i < M; ++i) {
      double c1 = 0, c2 = 0;
      for (int64_t j = 0; j < N; ++j) {
        double xhat = (X.get(i * N + j) - mean[i]) * rstd[i];
        double g = double(dY.get(i * N + j)) * W.get(j);
        c1 += g * xhat;
        c2 += g;
        dw[j] += double(dY.get(i * N + j)) * xhat;
        db[j] += dY.get(i * N + j);
      }
      c1 /= N;
      c2 /= N;
      for (int64_t j = 0; j < N; ++j) {
        double xhat = (X.get(i * N + j) - mean[i]) * rstd[i];
        double g = double(dY.get(i * N + j)) * W.get(j);
        dx[i * N + j] = rstd[i] * (g - c2 - xhat * c1);
      }
    }
    bool f32 = std::is_same_v<T, float>;
    checker.compare("layernorm_bwd.dx", size, dX, dx, f32 ? 1e-5 : 1e-2);
    checker.compare("layernorm_bwd.dw", size, dW, dw, f32 ? 1e-5 : 1e-4);
    checker.compare("layernorm_bwd.db", size, dB, db, 1e-5);
  }
  return checker.finish();
}
