// language_driver.cpp: checks the kernels of language.tl against plain C++.
#include "check.h"

#include "affine_blocks.h"
#include "f64_ops.h"
#include "gemm_tt.h"
#include "int_ops.h"
#include "var_loop.h"

#include <cmath>
#include <tuple>

int main() {
  check::Checker c;
  for (auto [M, N] : {std::tuple<int64_t, int64_t>{1, 1}, {9, 17}, {33, 40}}) {
    std::string size = check::sizeStr({M, N});
    check::Rng rng("affine" + size);
    check::Tensor<float> X({M, N}, 1), Y({M, N});
    X.fillRandom(rng);
    Y.poison();
    if (c.launched(tlc::kernels::affine_blocks(X.view(), Y.view()),
                   "affine_blocks", size)) {
      std::vector<double> ref(M * N);
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j)
          ref[i * N + j] =
              2.0 * X.get(i * N + j) + 1 + ((j / 16 + i / 8) % 2 ? 100 : 0);
      c.compare("affine_blocks", size, Y, ref, 1e-6);
    }
  }
  for (int64_t N : {1, 31, 100}) {
    std::string size = std::to_string(N);
    check::Rng rng("var" + size);
    check::Tensor<float> X({N}), Y({N});
    X.fillRandom(rng);
    Y.poison();
    if (c.launched(tlc::kernels::var_loop(X.view(), Y.view()), "var_loop",
                   size)) {
      std::vector<double> ref(N);
      for (int64_t i = 0; i < N; ++i)
        ref[i] = 6.0 * X.get(i);
      c.compare("var_loop", size, Y, ref, 1e-6);
    }
  }
  for (int64_t N : {1, 65, 200}) {
    std::vector<int32_t> A(N), Out(N, -12345);
    for (int64_t i = 0; i < N; ++i)
      A[i] = int32_t(i * 37 % 101) - 50;
    auto a = tlc::makeTensor(A.data(), TLC_I32, {N});
    auto o = tlc::makeTensor(Out.data(), TLC_I32, {N});
    bool ok = tlc::kernels::int_ops(a, o).ok();
    for (int64_t i = 0; i < N && ok; ++i) {
      int32_t v = A[i], r = (v % 7 == 0) ? v / 7 : (v > 0 ? -v : v * 3);
      ok = Out[i] == r;
    }
    c.expect(ok, "int_ops", std::to_string(N) + " exact");
  }
  for (int64_t N : {1, 17, 50}) {
    std::vector<double> A(N), Out(N, NAN);
    for (int64_t i = 0; i < N; ++i)
      A[i] = std::sin(double(i)) * 3;
    auto a = tlc::makeTensor(A.data(), TLC_F64, {N});
    auto o = tlc::makeTensor(Out.data(), TLC_F64, {N});
    bool ok = tlc::kernels::f64_ops(a, o).ok();
    for (int64_t i = 0; i < N && ok; ++i) {
      double r = std::exp(A[i]) * 0.5 + std::sqrt(std::fabs(A[i])) + double(i);
      ok = std::fabs(Out[i] - r) <= 1e-12 * std::fabs(r) + 1e-12;
    }
    c.expect(ok, "f64_ops", std::to_string(N) + " within 1e-12");
  }
  for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {17, 23, 13},
                         {32, 16, 24}}) {
    std::string size = check::sizeStr({M, N, K});
    check::Rng rng("gemm_tt" + size);
    check::Tensor<float> A({K, M}), B({N, K}), C({M, N});
    A.fillRandom(rng);
    B.fillRandom(rng);
    C.poison();
    if (c.launched(tlc::kernels::gemm_tt(A.view(), B.view(), C.view()),
                   "gemm_tt", size)) {
      std::vector<double> ref(M * N, 0.0);
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j)
          for (int64_t k = 0; k < K; ++k)
            ref[i * N + j] += double(A.get(k * M + i)) * B.get(j * K + k);
      c.compare("gemm_tt", size, C, ref, 1e-5);
    }
  }
  return c.finish();
}
