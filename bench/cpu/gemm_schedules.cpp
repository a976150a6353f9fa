// gemm_schedules.cpp: a stand-alone model of CPU f32 GEMM loop schedules,
// all with the register-blocked micro-kernel that tlc's CPU gemm lowering
// emits (12 rows x 32 columns of C in AVX-512 registers, a row of B loaded
// and an element of A broadcast per k), against OpenBLAS in the same run.
// It is not tlc code: it measures which schedule the CPU lowering would have
// to produce to reach OpenBLAS (issue 11, deliverable 4; bench/RESULTS.md).
//
//   per-block: tlc's execution model today. One task per BM x BN block of C;
//     per BK step the block copies its A (BM x BK) and B (BK x BN) tiles
//     row-major and runs the micro-kernel over them into an f32 accumulator.
//   goto: the Goto/BLIS loop nest. Per KC slice a KC x NC panel of B is
//     packed once (NR-column micro-panels) and shared by all of M; per MC
//     rows an MC x KC block of A is packed (MR-row micro-panels); the
//     micro-kernel reads both packed operands and updates C in memory.
//
// Build (x86-64 with AVX-512):
//   g++ -O3 -march=native -std=c++17 bench/cpu/gemm_schedules.cpp \
//     -I/usr/include/x86_64-linux-gnu/openblas-pthread -lopenblas -pthread
// Run: ./a.out N THREADS [MC KC NC]   (N a multiple of 768; OpenBLAS at its
//   best here with OPENBLAS_CORETYPE=Cooperlake)
#include "bench_util.h"

#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

extern "C" void openblas_set_num_threads(int);

namespace {
constexpr int kMR = 12, kNR = 32;
constexpr int kBM = 192, kBN = 256, kBK = 128; // examples/gemm.tl on the CPU

/// C[12 x 32] (+)= A * B over k: `a(k, r)` and `b(k)` give the operands.
template <typename LoadA, typename LoadB>
void microKernel(int kc, LoadA a, LoadB b, float *c, int ldc, bool clear) {
  __m512 acc[kMR][2];
  for (int r = 0; r < kMR; ++r)
    for (int v = 0; v < 2; ++v)
      acc[r][v] =
          clear ? _mm512_setzero_ps() : _mm512_loadu_ps(c + r * ldc + 16 * v);
  for (int k = 0; k < kc; ++k) {
    const float *row = b(k);
    __m512 b0 = _mm512_loadu_ps(row), b1 = _mm512_loadu_ps(row + 16);
    for (int r = 0; r < kMR; ++r) {
      __m512 x = _mm512_set1_ps(a(k, r));
      acc[r][0] = _mm512_fmadd_ps(x, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(x, b1, acc[r][1]);
    }
  }
  for (int r = 0; r < kMR; ++r)
    for (int v = 0; v < 2; ++v)
      _mm512_storeu_ps(c + r * ldc + 16 * v, acc[r][v]);
}

struct Problem {
  int n;
  const float *A, *B;
  float *C;
};

/// tlc today: one BM x BN block, tiles copied every BK step.
void perBlock(const Problem &p, int bx, int by) {
  alignas(64) static thread_local float As[kBM * kBK], Bs[kBK * kBN],
      acc[kBM * kBN];
  int n = p.n;
  for (int k0 = 0; k0 < n; k0 += kBK) {
    for (int r = 0; r < kBM; ++r)
      std::memcpy(As + r * kBK, p.A + size_t(by * kBM + r) * n + k0, kBK * 4);
    for (int r = 0; r < kBK; ++r)
      std::memcpy(Bs + r * kBN, p.B + size_t(k0 + r) * n + bx * kBN, kBN * 4);
    // Column strips outer, row blocks inner, as the lowering walks them.
    for (int j = 0; j < kBN; j += kNR)
      for (int i = 0; i < kBM; i += kMR)
        microKernel(
            kBK, [&](int k, int r) { return As[(i + r) * kBK + k]; },
            [&](int k) { return Bs + k * kBN + j; }, acc + i * kBN + j, kBN,
            k0 == 0);
  }
  for (int r = 0; r < kBM; ++r)
    std::memcpy(p.C + size_t(by * kBM + r) * n + bx * kBN, acc + r * kBN,
                kBN * 4);
}

/// Goto/BLIS over the columns [j0, j1) of C.
void gotoColumns(const Problem &p, int j0, int j1, int mc, int kc, int nc) {
  int n = p.n;
  // Cache-line aligned, so the micro-panels' rows never straddle lines.
  auto allocate = [](size_t count) {
    return std::unique_ptr<float, decltype(&std::free)>(
        static_cast<float *>(std::aligned_alloc(64, count * 4)), &std::free);
  };
  auto packedAHolder = allocate(size_t(mc) * kc);
  auto packedBHolder = allocate(size_t(kc) * nc);
  float *packedA = packedAHolder.get(), *packedB = packedBHolder.get();
  for (int jc = j0; jc < j1; jc += nc) {
    int ncHere = std::min(nc, j1 - jc);
    for (int pc = 0; pc < n; pc += kc) {
      int kcHere = std::min(kc, n - pc);
      for (int j = 0; j < ncHere; j += kNR)
        for (int k = 0; k < kcHere; ++k)
          std::memcpy(&packedB[size_t(j) * kcHere + k * kNR],
                      p.B + size_t(pc + k) * n + jc + j, kNR * 4);
      for (int ic = 0; ic < n; ic += mc) {
        int mcHere = std::min(mc, n - ic);
        for (int i = 0; i < mcHere; i += kMR)
          for (int k = 0; k < kcHere; ++k)
            for (int r = 0; r < kMR; ++r)
              packedA[size_t(i) * kcHere + k * kMR + r] =
                  p.A[size_t(ic + i + r) * n + pc + k];
        for (int j = 0; j < ncHere; j += kNR)
          for (int i = 0; i < mcHere; i += kMR) {
            const float *a = &packedA[size_t(i) * kcHere];
            const float *b = &packedB[size_t(j) * kcHere];
            microKernel(
                kcHere, [&](int k, int r) { return a[k * kMR + r]; },
                [&](int k) { return b + k * kNR; },
                p.C + size_t(ic + i) * n + jc + j, n, pc == 0);
          }
      }
    }
  }
}

template <typename Fn> void parallel(int tasks, int threads, Fn fn) {
  std::atomic<int> next{0};
  auto worker = [&] {
    for (int i; (i = next++) < tasks;)
      fn(i);
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads; ++t)
    helpers.emplace_back(worker);
  worker();
  for (std::thread &t : helpers)
    t.join();
}

double maxRelDiff(const std::vector<float> &x, const std::vector<float> &y) {
  double worst = 0, scale = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    worst = std::max(worst, double(std::fabs(x[i] - y[i])));
    scale = std::max(scale, double(std::fabs(y[i])));
  }
  return worst / scale;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s N THREADS [MC KC NC]\n", argv[0]);
    return 2;
  }
  int n = std::atoi(argv[1]), threads = std::atoi(argv[2]);
  int mc = argc > 3 ? std::atoi(argv[3]) : 96;
  int kc = argc > 4 ? std::atoi(argv[4]) : 768;
  int nc = argc > 5 ? std::atoi(argv[5]) : n;
  if (n % 768 || mc % kMR || nc % kNR || threads < 1 || threads > 2) {
    std::fprintf(stderr, "N must be a multiple of 768, MC of 12, NC of 32; "
                         "1 or 2 threads\n");
    return 2;
  }
  std::vector<float> A(size_t(n) * n), B(size_t(n) * n), C(size_t(n) * n),
      R(size_t(n) * n);
  std::srand(1);
  for (float &x : A)
    x = std::rand() / float(RAND_MAX) - 0.5f;
  for (float &x : B)
    x = std::rand() / float(RAND_MAX) - 0.5f;
  Problem p{n, A.data(), B.data(), C.data()};
  double flops = 2.0 * n * n * n;
  openblas_set_num_threads(threads);

  double blas = medianSeconds(
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1,
                    A.data(), n, B.data(), n, 0, R.data(), n);
      },
      5);
  int gx = n / kBN, gy = n / kBM;
  double block = medianSeconds(
      [&] {
        parallel(gx * gy, threads, [&](int t) { perBlock(p, t % gx, t / gx); });
      },
      5);
  double blockDiff = maxRelDiff(C, R);
  // Two threads split the columns (each packs its own B panels).
  double gotoTime = medianSeconds(
      [&] {
        parallel(threads, threads, [&](int t) {
          gotoColumns(p, t * n / threads, (t + 1) * n / threads, mc, kc, nc);
        });
      },
      5);
  double gotoDiff = maxRelDiff(C, R);
  std::printf("N=%d threads=%d | OpenBLAS %.1f GFLOP/s | per-block %.1f "
              "(%.2fx, diff %.1e) | goto MC=%d KC=%d NC=%d %.1f (%.2fx, diff "
              "%.1e)\n",
              n, threads, flops / blas / 1e9, flops / block / 1e9, blas / block,
              blockDiff, mc, kc, nc, flops / gotoTime / 1e9, blas / gotoTime,
              gotoDiff);
  return 0;
}
