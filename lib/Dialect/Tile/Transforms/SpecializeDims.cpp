//===- SpecializeDims.cpp - Make symbolic kernel dimensions static
//---------===//
#include "tlc/Dialect/Tile/IR/AttrNames.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILESPECIALIZEDIMS
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;

namespace {
struct TileSpecializeDims
    : public tlc::tile::impl::TileSpecializeDimsBase<TileSpecializeDims> {
  using Base::Base;

  void runOnOperation() override {
    llvm::StringMap<int64_t> values;
    for (const std::string &binding : dims) {
      auto [name, value] = llvm::StringRef(binding).split('=');
      int64_t v;
      if (value.getAsInteger(10, v) || v < 0) {
        getOperation().emitError() << "tile-specialize-dims: bad binding '"
                                   << binding << "', expected NAME=VALUE";
        return signalPassFailure();
      }
      values[name] = v;
    }
    getOperation().walk([&](func::FuncOp func) {
      if (failed(specialize(func, values)))
        signalPassFailure();
    });
  }

  LogicalResult specialize(func::FuncOp func, llvm::StringMap<int64_t> values) {
    auto dimsAttr = func->getAttrOfType<DictionaryAttr>(tlc::tile::attr::kDims);
    if (!dimsAttr)
      return success();
    // The kernel's own requests (MLIRGen records -D NAME=V there).
    if (auto own =
            func->getAttrOfType<DictionaryAttr>(tlc::tile::attr::kStaticDims))
      for (NamedAttribute entry : own) {
        auto value = llvm::dyn_cast<IntegerAttr>(entry.getValue());
        if (!value || value.getInt() < 0)
          return func.emitError("malformed tile.static_dims entry");
        values.try_emplace(entry.getName().strref(), value.getInt());
      }
    Builder b(func.getContext());
    SmallVector<NamedAttribute> applied;
    SmallVector<Type> argTypes(func.getArgumentTypes());
    for (NamedAttribute entry : dimsAttr) {
      auto it = values.find(entry.getName().strref());
      if (it == values.end())
        continue;
      auto uses = llvm::dyn_cast<ArrayAttr>(entry.getValue());
      if (!uses)
        return func.emitError("malformed tile.dims entry");
      for (Attribute use : uses) {
        auto pair = llvm::dyn_cast<DenseI64ArrayAttr>(use);
        if (!pair || pair.size() != 2 || pair[0] < 0 ||
            pair[0] >= (int64_t)argTypes.size())
          return func.emitError("malformed tile.dims entry");
        auto type = llvm::dyn_cast<MemRefType>(argTypes[pair[0]]);
        if (!type)
          return func.emitError("tile.dims names a non-memref argument");
        if (pair[1] < 0 || pair[1] >= type.getRank())
          return func.emitError("malformed tile.dims entry");
        SmallVector<int64_t> shape(type.getShape());
        shape[pair[1]] = it->second;
        argTypes[pair[0]] =
            MemRefType::get(shape, type.getElementType(), type.getLayout(),
                            type.getMemorySpace());
      }
      applied.push_back(
          b.getNamedAttr(entry.getName(), b.getI64IntegerAttr(it->second)));
    }
    if (applied.empty())
      return success();
    // Argument users (memref.dim, tile ops) accept any memref shape, so the
    // block arguments can change type in place.
    for (auto [arg, type] : llvm::zip(func.getArguments(), argTypes))
      arg.setType(type);
    func.setFunctionType(
        b.getFunctionType(argTypes, func.getFunctionType().getResults()));
    func->setAttr(tlc::tile::attr::kStaticDims, b.getDictionaryAttr(applied));
    return success();
  }
};
} // namespace
