// padding_driver.cpp: checks Inputs/padding.tl (windows that start before
// the tensor) against C++ references: shifts by row and column offsets
// that are and are not multiples of a vector, larger than a tile, and 0;
// a store window that starts before its tensor must not write there (W
// is a view inside a larger tensor whose margin is checked). -DTLC_T_BF16:
// compiled with -D T=bf16.
#include "check.h"
#include "conv1d.h"
#include "shift.h"

#include <tuple>

#ifdef TLC_T_BF16
using T = check::bfloat16_t;
#else
using T = float;
#endif

// shift's default tile.
constexpr int64_t BM = 16, BN = 32;

int main() {
  check::Checker c;
  for (auto [M, N, P, Q] :
       {std::tuple<int64_t, int64_t, int, int>{40, 70, 3, 5},
        {33, 64, 0, 8},
        {50, 100, 17, 40},
        {16, 32, 0, 0}}) {
    std::string size = check::sizeStr({M, N, P, Q});
    check::Rng rng("shift" + size);
    constexpr int64_t margin = 48; // around W, in its parent tensor
    check::Tensor<T> X({M, N}, 3), Y({M, N}), Z({M, N}, 2), C({M});
    check::Tensor<T> Big({M + 2 * margin, N + 2 * margin});
    X.fillRandom(rng);
    Y.poison();
    Z.poison();
    C.poison();
    Big.fill(7.0f);
    tlc::TensorView W = Big.view();
    int64_t ld = W.strides[0];
    W.data = static_cast<char *>(W.data) + (margin * ld + margin) * sizeof(T);
    W.shape[0] = M, W.shape[1] = N;
    if (!c.launched(tlc::kernels::shift(X.view(), Y.view(), W, Z.view(),
                                        C.view(), P, Q),
                    "shift", size))
      continue;
    std::vector<double> refY(M * N), refBig(Big.numel(), 7.0), refC(M);
    for (int64_t r = 0; r < M; ++r)
      refC[r] = r - P >= 0 ? double(X.get((r - P) * N)) : 0.0;
    for (int64_t r = 0; r < M; ++r)
      for (int64_t col = 0; col < N; ++col) {
        int64_t sr = r - P, sc = col - Q;
        refY[r * N + col] =
            sr >= 0 && sc >= 0 ? double(X.get(sr * N + sc)) : 0.0;
        // W[r, col] = X[r + P, col + Q] where a block's tile covers that
        // element of X (zero past X's end: the tile read zeros there).
        int64_t tr = r + P, tc = col + Q;
        if (tr < (M + BM - 1) / BM * BM && tc < (N + BN - 1) / BN * BN)
          refBig[(r + margin) * (N + 2 * margin) + col + margin] =
              tr < M && tc < N ? double(X.get(tr * N + tc)) : 0.0;
      }
    c.compare("shift.load", size, Y, refY, 0.0);
    c.compare("shift.slices", size, Z, refY, 0.0);
    c.compare("shift.column", size, C, refC, 0.0);
    c.compare("shift.store", size, Big, refBig, 0.0);
  }
  for (auto [B, N, R] : {std::tuple<int64_t, int64_t, int64_t>{3, 200, 5},
                         {5, 64, 5},
                         {2, 7, 5}}) {
    std::string size = check::sizeStr({B, N, R});
    check::Rng rng("conv1d" + size);
    check::Tensor<T> X({B, N}, 4), Y({B, N});
    check::Tensor<float> Wt({R});
    X.fillRandom(rng);
    Wt.fillRandom(rng);
    Y.poison();
    if (!c.launched(tlc::kernels::conv1d(X.view(), Wt.view(), Y.view()),
                    "conv1d", size))
      continue;
    std::vector<double> ref(B * N, 0.0);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < N; ++i)
        for (int64_t k = 0; k < R; ++k) {
          int64_t j = i + k - R / 2;
          if (j >= 0 && j < N)
            ref[b * N + i] += double(Wt.get(k)) * X.get(b * N + j);
        }
    c.compare("conv1d", size, Y, ref, std::is_same_v<T, float> ? 1e-6 : 1e-2);
  }
  return c.finish();
}
