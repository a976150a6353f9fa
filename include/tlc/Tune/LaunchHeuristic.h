//===- LaunchHeuristic.h - Kernels without a tuning database -*- C++ -*-===//
//
// A kernel whose tune space includes launch-shape parameters (those its grid
// divides by, such as rows per block) is compiled, when no tuning database
// names it, as a few variants with smaller tiles than its defaults; the stub
// picks per call the largest tiles that still fill the machine. See
// docs/tuning.md, "Without a database".
//
//===----------------------------------------------------------------------===//
#ifndef TLC_TUNE_LAUNCHHEURISTIC_H
#define TLC_TUNE_LAUNCHHEURISTIC_H

#include "tlc/Frontend/Sema.h"
#include "tlc/Tune/TuningDatabase.h"

#include <optional>
#include <string>
#include <vector>

namespace tlc::tune {

/// At most this many variants per kernel; each has at most a quarter of the
/// tile area (the product of the launch-shape parameters) of the one before.
inline constexpr size_t kMaxFillVariants = 4;
inline constexpr int64_t kFillAreaStep = 4;

/// The tuned parameters the grid of `info` depends on, directly or through
/// other parameters' defaults, in the order of the tune clause.
std::vector<std::string> launchShapeParams(const KernelInfo &info);

/// The fill heuristic's variants of a checked kernel: variant 0 the
/// defaults, then points of the tune space that keep every other parameter
/// at its default and every launch-shape parameter at most its default,
/// largest tile area first, thinned as above. Each variant sets only the
/// launch-shape parameters. std::nullopt when there is nothing to choose
/// (no launch-shape parameter, or no admitted point with smaller tiles).
std::optional<KernelVariants> fillVariants(const KernelInfo &info);

} // namespace tlc::tune

#endif // TLC_TUNE_LAUNCHHEURISTIC_H
