//===- ConvertToSPIRV.cpp - tile-vulkan-convert-to-spirv ------------------===//
//
// Upstream's convert-gpu-to-spirv leaves math and vector ops alone (it
// expects them lowered by other passes first) and keeps the gpu.module
// next to the new spirv.module. tlc's kernels, once
// tile-vulkan-prepare-spirv has run, use gpu, scf, arith, math, memref and
// a few vector ops; this pass expands erf (GLSL has none), converts them all in
// one conversion with upstream's patterns, and the gpu.module becomes the
// spirv.module.
//
//===----------------------------------------------------------------------===//
#include "tlc/Conversion/Passes.h"

#include "mlir/Conversion/ArithToSPIRV/ArithToSPIRV.h"
#include "mlir/Conversion/FuncToSPIRV/FuncToSPIRV.h"
#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRV.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRV.h"
#include "mlir/Conversion/MemRefToSPIRV/MemRefToSPIRV.h"
#include "mlir/Conversion/SCFToSPIRV/SCFToSPIRV.h"
#include "mlir/Conversion/VectorToSPIRV/VectorToSPIRV.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tlc {
#define GEN_PASS_DEF_TILEVULKANCONVERTTOSPIRV
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;

namespace {

/// math.exp2 -> GLSL.std.450 Exp2 (upstream's math patterns lack it).
struct Exp2Pattern : OpConversionPattern<math::Exp2Op> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(math::Exp2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type)
      return failure();
    rewriter.replaceOpWithNewOp<spirv::GLExp2Op>(op, type,
                                                 adaptor.getOperand());
    return success();
  }
};

/// memref.atomic_rmw addf on f32 -> OpAtomicFAddEXT
/// (SPV_EXT_shader_atomic_float_add; upstream converts integer kinds only).
struct AtomicFAddPattern : OpConversionPattern<memref::AtomicRMWOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getKind() != arith::AtomicRMWKind::addf || !op.getType().isF32())
      return failure();
    auto memrefType = op.getMemRefType();
    auto storage = llvm::dyn_cast_or_null<spirv::StorageClassAttr>(
        memrefType.getMemorySpace());
    if (!storage)
      return failure();
    spirv::Scope scope = storage.getValue() == spirv::StorageClass::Workgroup
                             ? spirv::Scope::Workgroup
                             : spirv::Scope::Device;
    const auto &converter = *getTypeConverter<SPIRVTypeConverter>();
    Value ptr =
        spirv::getElementPtr(converter, memrefType, adaptor.getMemref(),
                             adaptor.getIndices(), op.getLoc(), rewriter);
    if (!ptr)
      return failure();
    rewriter.replaceOpWithNewOp<spirv::EXTAtomicFAddOp>(
        op, rewriter.getF32Type(), ptr, scope, spirv::MemorySemantics::None,
        adaptor.getValue());
    return success();
  }
};

struct TileVulkanConvertToSPIRV
    : public tlc::impl::TileVulkanConvertToSPIRVBase<TileVulkanConvertToSPIRV> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    SmallVector<gpu::GPUModuleOp> gpuModules(
        getOperation().getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp gpuModule : gpuModules) {
      spirv::TargetEnvAttr env = spirv::lookupTargetEnv(gpuModule);
      if (!env) {
        gpuModule.emitError("tile-vulkan-convert-to-spirv needs "
                            "spirv.target_env (tile-vulkan-prepare-spirv)");
        return signalPassFailure();
      }
      {
        // GLSL.std.450 has no erf: its polynomial, like on the CPU; and
        // arith ops SPIR-V lacks (ceildivsi) in simpler ones.
        RewritePatternSet patterns(ctx);
        arith::populateArithExpandOpsPatterns(patterns);
        populatePolynomialApproximateErfPattern(patterns);
        populatePolynomialApproximateErfcPattern(patterns);
        if (failed(applyPatternsGreedily(gpuModule, std::move(patterns))))
          return signalPassFailure();
      }
      {
        spirv::MemorySpaceToStorageClassConverter converter(
            spirv::mapMemorySpaceToVulkanStorageClass);
        spirv::convertMemRefTypesAndAttrs(gpuModule, converter);
      }
      std::unique_ptr<ConversionTarget> target =
          SPIRVConversionTarget::get(env);
      SPIRVConversionOptions options;
      options.use64bitIndex = false; // 32-bit indices (docs/vulkan.md)
      SPIRVTypeConverter typeConverter(env, options);
      RewritePatternSet patterns(ctx);
      ScfToSPIRVContext scfContext;
      populateGPUToSPIRVPatterns(typeConverter, patterns);
      populateSCFToSPIRVPatterns(typeConverter, scfContext, patterns);
      arith::populateArithToSPIRVPatterns(typeConverter, patterns);
      populateMathToSPIRVPatterns(typeConverter, patterns);
      populateMemRefToSPIRVPatterns(typeConverter, patterns);
      populateVectorToSPIRVPatterns(typeConverter, patterns);
      populateFuncToSPIRVPatterns(typeConverter, patterns);
      patterns.add<Exp2Pattern>(typeConverter, ctx);
      patterns.add<AtomicFAddPattern>(typeConverter, ctx, /*benefit=*/2);
      if (failed(applyFullConversion(gpuModule.getOperation(), *target,
                                     std::move(patterns))))
        return signalPassFailure();
    }
  }
};

} // namespace
