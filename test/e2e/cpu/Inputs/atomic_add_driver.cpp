// atomic_add_driver.cpp: checks colsum_split (examples/colsum.tl):
// Out[j] += sum_i X[i, j], with row blocks adding concurrently (3 threads).
#include "check.h"
#include "colsum_split.h"

#include <tuple>

int main() {
  check::Checker checker;
  const std::tuple<int64_t, int64_t> cases[] = {
      {1, 1}, {3, 5}, {17, 33}, {100, 257}, {257, 100}, {1000, 7}, {640, 128}};
  for (auto [M, N] : cases) {
    std::string size = check::sizeStr({M, N});
    check::Rng rng("colsum_split" + size);
    check::Tensor<float> X({M, N}, 0), Out({N});
    X.fillRandom(rng);
    Out.fillRandom(rng); // inout: the sums are added to what is there
    std::vector<double> ref(N);
    for (int64_t j = 0; j < N; ++j)
      ref[j] = Out.get(j);
    if (!checker.launched(tlc::kernels::colsum_split(X.view(), Out.view(),
                                                     tlc::LaunchOptions(3)),
                          "colsum_split", size))
      continue;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        ref[j] += X.get(i * N + j);
    checker.compare("colsum_split", size, Out, ref, 1e-5);
  }
  return checker.finish();
}
