//===- AttachTarget.cpp - tile-attach-target: the driver's description ----===//
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Target/Passes.h"
#include "tlc/Target/Target.h"

namespace tlc {
#define GEN_PASS_DEF_TILEATTACHTARGET
#include "tlc/Target/Passes.h.inc"
} // namespace tlc

using namespace mlir;

namespace {
struct TileAttachTarget
    : public tlc::impl::TileAttachTargetBase<TileAttachTarget> {
  using Base::Base;
  void runOnOperation() override {
    std::string known;
    std::unique_ptr<tlc::Target> target = tlc::createTarget(targetName, known);
    if (!target) {
      getOperation().emitError()
          << "unknown target '" << targetName << "'; available: " << known;
      return signalPassFailure();
    }
    if (llvm::Error err = target->setArch(
            arch.empty() ? target->defaultArch() : llvm::StringRef(arch))) {
      getOperation().emitError() << llvm::toString(std::move(err));
      return signalPassFailure();
    }
    if (Attribute description = target->describe(getContext()))
      getOperation()->setAttr(tlc::tile::attr::kTarget, description);
  }
};
} // namespace
