// elementwise_driver.cpp: checks examples/elementwise.tl,
// Y = gelu(X + Bias) with Bias broadcast along the rows.
#include "bias_gelu.h"
#include "check.h"

#include <tuple>

int main() {
  check::Checker checker;
  // (M, N, row padding)
  const std::tuple<int64_t, int64_t, int64_t> cases[] = {
      {1, 1, 0},    {3, 5, 0},   {17, 200, 2}, {100, 257, 0},
      {64, 128, 0}, {257, 3, 1}, {130, 129, 0}};
  for (auto [M, N, pad] : cases) {
    std::string size = check::sizeStr({M, N});
    check::Rng rng("bias_gelu" + size);
    check::Tensor<float> X({M, N}, pad), Bias({N}), Y({M, N}, pad);
    X.fillRandom(rng, -4.0f, 4.0f);
    Bias.fillRandom(rng);
    Y.poison();
    if (!checker.launched(
            tlc::kernels::bias_gelu(X.view(), Bias.view(), Y.view()),
            "bias_gelu", size))
      continue;
    std::vector<double> ref(M * N);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double x = double(X.get(i * N + j)) + Bias.get(j);
        ref[i * N + j] = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
      }
    checker.compare("bias_gelu", size, Y, ref, 1e-5);
  }
  return checker.finish();
}
