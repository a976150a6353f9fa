// gemm_driver.cpp: checks examples/gemm.tl, C = A @ B, against a double
// reference. Build with -DTLC_T_F16 (-DTLC_T_BF16) for a kernel compiled
// with -D T=f16 (bf16): 16-bit inputs and output, f32 accumulation; with
// -DTLC_LINEAR for examples/linear.tl, C = A @ W^T with W stored [N, K].
// -DTLC_THREAD_SWEEP runs every case on 1, 2, 3 and 5 threads (on the CPU
// a gemm's grid is split into one rectangle of blocks per thread when it
// splits evenly, tlc::runtime::splitGrid, else run block by block).
#include "check.h"
#ifdef TLC_LINEAR
#include "linear.h"
#else
#include "gemm.h"
#endif

#include <tuple>

#if defined(TLC_T_F16)
using T = check::half_t;
#elif defined(TLC_T_BF16)
using T = check::bfloat16_t;
#else
using T = float;
#endif

int main() {
  check::Checker checker;
  // (M, N, K, row padding): tiny, ragged and exact multiples of the default
  // 96x128x128 tiles; a padding > 0 makes every tensor row-strided.
  const std::tuple<int64_t, int64_t, int64_t, int64_t> cases[] = {
      {1, 1, 1, 0},       {3, 5, 7, 0},      {17, 33, 9, 3},
      {1, 257, 100, 0},   {100, 1, 257, 1},  {96, 128, 128, 0},
      {100, 130, 257, 5}, {257, 100, 64, 0}, {192, 256, 300, 2}};
#ifdef TLC_THREAD_SWEEP
  const int threadCounts[] = {1, 2, 3, 5};
#else
  const int threadCounts[] = {0}; // every hardware thread
#endif
  for (int threads : threadCounts)
    for (const auto &shape : cases) {
      // Plain variables: lambdas below capture them (C++17).
      int64_t M = std::get<0>(shape), N = std::get<1>(shape),
              K = std::get<2>(shape), pad = std::get<3>(shape);
      std::string size = check::sizeStr({M, N, K});
      if (threads)
        size += " threads=" + std::to_string(threads);
      tlc::LaunchOptions options(threads);
#ifdef TLC_LINEAR
      std::string name = std::string("linear.") + check::Elem<T>::name;
      check::Rng rng(name + size);
      check::Tensor<T> A({M, K}, pad), B({N, K}, pad), C({M, N}, pad);
      auto run = [&] {
        return tlc::kernels::linear(A.view(), B.view(), C.view(), options);
      };
      auto b = [&](int64_t k, int64_t j) { return B.get(j * K + k); };
#else
      std::string name = std::string("gemm.") + check::Elem<T>::name;
      check::Rng rng(name + size);
      check::Tensor<T> A({M, K}, pad), B({K, N}, pad), C({M, N}, pad);
      auto run = [&] {
        return tlc::kernels::gemm(A.view(), B.view(), C.view(), options);
      };
      auto b = [&](int64_t k, int64_t j) { return B.get(k * N + j); };
#endif
      A.fillRandom(rng);
      B.fillRandom(rng);
      C.poison();
      if (!checker.launched(run(), name, size))
        continue;
      std::vector<double> ref(M * N, 0.0);
      for (int64_t i = 0; i < M; ++i)
        for (int64_t k = 0; k < K; ++k) {
          double a = A.get(i * K + k);
          for (int64_t j = 0; j < N; ++j)
            ref[i * N + j] += a * b(k, j);
        }
      checker.compare(name, size, C, ref, check::Elem<T>::tol);
    }
  return checker.finish();
}
