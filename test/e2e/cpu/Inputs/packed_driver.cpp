// packed_driver.cpp: checks Inputs/packed.tl (the packed u4/i4 dtypes)
// against C++ references on random data: ragged sizes (M and K not
// multiples of the tiles), padded rows, negative i4 values, values that
// wrap when converted, and the stub's refusals (odd innermost size, odd
// row stride).
#include "check.h"
#include "dequant_gemm.h"
#include "misc.h"
#include "nibbles.h"
#include "pack.h"
#include "unpack.h"

#include <tuple>

using U4 = check::PackedTensor<false>;
using I4 = check::PackedTensor<true>;

int main() {
  check::Checker c;
  constexpr double exact = 0.0;
  for (auto [M, K, pad] : {std::tuple<int64_t, int64_t, int64_t>{16, 32, 0},
                           {37, 70, 2},
                           {5, 6, 4},
                           {100, 130, 0}}) {
    std::string size = check::sizeStr({M, K, pad});
    check::Rng rng("unpack" + size);
    U4 Q({M, K}, pad);
    I4 S({M, K}, pad + 2);
    check::Tensor<int32_t> Y({M, K}, 1);
    Q.fillRandom(rng);
    S.fillRandom(rng);
    Y.poison();
    if (c.launched(tlc::kernels::unpack(Q.view(), S.view(), Y.view()), "unpack",
                   size)) {
      std::vector<double> ref(M * K);
      for (int64_t i = 0; i < M * K; ++i)
        ref[i] = 100.0 * Q.get(i) + S.get(i) + 10000.0 * Q.get(i ^ 1);
      c.compare("unpack", size, Y, ref, exact);
    }

    // The same bytes as u8 through lib/quant.tl's helpers.
    check::Tensor<uint8_t> B({M, K / 2}, 3);
    for (int64_t i = 0; i < M * K; i += 2)
      B.set(i / 2, Q.get(i) + 16 * Q.get(i + 1));
    check::Tensor<int32_t> U({M, K}), Sn({M, K});
    if (c.launched(tlc::kernels::nibbles(B.view(), U.view(), Sn.view()),
                   "nibbles", size)) {
      std::vector<double> u(M * K), sn(M * K);
      for (int64_t i = 0; i < M * K; ++i) {
        u[i] = Q.get(i);
        sn[i] = u[i] >= 8 ? u[i] - 16 : u[i];
      }
      c.compare("nibbles u4", size, U, u, exact);
      c.compare("nibbles i4", size, Sn, sn, exact);
    }

    check::Tensor<int32_t> X({M, K});
    for (int64_t i = 0; i < M * K; ++i)
      X.set(i, float(int64_t(rng.next() % 64) - 24)); // wraps either way
    U4 Qo({M, K}, pad), Fo({M, K});
    I4 So({M, K}, pad);
    Fo.fill(3);
    if (c.launched(
            tlc::kernels::pack(X.view(), Qo.view(), So.view(), Fo.view()),
            "pack", size)) {
      std::vector<double> q(M * K), s(M * K), f(M * K);
      for (int64_t i = 0; i < M * K; ++i) {
        int x = int(X.get(i));
        q[i] = x & 15;
        int w = (x - 8) & 15;
        s[i] = w >= 8 ? w - 16 : w;
        f[i] = (i / K < 8 && i % K < 64) ? 5 : 3;
      }
      c.compare("pack u4", size, Qo, q, exact);
      c.compare("pack i4", size, So, s, exact);
      c.compare("pack fill", size, Fo, f, exact);
    }
  }

  for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{32, 32, 32},
                         {19, 45, 70},
                         {64, 70, 198}}) {
    std::string size = check::sizeStr({M, N, K});
    check::Rng rng("dequant_gemm" + size);
    check::Tensor<float> A({M, K}, 3), Scale({N}), C({M, N}, 1);
    U4 W({N, K}, 2);
    A.fillRandom(rng);
    Scale.fillRandom(rng, 0.5f, 1.5f);
    W.fillRandom(rng);
    C.poison();
    if (!c.launched(tlc::kernels::dequant_gemm(A.view(), W.view(), Scale.view(),
                                               C.view()),
                    "dequant_gemm", size))
      continue;
    std::vector<double> ref(M * N, 0.0);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double sum = 0;
        for (int64_t k = 0; k < K; ++k)
          sum += double(A.get(m * K + k)) * (W.get(n * K + k) - 8.0) *
                 double(Scale.get(n));
        ref[m * N + n] = sum;
      }
    c.compare("dequant_gemm", size, C, ref, 1e-5);
  }

  for (int64_t M : {8, 21}) {
    std::string size = check::sizeStr({M, 64});
    check::Rng rng("misc" + size);
    U4 Q({M, 64}, 4);
    I4 S({M, 64});
    check::Tensor<int32_t> Y({M, 64});
    Q.fillRandom(rng);
    S.fillRandom(rng);
    Y.poison();
    if (c.launched(tlc::kernels::misc(Q.view(), S.view(), Y.view()), "misc",
                   size)) {
      std::vector<double> ref(M * 64);
      for (int64_t i = 0; i < M * 64; ++i) {
        int neg = S.get(i) < 0, q = int(Q.get(i));
        ref[i] = 100 * ((neg + q) & 15) + 10 * neg + (q != 0);
      }
      c.compare("misc", size, Y, ref, exact);
    }
  }

  // The stub's refusals: an odd innermost size, an odd row stride.
  {
    U4 Q({4, 6}), Qo({4, 6});
    I4 S({4, 6});
    check::Tensor<int32_t> Y({4, 6}), X({4, 6});
    tlc::TensorView q = Q.view();
    q.shape[1] = 5;
    tlc::TensorView s = S.view();
    s.shape[1] = 5;
    tlc::Status st = tlc::kernels::unpack(q, s, Y.view());
    c.expect(st.code == TLC_ERR_INVALID_ARGUMENT &&
                 st.message.find("innermost size must be even") !=
                     std::string::npos,
             "refuses", "odd innermost size: " + st.message);
    tlc::TensorView qo = Qo.view();
    qo.shape[1] = 4;
    qo.strides[0] = 5;
    st = tlc::kernels::pack(X.view(), qo, S.view(), Qo.view());
    c.expect(st.code == TLC_ERR_INVALID_ARGUMENT &&
                 st.message.find("even strides") != std::string::npos,
             "refuses", "odd row stride: " + st.message);
  }
  return c.finish();
}
