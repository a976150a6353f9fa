// dims_driver.cpp: Inputs/dims.tl (dimensions given by expressions)
// against C++ references on ragged sizes, and the stub's checks of those
// dimensions: a mismatch names the expression and its value, a size that
// divides by zero is an error, not a crash.
#include "check.h"
#include "group_means.h"
#include "pairs.h"

#include <cstdio>
#include <tuple>

int main() {
  check::Checker c;
  for (auto [M, N] : {std::tuple<int64_t, int64_t>{5, 7}, {40, 100}}) {
    std::string size = check::sizeStr({M, N});
    check::Rng rng("pairs" + size);
    check::Tensor<float> X({2 * M, N}, 3), B({N / 4 + 1}), Y({M, N});
    X.fillRandom(rng);
    B.fillRandom(rng);
    Y.poison();
    if (!c.launched(tlc::kernels::pairs(X.view(), B.view(), Y.view()), "pairs",
                    size))
      continue;
    std::vector<double> ref(M * N);
    for (int64_t r = 0; r < M; ++r)
      for (int64_t col = 0; col < N; ++col)
        ref[r * N + col] = double(X.get(2 * r * N + col)) +
                           X.get((2 * r + 1) * N + col) + B.get(col / 4);
    c.compare("pairs", size, Y, ref, 1e-6);
  }
  for (auto [R, G] : {std::tuple<int64_t, int64_t>{10, 3}, {12, 4}}) {
    std::string size = check::sizeStr({R, G});
    check::Rng rng("means" + size);
    int64_t groups = (R + G - 1) / G;
    check::Tensor<float> X({R}), W({G}), Y({groups});
    X.fillRandom(rng);
    W.fillRandom(rng);
    Y.poison();
    if (!c.launched(tlc::kernels::group_means(X.view(), W.view(), Y.view()),
                    "group_means", size))
      continue;
    std::vector<double> ref(groups, 0.0);
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t i = 0; i < G && g * G + i < R; ++i)
        ref[g] += double(W.get(i)) * X.get(g * G + i);
    c.compare("group_means", size, Y, ref, 1e-6);
  }
  // The stub's checks.
  check::Tensor<float> X({9, 8}), B({3}), Y({4, 8}), V({5}), W({0}), Z({3});
  tlc::Status s = tlc::kernels::pairs(X.view(), B.view(), Y.view());
  std::printf("rows: %d %s\n", s.code, s.message.c_str());
  check::Tensor<float> X2({8, 8}), B2({2});
  s = tlc::kernels::pairs(X2.view(), B2.view(), Y.view());
  std::printf("bias: %d %s\n", s.code, s.message.c_str());
  s = tlc::kernels::group_means(V.view(), W.view(), Z.view());
  std::printf("zero: %d %s\n", s.code, s.message.c_str());
  return c.finish();
}
