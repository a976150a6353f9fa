// Runs the kernels of this project against plain C++ references.
#include "bias_act.tlc.h" // every kernel of kernels/bias_act.tl
#include "gemm.h"         // or one kernel's header
#include "row_sum.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const std::string &what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  if (!ok)
    ++failures;
}

bool close(const std::vector<float> &got, const std::vector<float> &want,
           float tol) {
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= tol * (1 + std::fabs(want[i]))))
      return false;
  return true;
}

std::vector<float> random(size_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-2, 2);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

} // namespace

int main() {
  std::mt19937 rng(7);
  const int64_t M = 100, N = 75; // not multiples of the tiles

  // bias_gelu and bias_silu: functions imported from common/activations.tl.
  std::vector<float> X = random(M * N, rng), Bias = random(N, rng);
  std::vector<float> Y(M * N), gelu(M * N), silu(M * N);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float v = X[i * N + j] + Bias[j];
      gelu[i * N + j] = 0.5f * v * (1 + std::erf(v * 0.70710678f));
      silu[i * N + j] = v / (1 + std::exp(-v));
    }
  auto x = tlc::makeTensor(X.data(), TLC_F32, {M, N});
  auto b = tlc::makeTensor(Bias.data(), TLC_F32, {N});
  auto y = tlc::makeTensor(Y.data(), TLC_F32, {M, N});
  tlc::Status s = tlc::kernels::bias_gelu(x, b, y);
  check(s.ok() && close(Y, gelu, 1e-4f), "bias_gelu " + s.message);
  s = tlc::kernels::bias_silu(x, b, y);
  check(s.ok() && close(Y, silu, 1e-4f), "bias_silu " + s.message);

  // row_sum through the C entry point, at row counts that the tuned stub
  // (kernels/row_sum.tuning.json) sends to different variants.
  for (int64_t rows : {int64_t(3), M, int64_t(3001)}) {
    std::vector<float> R = random(rows * N, rng);
    std::vector<float> S(rows), sums(rows);
    for (int64_t i = 0; i < rows; ++i) {
      double sum = 0;
      for (int64_t j = 0; j < N; ++j)
        sum += R[i * N + j];
      sums[i] = static_cast<float>(sum * 0.5);
    }
    tlc_tensor cx = tlc::makeTensor(R.data(), TLC_F32, {rows, N});
    tlc_tensor cs = tlc::makeTensor(S.data(), TLC_F32, {rows});
    char error[256];
    int rc = tlc_row_sum(&cx, &cs, 0.5f, nullptr, error, sizeof error);
    check(rc == TLC_OK && close(S, sums, 1e-4f),
          "row_sum M=" + std::to_string(rows) + " " + error);
  }

  // gemm, compiled with DEFINES BM=32 BN=32 BK=32 K=64.
  const int64_t K = 64;
  std::vector<float> A = random(M * K, rng), B = random(K * N, rng);
  std::vector<float> C(M * N), ref(M * N);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < K; ++k)
        sum += double(A[i * K + k]) * B[k * N + j];
      ref[i * N + j] = static_cast<float>(sum);
    }
  auto a = tlc::makeTensor(A.data(), TLC_F32, {M, K});
  auto bb = tlc::makeTensor(B.data(), TLC_F32, {K, N});
  auto c = tlc::makeTensor(C.data(), TLC_F32, {M, N});
  s = tlc::kernels::gemm(a, bb, c);
  check(s.ok() && close(C, ref, 1e-3f), "gemm " + s.message);
  // K is fixed by the DEFINES: another K is rejected.
  auto a2 = tlc::makeTensor(A.data(), TLC_F32, {M / 2, 2 * K});
  auto b2 = tlc::makeTensor(B.data(), TLC_F32, {2 * K, N / 2});
  auto c2 = tlc::makeTensor(C.data(), TLC_F32, {M / 2, N / 2});
  s = tlc::kernels::gemm(a2, b2, c2);
  check(!s.ok() && s.message.find("K = 64") != std::string::npos,
        "gemm rejects K = 128: " + s.message);

  if (failures) {
    std::printf("%d FAILED\n", failures);
    return 1;
  }
  std::printf("ALL PASSED\n");
  return 0;
}
