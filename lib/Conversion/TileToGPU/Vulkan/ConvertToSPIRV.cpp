//===- ConvertToSPIRV.cpp - tile-vulkan-convert-to-spirv ------------------===//
//
// Upstream's convert-gpu-to-spirv leaves math and vector ops alone (it
// expects them lowered by other passes first) and keeps the gpu.module
// next to the new spirv.module. tlc's kernels, once
// tile-vulkan-prepare-spirv has run, use gpu, scf, arith, math, memref and
// a few vector ops; this pass expands erf (GLSL has none) and bf16
// conversions (SPIR-V has no bf16: the data is carried as i16), converts
// them all in one conversion with upstream's patterns (gpu.subgroup_mma_*
// ops become KHR cooperative-matrix ops), and the gpu.module
// becomes the spirv.module.
//
//===----------------------------------------------------------------------===//
#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"

#include "mlir/Conversion/ArithToSPIRV/ArithToSPIRV.h"
#include "mlir/Conversion/FuncToSPIRV/FuncToSPIRV.h"
#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRV.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRV.h"
#include "mlir/Conversion/MemRefToSPIRV/MemRefToSPIRV.h"
#include "mlir/Conversion/SCFToSPIRV/SCFToSPIRV.h"
#include "mlir/Conversion/VectorToSPIRV/VectorToSPIRV.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
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

/// bf16 -> i16 in every value once arith's bf16 expansion has turned the
/// conversions into integer ops: what is left are bitcasts (now moves),
/// constants (their bits) and values passed through scf ops.
struct BF16BitcastPattern : OpConversionPattern<arith::BitcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::BitcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type)
      return failure();
    if (type == adaptor.getIn().getType())
      rewriter.replaceOp(op, adaptor.getIn());
    else
      rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, type, adaptor.getIn());
    return success();
  }
};
struct BF16ConstantPattern : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = llvm::dyn_cast<FloatAttr>(op.getValue());
    if (!value || !value.getType().isBF16())
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, rewriter.getIntegerAttr(rewriter.getI16Type(),
                                    value.getValue().bitcastToAPInt()));
    return success();
  }
};

/// A select between bf16 values (`c ? x : T(0)`) picks between their bits.
struct BF16SelectPattern : OpConversionPattern<arith::SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type || type == op.getType())
      return failure();
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, adaptor.getCondition(),
                                                 adaptor.getTrueValue(),
                                                 adaptor.getFalseValue());
    return success();
  }
};

LogicalResult carryBF16AsI16(Operation *root) {
  MLIRContext *ctx = root->getContext();
  TypeConverter converter;
  converter.addConversion([](Type t) { return t; });
  converter.addConversion([](Type t) -> std::optional<Type> {
    if (t.isBF16())
      return IntegerType::get(t.getContext(), 16);
    if (auto v = llvm::dyn_cast<VectorType>(t);
        v && v.getElementType().isBF16())
      return VectorType::get(v.getShape(),
                             IntegerType::get(t.getContext(), 16));
    return std::nullopt;
  });
  ConversionTarget target(*ctx);
  target.markUnknownOpDynamicallyLegal([&](Operation *op) {
    if (auto constant = llvm::dyn_cast<arith::ConstantOp>(op))
      return converter.isLegal(constant.getType());
    return converter.isLegal(op);
  });
  RewritePatternSet patterns(ctx);
  patterns.add<BF16BitcastPattern, BF16ConstantPattern, BF16SelectPattern>(
      converter, ctx);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  return applyPartialConversion(root, target, std::move(patterns));
}

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

/// A barrier that orders the block's global-memory accesses
/// (tile.global_order): upstream's gpu.barrier orders workgroup memory
/// only; this one also makes buffer (uniform) memory writes visible.
struct GlobalOrderBarrierPattern : OpConversionPattern<gpu::BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasAttr(tile::attr::kGlobalOrder))
      return failure();
    auto semantics = spirv::MemorySemantics::AcquireRelease |
                     spirv::MemorySemantics::WorkgroupMemory |
                     spirv::MemorySemantics::UniformMemory;
    rewriter.replaceOpWithNewOp<spirv::ControlBarrierOp>(
        op, spirv::Scope::Workgroup, spirv::Scope::Workgroup, semantics);
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
        // bf16 as its 16 bits: conversions to and from f32 become integer
        // shifts (and rounding); carryBF16AsI16 then retypes the rest.
        arith::populateExpandBFloat16Patterns(patterns);
        populatePolynomialApproximateErfPattern(patterns);
        populatePolynomialApproximateErfcPattern(patterns);
        if (failed(applyPatternsGreedily(gpuModule, std::move(patterns))))
          return signalPassFailure();
      }
      if (failed(carryBF16AsI16(gpuModule)))
        return signalPassFailure();
      {
        spirv::MemorySpaceToStorageClassConverter converter(
            spirv::mapMemorySpaceToVulkanStorageClass);
        spirv::convertMemRefTypesAndAttrs(gpuModule, converter);
      }
      std::unique_ptr<ConversionTarget> target =
          SPIRVConversionTarget::get(env);
      SPIRVConversionOptions options;
      options.use64bitIndex = false; // 32-bit indices (docs/vulkan.md)
      // Narrow types are native (Int8, Int16, Float16).
      options.emulateLT32BitScalarTypes = false;
      SPIRVTypeConverter typeConverter(env, options);
      populateMMAToSPIRVCoopMatrixTypeConversion(typeConverter);
      RewritePatternSet patterns(ctx);
      ScfToSPIRVContext scfContext;
      populateGPUToSPIRVPatterns(typeConverter, patterns);
      populateGpuWMMAToSPIRVCoopMatrixKHRConversionPatterns(typeConverter,
                                                            patterns);
      populateSCFToSPIRVPatterns(typeConverter, scfContext, patterns);
      arith::populateArithToSPIRVPatterns(typeConverter, patterns);
      populateMathToSPIRVPatterns(typeConverter, patterns);
      populateMemRefToSPIRVPatterns(typeConverter, patterns);
      populateVectorToSPIRVPatterns(typeConverter, patterns);
      populateFuncToSPIRVPatterns(typeConverter, patterns);
      patterns.add<Exp2Pattern>(typeConverter, ctx);
      patterns.add<AtomicFAddPattern, GlobalOrderBarrierPattern>(
          typeConverter, ctx, /*benefit=*/2);
      if (failed(applyFullConversion(gpuModule.getOperation(), *target,
                                     std::move(patterns))))
        return signalPassFailure();
    }
  }
};

} // namespace
