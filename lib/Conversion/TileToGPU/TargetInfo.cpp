//===- TargetInfo.cpp - Defaults and the registry of GPU target infos -----===//
#include "TargetInfo.h"

#include "tlc/Dialect/Tile/IR/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/ErrorHandling.h"

#include <mutex>

using namespace mlir;
using namespace tlc;
using namespace tlc::gpu_lowering;

Value GPUTargetInfo::shuffleXor(OpBuilder &b, Location loc, Value v,
                                int64_t offset) const {
  // gpu.shuffle takes 32-bit values: narrower ones go through f32/i32.
  Type type = v.getType();
  Value wide = v;
  if (type.getIntOrFloatBitWidth() < 32)
    wide =
        tile::castElements(b, loc, v,
                           llvm::isa<FloatType>(type) ? Type(b.getF32Type())
                                                      : Type(b.getI32Type()));
  auto shuffle = gpu::ShuffleOp::create(
      b, loc, wide, static_cast<int32_t>(offset),
      static_cast<int32_t>(warpSize()), gpu::ShuffleMode::XOR);
  Value result = shuffle.getShuffleResult();
  return result.getType() == type ? result
                                  : tile::castElements(b, loc, result, type);
}

void GPUTargetInfo::asyncCopy(OpBuilder &, Location, Value, ValueRange, Value,
                              ValueRange, int64_t, Value) const {
  llvm::report_fatal_error("tlc: this target has no asynchronous copies");
}

void GPUTargetInfo::asyncCommit(OpBuilder &, Location) const {
  llvm::report_fatal_error("tlc: this target has no asynchronous copies");
}

void GPUTargetInfo::asyncWait(OpBuilder &, Location, int64_t) const {
  llvm::report_fatal_error("tlc: this target has no asynchronous copies");
}

GPUTargetInfo::ClusterPosition
GPUTargetInfo::clusterPosition(OpBuilder &b, Location loc) const {
  Value id = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value count = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value rank = arith::ConstantIndexOp::create(b, loc, 0);
  Value size = arith::ConstantIndexOp::create(b, loc, 1);
  return {id, count, rank, size};
}

namespace {
struct Vendor {
  GPUTargetInfoFactory factory;
  std::function<void(DialectRegistry &)> dialects;
};
llvm::StringMap<Vendor> &vendors() {
  static llvm::StringMap<Vendor> map;
  return map;
}
std::mutex factoriesMutex;
} // namespace

void gpu_lowering::registerGPUTargetInfo(
    llvm::StringRef vendor, GPUTargetInfoFactory factory,
    std::function<void(DialectRegistry &)> dialects) {
  std::lock_guard<std::mutex> lock(factoriesMutex);
  vendors().try_emplace(vendor,
                        Vendor{std::move(factory), std::move(dialects)});
}

void gpu_lowering::insertVendorDialects(DialectRegistry &registry) {
  std::lock_guard<std::mutex> lock(factoriesMutex);
  for (auto &entry : vendors())
    entry.second.dialects(registry);
}

std::unique_ptr<GPUTargetInfo>
gpu_lowering::createGPUTargetInfo(tile::TargetAttr target) {
  std::lock_guard<std::mutex> lock(factoriesMutex);
  auto it = vendors().find(target.getVendor());
  if (it == vendors().end())
    return nullptr;
  return it->second.factory(target);
}
