// gemm_out_of_memory_driver.cpp: examples/gemm.tl's CPU task entry when
// malloc fails. Linked with -Wl,--wrap=malloc, so the kernel object's calls
// to malloc (its heap panels) come here: while `failing` is set they return
// NULL. The launch must then report TLC_ERR_RUNTIME with a readable message
// (not crash or write through NULL), on one and on two threads, and the
// same launch must succeed and be correct once memory is back.
#include "check.h"
#include "gemm.h"

#include <atomic>
#include <cstdlib>

extern "C" void *__real_malloc(size_t size);
static std::atomic<bool> failing{false};
static std::atomic<int> refused{0};
extern "C" void *__wrap_malloc(size_t size) {
  if (failing) {
    ++refused;
    return nullptr;
  }
  return __real_malloc(size);
}

int main() {
  check::Checker checker;
  const int64_t M = 300, N = 520, K = 600; // several blocks, a ragged K step
  std::string name = "gemm.f32";
  for (int threads : {1, 2}) {
    std::string size =
        check::sizeStr({M, N, K}) + " threads=" + std::to_string(threads);
    tlc::LaunchOptions options(threads);
    check::Rng rng(name + size);
    check::Tensor<float> A({M, K}), B({K, N}), C({M, N});
    A.fillRandom(rng);
    B.fillRandom(rng);
    C.poison();
    auto run = [&] {
      return tlc::kernels::gemm(A.view(), B.view(), C.view(), options);
    };

    refused = 0;
    failing = true;
    tlc::Status status = run();
    failing = false;
    checker.expect(refused > 0, name, size + " the task entry asked malloc");
    checker.expect(status.code == TLC_ERR_RUNTIME, name,
                   size + " out of memory is TLC_ERR_RUNTIME (got " +
                       std::to_string(status.code) + ")");
    checker.expect(status.message.find("out of memory") != std::string::npos,
                   name, size + " message: " + status.message);

    if (!checker.launched(run(), name, size))
      continue;
    std::vector<double> ref(M * N, 0.0);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t j = 0; j < N; ++j)
          ref[i * N + j] += double(A.get(i * K + k)) * B.get(k * N + j);
    checker.compare(name, size, C, ref, check::Elem<float>::tol);
  }
  return checker.finish();
}
