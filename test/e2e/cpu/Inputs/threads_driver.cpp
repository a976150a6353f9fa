// threads_driver.cpp: a launch gives bit-identical results whatever the
// number of threads: 1 (every block on the calling thread), 3, the default
// (all hardware threads), through the C++ and the C entry points, and from
// two threads launching at the same time. Uses examples/gemm.tl built with
// small tiles so that the grid has many blocks.
#include "check.h"
#include "gemm.h"

#include <cstring>
#include <thread>

int main() {
  check::Checker checker;
  const int64_t M = 203, N = 197, K = 61;
  const std::string size = check::sizeStr({M, N, K});
  check::Rng rng("threads" + size);
  check::Tensor<float> A({M, K}), B({K, N});
  A.fillRandom(rng);
  B.fillRandom(rng);
  std::vector<double> ref(M * N, 0.0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j)
        ref[i * N + j] += double(A.get(i * K + k)) * B.get(k * N + j);

  auto same = [&](check::Tensor<float> &x, check::Tensor<float> &y) {
    return std::memcmp(x.data(), y.data(), sizeof(float) * M * N) == 0;
  };

  // One thread, C++ API.
  check::Tensor<float> C1({M, N});
  C1.poison();
  if (!checker.launched(tlc::kernels::gemm(A.view(), B.view(), C1.view(),
                                           tlc::LaunchOptions(1)),
                        "threads=1", size))
    return checker.finish();
  checker.compare("threads=1", size, C1, ref, 1e-5);

  // Three threads, C API.
  check::Tensor<float> C3({M, N});
  C3.poison();
  tlc_tensor a = A.view(), b = B.view(), c3 = C3.view();
  tlc_launch_options opts = {3, nullptr};
  char error[256] = "unchanged";
  int rc = tlc_gemm(&a, &b, &c3, &opts, error, sizeof error);
  checker.expect(rc == TLC_OK && error[0] == '\0', "threads=3",
                 "C API rc=" + std::to_string(rc) + " error='" + error + "'");
  checker.compare("threads=3", size, C3, ref, 1e-5);
  checker.expect(same(C1, C3), "threads=3", "identical to threads=1");

  // Default options: all hardware threads; C API with NULL options.
  check::Tensor<float> C0({M, N}), Cn({M, N});
  C0.poison();
  Cn.poison();
  checker.launched(tlc::kernels::gemm(A.view(), B.view(), C0.view()),
                   "threads=default", size);
  checker.expect(same(C1, C0), "threads=default", "identical to threads=1");
  tlc_tensor cn = Cn.view();
  rc = tlc_gemm(&a, &b, &cn, nullptr, nullptr, 0);
  checker.expect(rc == TLC_OK && same(C1, Cn), "options=NULL",
                 "identical to threads=1");

  // Two launches at once from two threads, 3 threads each.
  check::Tensor<float> Cx({M, N}), Cy({M, N});
  Cx.poison();
  Cy.poison();
  tlc::Status sx, sy;
  std::thread tx([&] {
    sx = tlc::kernels::gemm(A.view(), B.view(), Cx.view(),
                            tlc::LaunchOptions(3));
  });
  std::thread ty([&] {
    sy = tlc::kernels::gemm(A.view(), B.view(), Cy.view(),
                            tlc::LaunchOptions(3));
  });
  tx.join();
  ty.join();
  checker.expect(sx.ok() && sy.ok() && same(C1, Cx) && same(C1, Cy),
                 "concurrent", "two launches at once, identical to threads=1");
  return checker.finish();
}
