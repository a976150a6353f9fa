//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//
#ifndef TLC_TILE_DIALECT_TD
#define TLC_TILE_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tlc::tile";
  let summary = "Tiles, their memory scopes and the ops that move and combine them";
  let description = [{
    The tile dialect is the target-neutral middle of tlc. Tiles are memrefs
    whose memory space is a `#tile.scope` (shared, fragment, local); global
    tensors are kernel arguments in the default memory space. Tile ops
    (copy, gemm, fill, reduce, atomic_add, parallel) say what happens to
    whole tiles; each target's lowering decides how.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::math::MathDialect",
    "mlir::func::FuncDialect"
  ];
}

def Tile_Scope : I32EnumAttr<"MemScope", "memory scope of a tile", [
  I32EnumAttrCase<"shared", 1>,
  I32EnumAttrCase<"fragment", 2>,
  I32EnumAttrCase<"local", 3>
]> {
  let cppNamespace = "::tlc::tile";
  let genSpecializedAttr = 0;
}

def Tile_ScopeAttr : EnumAttr<Tile_Dialect, Tile_Scope, "scope"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
  I32EnumAttrCase<"sum", 0>,
  I32EnumAttrCase<"max", 1>,
  I32EnumAttrCase<"min", 2>,
  I32EnumAttrCase<"absmax", 3>
]> {
  let cppNamespace = "::tlc::tile";
  let genSpecializedAttr = 0;
}

def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // TLC_TILE_DIALECT_TD
