// bench_util.h: timing shared by the CPU benchmarks.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

/// Wall time of one run of fn.
inline double secondsOf(const std::function<void()> &fn) {
  auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
      .count();
}

/// The middle value of v (the upper one of an even count).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Median wall time of `reps` runs of fn, after one warm-up run.
inline double medianSeconds(const std::function<void()> &fn, int reps) {
  fn();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i)
    t.push_back(secondsOf(fn));
  return median(t);
}
