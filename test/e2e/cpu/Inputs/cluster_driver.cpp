// cluster_driver.cpp: runs Inputs/cluster.tl's kernels: `pairs` against a
// reference on random data (N a multiple of the cluster's 128 elements,
// then N whose grid is not a multiple of the cluster: the stub refuses it)
// and `skips`, whose blocks do not all reach the reduction (the stub
// reports it instead of hanging). Prints "<case>: code=<code> <message>".
#include "check.h"
#include "pairs.h"
#include "skips.h"

#include <cstdio>

int main() {
  check::Checker checker;
  tlc::LaunchOptions options;
  if (const char *threads = std::getenv("CLUSTER_THREADS"))
    options.num_threads = std::atoi(threads);
  for (int64_t N : {128, 1024, 4096}) {
    std::string size = check::sizeStr({N});
    check::Rng rng("pairs" + size);
    check::Tensor<float> X({N}, 0), Max({N}, 0);
    check::Tensor<int32_t> I({N}, 0), Sum({N}, 0);
    X.fillRandom(rng, -5, 5);
    I.fillRandom(rng, -1000, 1000);
    Max.poison();
    Sum.poison();
    if (!checker.launched(tlc::kernels::pairs(X.view(), I.view(), Max.view(),
                                              Sum.view(), options),
                          "pairs", size))
      continue;
    std::vector<double> maxRef(N), sumRef(N);
    for (int64_t e = 0; e < N; ++e) {
      int64_t first = e / 128 * 128 + e % 64; // block 0's element of e
      maxRef[e] = std::max(X.get(first), X.get(first + 64));
      sumRef[e] = double(I.get(first)) + double(I.get(first + 64));
    }
    checker.compare("pairs.max", size, Max, maxRef, 0);
    checker.compare("pairs.sum", size, Sum, sumRef, 0);
  }
  {
    check::Tensor<float> X({150}, 0), Max({150}, 0);
    check::Tensor<int32_t> I({150}, 0), Sum({150}, 0);
    tlc::Status s = tlc::kernels::pairs(X.view(), I.view(), Max.view(),
                                        Sum.view(), options);
    std::printf("ragged-grid: code=%d %s\n", s.code, s.message.c_str());
  }
  {
    check::Tensor<float> X({64}, 0), Y({64}, 0);
    X.fill(1);
    tlc::Status s = tlc::kernels::skips(X.view(), Y.view(), options);
    std::printf("skipped-reduction: code=%d %s\n", s.code, s.message.c_str());
  }
  return checker.finish();
}
