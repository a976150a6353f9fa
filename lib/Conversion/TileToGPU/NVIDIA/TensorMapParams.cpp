//===- TensorMapParams.cpp - tile-nvvm-tensor-map-params ------------------===//
//
// The upstream gpu.func -> llvm.func lowering drops parameter attributes, so
// the tensor-map parameters (tile.tensor_maps) get theirs afterwards.
//
//===----------------------------------------------------------------------===//
#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace tlc {
#define GEN_PASS_DEF_TILENVVMTENSORMAPPARAMS
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;

namespace {

/// CUtensorMap: 128 bytes, 64-byte aligned.
constexpr int64_t kTensorMapBytes = 128;
constexpr int64_t kTensorMapAlignment = 64;

struct TileNVVMTensorMapParams
    : public tlc::impl::TileNVVMTensorMapParamsBase<TileNVVMTensorMapParams> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      auto maps = func->getAttrOfType<ArrayAttr>(tile::attr::kTensorMaps);
      if (!maps)
        return;
      MLIRContext *ctx = func.getContext();
      Builder b(ctx);
      unsigned count = func.getNumArguments();
      if (maps.size() > count) {
        func.emitError("more tensor maps than parameters");
        return signalPassFailure();
      }
      auto mapType =
          LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), kTensorMapBytes);
      for (unsigned i = count - maps.size(); i < count; ++i) {
        if (!llvm::isa<LLVM::LLVMPointerType>(func.getArgument(i).getType())) {
          func.emitError("tensor map parameter ") << i << " is not a pointer";
          return signalPassFailure();
        }
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(mapType));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        b.getI64IntegerAttr(kTensorMapAlignment));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        b.getUnitAttr());
      }
    });
  }
};

} // namespace
