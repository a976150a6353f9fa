// bench_util.h: timing shared by the CPU benchmarks.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

/// Median wall time of `reps` runs of fn, after one warm-up run.
inline double secondsOf(const std::function<void()> &fn) {
  auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
      .count();
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

inline double medianSeconds(const std::function<void()> &fn, int reps) {
  fn();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    t.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
