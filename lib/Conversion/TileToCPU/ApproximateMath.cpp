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
    // exp2(x) -> exp(x * ln 2), rsqrt(x) -> 1 / sqrt(x) (libm has no
    // rsqrtf), etc.; then approximate what is left.
    math::populateExpansionPatterns(patterns,
                                    {"exp2", "ceil", "powf", "rsqrt"});
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
