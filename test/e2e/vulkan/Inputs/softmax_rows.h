// softmax_rows.h: the CPU softmax of the Vulkan runtime tests' drivers.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

/// y = softmax over each of the M rows of x (M x N, row-major), in double.
inline void softmaxRows(const std::vector<float> &x, std::vector<float> &y,
                        int64_t M, int64_t N) {
  for (int64_t i = 0; i < M; ++i) {
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < N; ++j)
      mx = std::fmax(mx, x[i * N + j]);
    for (int64_t j = 0; j < N; ++j)
      sum += std::exp(x[i * N + j] - mx);
    for (int64_t j = 0; j < N; ++j)
      y[i * N + j] = float(std::exp(x[i * N + j] - mx) / sum);
  }
}
