// gemm_bench.cpp: times a Vulkan gemm stub (examples/gemm.tl) on M x N x K
// with random f16 or f32 data: warm-up launches, then the median of timed
// launches. A launch here is synchronous (record, submit, wait), so each
// time includes the submission round trip.
#include "gemm.h"
#include "tlc/Runtime/tlc_vulkan.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: gemm_bench f16|f32 M N K\n");
    return 2;
  }
  bool f16 = std::string(argv[1]) == "f16";
  int64_t M = std::atoll(argv[2]), N = std::atoll(argv[3]),
          K = std::atoll(argv[4]);
  size_t elem = f16 ? 2 : 4;
  tlc_dtype dtype = f16 ? TLC_F16 : TLC_F32;
  void *a = nullptr, *b = nullptr, *c = nullptr;
  tlc::Status s = tlc::vulkan::allocate(M * K * elem, a);
  if (s.ok())
    s = tlc::vulkan::allocate(K * N * elem, b);
  if (s.ok())
    s = tlc::vulkan::allocate(M * N * elem, c);
  // Random bits in [-1, 1) for f32; for f16 small values' bit patterns.
  std::mt19937 rng(1);
  std::vector<uint16_t> h16(std::max(M * K, K * N));
  std::vector<float> h32(std::max(M * K, K * N));
  for (size_t i = 0; i < h16.size(); ++i) {
    h32[i] = std::uniform_real_distribution<float>(-1, 1)(rng);
    h16[i] = static_cast<uint16_t>(0x3000 + (rng() & 0x3ff)) |
             static_cast<uint16_t>((rng() & 1) << 15);
  }
  const void *host = f16 ? static_cast<const void *>(h16.data()) : h32.data();
  if (s.ok())
    s = tlc::vulkan::upload(a, host, M * K * elem);
  if (s.ok())
    s = tlc::vulkan::upload(b, host, K * N * elem);
  auto launch = [&] {
    return tlc::kernels::gemm(tlc::makeTensor(a, dtype, {M, K}),
                              tlc::makeTensor(b, dtype, {K, N}),
                              tlc::makeTensor(c, dtype, {M, N}));
  };
  for (int i = 0; i < 3 && s.ok(); ++i)
    s = launch();
  if (!s.ok()) {
    std::printf("gemm %s %lldx%lldx%lld: FAILED %s\n", argv[1], (long long)M,
                (long long)N, (long long)K, s.message.c_str());
    return 1;
  }
  std::vector<double> us;
  for (int i = 0; i < 15; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    s = launch();
    auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  double median = us[us.size() / 2];
  std::printf("gemm %s %lldx%lldx%lld: %.1f us, %.1f TFLOP/s (%s)\n", argv[1],
              (long long)M, (long long)N, (long long)K, median,
              2.0 * M * N * K / median / 1e6,
              tlc::vulkan::deviceName().c_str());
  return 0;
}
