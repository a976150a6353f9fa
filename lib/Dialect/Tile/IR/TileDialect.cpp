//===- TileDialect.cpp - The tile dialect ---------------------------------===//
#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tlc::tile;

#include "tlc/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "tlc/Dialect/Tile/IR/TileEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tlc/Dialect/Tile/IR/TileAttrs.cpp.inc"

namespace {
/// Tile fns are inlined at their call sites; every tile op may be inlined.
struct TileInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tlc/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tlc/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
  addInterfaces<TileInlinerInterface>();
}

std::optional<MemScope> tlc::tile::getScope(MemRefType type) {
  if (auto attr = llvm::dyn_cast_or_null<MemScopeAttr>(type.getMemorySpace()))
    return attr.getValue();
  return std::nullopt;
}

MemRefType tlc::tile::getTileType(ArrayRef<int64_t> shape, Type elementType,
                                  MemScope scope) {
  return MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                         MemScopeAttr::get(elementType.getContext(), scope));
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t threads, ArrayRef<int64_t> dims,
                                 ArrayRef<int64_t> extents,
                                 ArrayRef<int64_t> threadStrides,
                                 ArrayRef<int64_t> slotStrides) {
  if (threads < 1)
    return emitError() << "a layout needs at least one thread";
  size_t n = dims.size();
  if (extents.size() != n || threadStrides.size() != n ||
      slotStrides.size() != n)
    return emitError() << "dims, extents, thread_strides and slot_strides "
                          "must have one entry per factor";
  for (size_t f = 0; f < n; ++f) {
    if (dims[f] < -1 || extents[f] < 1 || threadStrides[f] < 0 ||
        slotStrides[f] < 0)
      return emitError() << "factor " << f
                         << ": dims must be >= -1, extents >= 1, strides >= 0";
    if ((threadStrides[f] > 0) == (slotStrides[f] > 0))
      return emitError() << "factor " << f
                         << " needs exactly one of a thread stride and a slot "
                            "stride";
    if (dims[f] == -1 && threadStrides[f] == 0)
      return emitError() << "factor " << f
                         << ": a replication (dim -1) is a thread factor";
  }
  return success();
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef vendor, StringRef arch,
                                 int64_t warpSize, int64_t maxSharedBytes,
                                 int64_t maxThreads, int64_t maxRegisters,
                                 int64_t vectorBytes, bool asyncCopy,
                                 StringRef mma) {
  if (vendor.empty() || arch.empty())
    return emitError() << "a target needs a vendor and an architecture";
  if (warpSize < 1 || !llvm::isPowerOf2_64(warpSize))
    return emitError() << "warp_size must be a power of two";
  if (maxSharedBytes < 0 || maxThreads < 1 || maxRegisters < 1 ||
      vectorBytes < 1)
    return emitError() << "max_shared_bytes must be >= 0, max_threads, "
                          "max_registers and vector_bytes >= 1";
  return success();
}

TargetAttr tlc::tile::getTarget(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto target = op->getAttrOfType<TargetAttr>(attr::kTarget))
      return target;
  return {};
}
