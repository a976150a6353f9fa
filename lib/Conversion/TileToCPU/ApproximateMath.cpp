//===- ApproximateMath.cpp - Polynomial approximations of math functions --===//
#include "tlc/Conversion/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tlc {
#define GEN_PASS_DEF_CPUAPPROXIMATEMATH
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;

namespace {
struct CPUApproximateMath
    : public tlc::impl::CPUApproximateMathBase<CPUApproximateMath> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // exp2(x) -> exp(x * ln 2) and rsqrt(x) -> 1 / sqrt(x) (libm has no
    // rsqrtf). pow and ceil keep their exact lowerings (libm / llvm.ceil):
    // their expansions are wrong for negative bases and NaN.
    math::populateExpansionPatterns(patterns, {"exp2", "rsqrt"});
    // Only functions whose approximations hold over the whole f32 range;
    // sin/cos (no range reduction for large arguments) stay exact calls.
    auto approximated = [](StringRef name) {
      name.consume_front("math."); // the patterns pass operation names
      return llvm::is_contained(
          {"exp", "expm1", "log", "log1p", "log2", "tanh", "erf", "erfc"},
          name);
    };
    populateMathF32ExpansionPatterns(patterns, approximated);
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
