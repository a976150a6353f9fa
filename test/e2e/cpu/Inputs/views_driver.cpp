// views_driver.cpp: checks Inputs/views.tl (reshaped views of contiguous
// tensors) against C++ references on ragged sizes, and the stub's checks:
// a tensor with padded rows is not contiguous, and a view must have as many
// elements as its tensor. -DTLC_T_BF16: compiled with -D T=bf16.
#include "check.h"
#include "merge.h"
#include "oddviews.h"
#include "rowsof.h"
#include "split.h"

#include <tuple>

#ifdef TLC_T_BF16
using T = check::bfloat16_t;
#else
using T = float;
#endif

constexpr int64_t W = 48; // split's default

int main() {
  check::Checker c;
  for (auto [B, S, H, D] :
       {std::tuple<int64_t, int64_t, int64_t, int64_t>{2, 37, 3, 20},
        {1, 16, 2, 16},
        {3, 5, 1, 100}}) {
    std::string size = check::sizeStr({B, S, H, D});
    check::Rng rng("merge" + size);
    check::Tensor<T> X({B, S, H, D}), Y({B * S, H * D}, 3);
    X.fillRandom(rng);
    Y.poison();
    if (!c.launched(tlc::kernels::merge(X.view(), Y.view()), "merge", size))
      continue;
    std::vector<double> ref(X.numel());
    for (int64_t i = 0; i < X.numel(); ++i)
      ref[i] = 2.0 * double(X.get(i));
    c.compare("merge", size, Y, ref, 0.0);
  }
  {
    // X in the middle of a larger buffer (3 elements in: not at a
    // multiple of any buffer-offset alignment): the view starts where X
    // does.
    constexpr int64_t B = 2, S = 9, H = 2, D = 16, shift = 3;
    std::string size = check::sizeStr({B, S, H, D}) + "+offset";
    check::Rng rng("merge" + size);
    check::Tensor<T> Big({B + 1, S, H, D}), Y({B * S, H * D});
    Big.fillRandom(rng);
    Y.poison();
    tlc::TensorView X = Big.view();
    X.data = static_cast<char *>(X.data) + shift * sizeof(T);
    X.shape[0] = B;
    if (c.launched(tlc::kernels::merge(X, Y.view()), "merge", size)) {
      std::vector<double> ref(B * S * H * D);
      for (int64_t i = 0; i < B * S * H * D; ++i)
        ref[i] = 2.0 * double(Big.get(shift + i));
      c.compare("merge", size, Y, ref, 0.0);
    }
  }
  {
    // X with padded rows is not contiguous.
    check::Tensor<T> X({2, 3, 2, 8}, 4), Y({6, 16});
    tlc::Status s = tlc::kernels::merge(X.view(), Y.view());
    c.expect(!s.ok() &&
                 s.message.find("must be contiguous") != std::string::npos,
             "merge.padded", s.message);
  }
  for (int64_t M : {20, 5, 16}) {
    int64_t N = M * W; // each row of the view is a row of X
    std::string size = check::sizeStr({M, N});
    check::Rng rng("split" + size);
    check::Tensor<T> X({M, W}), Y({N}), Z({N});
    X.fillRandom(rng);
    Y.poison();
    Z.poison();
    if (!c.launched(tlc::kernels::split(X.view(), Y.view(), Z.view()), "split",
                    size))
      continue;
    std::vector<double> refY(N), refZ(N);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < W; ++j) {
        refY[i * W + j] = double(X.get(i * W + j)) + double(i);
        refZ[i * W + j] = double(X.get(i * W + (j ^ 1)));
      }
    c.compare("split.Y", size, Y, refY, std::is_same_v<T, float> ? 1e-6 : 1e-2);
    c.compare("split.Z", size, Z, refZ, 0.0);
  }
  {
    // 100 elements are not rows of 48.
    check::Tensor<T> X({2, W}), Y({100}), Z({100});
    tlc::Status s = tlc::kernels::split(X.view(), Y.view(), Z.view());
    c.expect(!s.ok() && s.message.find("has 100 elements but the kernel "
                                       "views it as [N / W, W] = 96") !=
                            std::string::npos,
             "split.count", s.message);
  }
  {
    // N = 4, M = 2: the view [M - N, M - N] would be [-2, -2] (4 elements).
    check::Tensor<float> X({4}), Y({2}), Z({4});
    tlc::Status s = tlc::kernels::oddviews(X.view(), Y.view(), Z.view());
    c.expect(!s.ok() &&
                 s.message.find("whose size 0 is -2") != std::string::npos,
             "oddviews.negative", s.message);
  }
  {
    // N = 65536, M = N + 256 (the first view is [256, 256]): the view
    // [N, N, N, N] has 2^64 elements.
    check::Tensor<float> X({65536}), Y({65536 + 256}), Z({65536});
    tlc::Status s = tlc::kernels::oddviews(X.view(), Y.view(), Z.view());
    c.expect(!s.ok() &&
                 s.message.find("more than 2^63 elements") != std::string::npos,
             "oddviews.overflow", s.message);
  }
  {
    // M = 0: the view [M, N / M] divides by zero.
    check::Tensor<float> X({6}), Y({0});
    tlc::Status s = tlc::kernels::rowsof(X.view(), Y.view());
    c.expect(!s.ok() && s.message == "rowsof: the view [M, N / M] of X "
                                     "divides by zero for these arguments",
             "rowsof.zero", s.message);
  }
  return c.finish();
}
