// ordering_driver.cpp: checks Inputs/ordering.tl (a block reads back what it
// wrote, and overwrites what it read) against a C++ reference on ragged
// sizes.
#include "check.h"
#include "roundtrip.h"

#include <utility>

int main() {
  check::Checker c;
  for (auto [M, N] :
       {std::pair<int64_t, int64_t>{37, 200}, {16, 64}, {100, 129}}) {
    std::string size = check::sizeStr({M, N});
    check::Rng rng("roundtrip" + size);
    check::Tensor<float> X({M, N}), Y({M, N}, 2), Z({M, N});
    X.fillRandom(rng);
    Y.fillRandom(rng);
    Z.poison();
    std::vector<double> ref(M * N);
    for (int64_t i = 0; i < M * N; ++i)
      ref[i] = double(Y.get(i)) + double(X.get(i));
    if (!c.launched(tlc::kernels::roundtrip(X.view(), Y.view(), Z.view()),
                    "roundtrip", size))
      continue;
    c.compare("roundtrip.Y", size, Y, ref, 1e-6);
    c.compare("roundtrip.Z", size, Z, ref, 1e-6);
  }
  return c.finish();
}
