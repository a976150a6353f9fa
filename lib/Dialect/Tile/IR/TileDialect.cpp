//===- TileDialect.cpp - The tile dialect ---------------------------------===//
#include "tlc/Dialect/Tile/IR/TileDialect.h"
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
