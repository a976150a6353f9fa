// errors_driver.cpp: launches examples/gemm.tl (f32) with bad arguments and
// prints the status code and message of each call, one line per case:
//   <case>: code=<code> <message>
// A failed launch must not touch the output; that is checked too. Built with
// -DFIXED_K=64 for a kernel compiled with -D K=64.
#include "check.h"
#include "gemm.h"

#include <cmath>
#include <cstdio>

namespace {
int failures = 0;

void report(const char *what, const tlc::Status &s) {
  std::printf("%s: code=%d %s\n", what, s.code, s.message.c_str());
}
} // namespace

int main() {
  const int64_t M = 4, N = 5, K = 6;
  std::vector<float> A(M * K, 1.0f), B(K * N, 1.0f), C(M * N);
  std::vector<uint16_t> A16(M * K);
  std::vector<float> big(64 * 64, 1.0f);
  auto launch = [&](const char *what, tlc::TensorView a, tlc::TensorView b,
                    tlc::TensorView c) {
    std::fill(C.begin(), C.end(), NAN);
    tlc::Status s = tlc::kernels::gemm(a, b, c);
    report(what, s);
    bool untouched =
        std::all_of(C.begin(), C.end(), [](float x) { return std::isnan(x); });
    if (!s.ok() && !untouched) {
      std::printf("FAIL %s: the output was written\n", what);
      ++failures;
    }
    return s;
  };
  auto a = tlc::makeTensor(A.data(), TLC_F32, {M, K});
  auto b = tlc::makeTensor(B.data(), TLC_F32, {K, N});
  auto c = tlc::makeTensor(C.data(), TLC_F32, {M, N});

#ifdef FIXED_K
  // K is fixed at compile time: 6 is wrong, FIXED_K is right.
  launch("fixed-K", a, b, c);
  std::vector<float> Ak(M * FIXED_K, 1.0f), Bk(FIXED_K * N, 1.0f);
  tlc::Status s =
      launch("fixed-K-ok", tlc::makeTensor(Ak.data(), TLC_F32, {M, FIXED_K}),
             tlc::makeTensor(Bk.data(), TLC_F32, {FIXED_K, N}), c);
  if (s.ok() && C[0] != float(FIXED_K)) {
    std::printf("FAIL fixed-K-ok: C[0] = %g\n", C[0]);
    ++failures;
  }
#else
  launch("ok", a, b, c);
  if (C[0] != float(K)) {
    std::printf("FAIL ok: C[0] = %g\n", C[0]);
    ++failures;
  }
  // Tensor checks, in argument order.
  launch("dtype", tlc::makeTensor(A16.data(), TLC_F16, {M, K}), b, c);
  launch("dtype-code", {A.data(), 42, 2, {M, K}, {K, 1}}, b, c);
  launch("rank", tlc::makeTensor(A.data(), TLC_F32, {1, M, K}), b, c);
  launch("rank-1", tlc::makeTensor(C.data(), TLC_F32, {M * N}), b, c);
  launch("rank-9", a, b,
         tlc::makeTensor(C.data(), TLC_F32, {1, 1, 1, 1, 1, 1, 1, M, N}));
  launch("strides-length", tlc::makeTensor(A.data(), TLC_F32, {M, K}, {K}), b,
         c);
  launch("negative-size", tlc::makeTensor(A.data(), TLC_F32, {-1, K}), b, c);
  launch("null-data", tlc::makeTensor(nullptr, TLC_F32, {M, K}), b, c);
  launch("misaligned",
         tlc::makeTensor(reinterpret_cast<char *>(big.data()) + 2, TLC_F32,
                         {M, K}),
         b, c);
  launch("inner-stride",
         tlc::makeTensor(big.data(), TLC_F32, {M, K}, {2 * K, 2}), b, c);
  launch("output-inner-stride", a, b,
         tlc::makeTensor(big.data(), TLC_F32, {M, N}, {2 * N, 2}));
  // Symbolic dimensions: bound from their first use, checked at the others.
  launch("K-mismatch", a, tlc::makeTensor(B.data(), TLC_F32, {K - 1, N}), c);
  launch("M-mismatch", a, b, tlc::makeTensor(C.data(), TLC_F32, {M - 1, N}));
  launch("N-mismatch", a, b, tlc::makeTensor(C.data(), TLC_F32, {M, N + 1}));
  // Valid but unusual: a row-padded view, an empty grid, K = 0 (C = 0).
  launch("padded-rows",
         tlc::makeTensor(big.data(), TLC_F32, {M, K}, {K + 3, 1}), b, c);
  launch("empty-M", tlc::makeTensor(A.data(), TLC_F32, {0, K}), b,
         tlc::makeTensor(C.data(), TLC_F32, {0, N}));
  tlc::Status s = launch("K=0", tlc::makeTensor(A.data(), TLC_F32, {M, 0}),
                         tlc::makeTensor(B.data(), TLC_F32, {0, N}), c);
  if (s.ok() &&
      !std::all_of(C.begin(), C.end(), [](float x) { return x == 0.0f; })) {
    std::printf("FAIL K=0: C is not all zero\n");
    ++failures;
  }

  // Outputs that certainly share memory with another tensor are refused
  // (same pointer, or one's first element inside the other's dense span);
  // row-interleaved views that do not share elements run.
  std::vector<float> pool(256, 1.0f);
  launch("overlap-same", tlc::makeTensor(pool.data(), TLC_F32, {M, K}), b,
         tlc::makeTensor(pool.data(), TLC_F32, {M, N}));
  launch("overlap-inside", tlc::makeTensor(pool.data(), TLC_F32, {M, K}), b,
         tlc::makeTensor(pool.data() + 3, TLC_F32, {M, N}));
  launch("overlap-B", a, tlc::makeTensor(pool.data() + 64, TLC_F32, {K, N}),
         tlc::makeTensor(pool.data() + 60, TLC_F32, {M, N}));
  s = tlc::kernels::gemm(
      tlc::makeTensor(pool.data(), TLC_F32, {M, K}, {16, 1}), b,
      tlc::makeTensor(pool.data() + 8, TLC_F32, {M, N}, {16, 1}));
  report("interleaved-rows", s);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j)
      if (pool[i * 16 + 8 + j] != float(K)) {
        std::printf("FAIL interleaved-rows: C[%lld, %lld] = %g\n", (long long)i,
                    (long long)j, pool[i * 16 + 8 + j]);
        ++failures;
      }

  // The C entry point: NULL tensors, message truncation, NULL buffer.
  char error[256];
  int rc = tlc_gemm(nullptr, &b, &c, nullptr, error, sizeof error);
  std::printf("C-null-tensor: code=%d %s\n", rc, error);
  tlc_tensor bad = b;
  bad.shape[0] = K + 1;
  char small[10];
  rc = tlc_gemm(&a, &bad, &c, nullptr, small, sizeof small);
  std::printf("C-truncated: code=%d '%s'\n", rc, small);
  rc = tlc_gemm(&a, &bad, &c, nullptr, nullptr, 0);
  std::printf("C-null-buffer: code=%d\n", rc);
  std::strcpy(error, "unchanged");
  rc = tlc_gemm(&a, &b, &c, nullptr, error, sizeof error);
  std::printf("C-ok: code=%d '%s'\n", rc, error);
#endif
  std::printf("%s\n", failures ? "FAILED" : "DONE");
  return failures ? 1 : 0;
}
