// grouped_gemm_driver.cpp: checks examples/grouped_gemm.tl: rows of A sorted
// by expert, C[r, :] = A[r, :] @ W[e]^T for the rows Offsets[e] ..
// Offsets[e + 1] - 1, on random splits that include empty experts and
// experts with fewer rows than a tile. Build with -DTLC_T_F32 for a kernel
// compiled with -D T=f32 (bf16 otherwise).
#include "check.h"
#include "grouped_gemm.h"

#include <algorithm>
#include <tuple>

#ifdef TLC_T_F32
using T = float;
#else
using T = check::bfloat16_t;
#endif

int main() {
  check::Checker checker;
  const std::tuple<int64_t, int64_t, int64_t, int64_t> cases[] = {
      {1, 1, 1, 1},     {5, 3, 7, 1},      {40, 17, 33, 3},
      {130, 70, 64, 4}, {300, 65, 100, 8}, {64, 128, 48, 16}};
  for (auto [M, N, K, E] : cases) {
    std::string size = check::sizeStr({M, N, K, E});
    check::Rng rng("grouped_gemm" + size);
    check::Tensor<T> A({M, K}, 2), W({E, N, K}, 1), C({M, N}, 3);
    check::Tensor<int32_t> Offsets({E + 1});
    A.fillRandom(rng);
    W.fillRandom(rng);
    C.poison();
    // A random split of M rows into E experts; about a third get none.
    std::vector<int64_t> cuts;
    for (int64_t e = 1; e < E; ++e)
      cuts.push_back(rng.next() % 3 == 0 ? (cuts.empty() ? 0 : cuts.back())
                                         : int64_t(rng.next() % (M + 1)));
    std::sort(cuts.begin(), cuts.end());
    Offsets.set(0, 0);
    for (int64_t e = 1; e < E; ++e)
      Offsets.set(e, float(cuts[e - 1]));
    Offsets.set(E, float(M));
    if (!checker.launched(tlc::kernels::grouped_gemm(A.view(), W.view(),
                                                     Offsets.view(), C.view(),
                                                     tlc::LaunchOptions(2)),
                          "grouped_gemm", size))
      continue;
    std::vector<double> ref(M * N, 0.0);
    for (int64_t e = 0; e < E; ++e)
      for (int64_t r = int64_t(Offsets.get(e)); r < int64_t(Offsets.get(e + 1));
           ++r)
        for (int64_t n = 0; n < N; ++n) {
          double s = 0;
          for (int64_t k = 0; k < K; ++k)
            s += double(A.get(r * K + k)) * W.get((e * N + n) * K + k);
          ref[r * N + n] = s;
        }
    checker.compare("grouped_gemm", size, C, ref,
                    std::is_same_v<T, float> ? 1e-5 : 1e-2);
  }
  return checker.finish();
}
