// colsum_driver.cpp: checks examples/colsum.tl, Out[j] = sum_i X[i, j].
#include "check.h"
#include "colsum.h"

#include <tuple>

int main() {
  check::Checker checker;
  // (M, N, row padding): many row tiles (M up to 1000), ragged both ways.
  const std::tuple<int64_t, int64_t, int64_t> cases[] = {
      {1, 1, 0},     {3, 5, 0},    {17, 33, 1},  {100, 257, 0},
      {257, 100, 3}, {1000, 7, 0}, {64, 128, 0}, {128, 1, 0}};
  for (auto [M, N, pad] : cases) {
    std::string size = check::sizeStr({M, N});
    check::Rng rng("colsum" + size);
    check::Tensor<float> X({M, N}, pad), Out({N});
    X.fillRandom(rng);
    Out.poison();
    if (!checker.launched(tlc::kernels::colsum(X.view(), Out.view()), "colsum",
                          size))
      continue;
    std::vector<double> ref(N, 0.0);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        ref[j] += X.get(i * N + j);
    checker.compare("colsum", size, Out, ref, 1e-5);
  }
  return checker.finish();
}
