//===- Passes.td - Target-neutral tile passes --------------*- tablegen -*-===//
#ifndef TLC_TILE_PASSES_TD
#define TLC_TILE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileSpecializeDims : Pass<"tile-specialize-dims", "mlir::ModuleOp"> {
  let summary = "Replace symbolic dimensions of kernel arguments by constants";
  let description = [{
    A kernel's symbolic dimensions (`M` in `A: f32[M, K]`) are dynamic by
    default and bound from the argument shapes at launch. `-D M=4096` on the
    tlc command line reaches this pass, which makes every argument dimension
    bound to `M` static. Canonicalization then folds `memref.dim`, grid math
    and boundary checks that depend on it. The launch stub checks at run
    time that the argument really has that size.

    Kernels record their symbolic dimensions in the `tile.dims` attribute:
    a dictionary from name to a list of [argument, dimension] pairs.

    Before (`dims=M=64`):
    ```mlir
    func.func @k(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>)
        attributes {tile.kernel, tile.dims = {M = [[0, 0]], K = [[0, 1]]}}
    ```
    After:
    ```mlir
    func.func @k(%A: memref<64x?xf32, strided<[?, 1], offset: ?>>)
        attributes {tile.kernel, tile.dims = {M = [[0, 0]], K = [[0, 1]]},
                    tile.static_dims = {M = 64 : i64}}
    ```
  }];
  let options = [
    ListOption<"dims", "dims", "std::string",
               "NAME=VALUE bindings of symbolic dimensions">
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

#endif // TLC_TILE_PASSES_TD
