//===- TileOps.td - Operations of the tile dialect ---------*- tablegen -*-===//
#ifndef TLC_TILE_OPS_TD
#define TLC_TILE_OPS_TD

include "tlc/Dialect/Tile/IR/TileDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

def Tile_AllocOp : Tile_Op<"alloc"> {
  let summary = "allocate a tile in a memory scope";
  let description = [{
    ```mlir
    %As = tile.alloc : memref<128x32xf16, #tile.scope<shared>>
    ```
    The shape is static; the memory space says where the tile lives.
  }];
  let results = (outs Res<AnyStaticShapeMemRef, "", [MemAlloc]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_BlockIdOp : Tile_Op<"block_id", [Pure]> {
  let summary = "index of the current block along one grid dimension";
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<2>]>:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
}

def Tile_CopyOp : Tile_Op<"copy", [AttrSizedOperandSegments]> {
  let summary = "copy a tile, converting its element type on the way";
  let description = [{
    Copies between two memrefs. At most one side carries indices: that side
    is a window whose origin is the indices and whose extent is the shape of
    the other side, laid over its trailing dimensions (leading dimensions are
    indexed points). Elements of the window outside the memref's bounds read
    as zero and are not written, so ragged edges are safe. Integers are
    signed unless `source_unsigned` / `dest_unsigned` say otherwise (u8).

    A gather (or scatter) names index tiles for some dimensions of the
    window's memref (`gather_dims`, one rank-1 integer tile each, as long
    as the tile's gathered dimension). Then every dimension of the memref
    is covered: the gathered ones together by one tile dimension, at the
    place of the first of them, the others by the tile's other dimensions
    in order; the last dimension is not gathered. Element `i` of the tile
    is at `origin[d] + index_d[i[t]]` along a gathered dimension `d`
    (signed indices: a negative one is outside), at `origin[d] + i[t]`
    along the others.

    ```mlir
    tile.copy %A[%i, %k] to %As : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<128x32xf16, #tile.scope<shared>>
    tile.copy %acc to %C[%i, %j] : memref<128x128xf32, #tile.scope<fragment>>, memref<?x?xf16, strided<[?, 1], offset: ?>>
    tile.copy %X[%c0, %k] gather(%rows : memref<64xi32, #tile.scope<shared>>) to %Xs {gather_dims = array<i64: 0>} : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<64x32xf16, #tile.scope<shared>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$source,
                       Variadic<Index>:$sourceIndices,
                       Arg<Variadic<AnyMemRef>, "", [MemRead]>:$gathers,
                       Arg<AnyMemRef, "", [MemWrite]>:$dest,
                       Variadic<Index>:$destIndices,
                       OptionalAttr<DenseI64ArrayAttr>:$gather_dims,
                       UnitAttr:$source_unsigned, UnitAttr:$dest_unsigned);
  let assemblyFormat = [{
    $source (`[` $sourceIndices^ `]`)?
    (`gather` `(` $gathers^ `:` type($gathers) `)`)?
    `to` $dest (`[` $destIndices^ `]`)?
    attr-dict `:` type($source) `,` type($dest)
  }];
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "mlir::Value":$source,
                                 "mlir::ValueRange":$sourceIndices,
                                 "mlir::Value":$dest,
                                 "mlir::ValueRange":$destIndices), [{
    build($_builder, $_state, source, sourceIndices, mlir::ValueRange(), dest,
          destIndices, nullptr, false, false);
  }]>];
  let extraClassDeclaration = [{
    /// The shape of the region copied (the shape of the un-indexed side).
    llvm::ArrayRef<int64_t> getTileShape();
    /// The windowed side (the indexed one), or null.
    mlir::Value getWindow();
    mlir::ValueRange getWindowOrigin();
    /// For each dimension of the window's memref, the tile dimension that
    /// covers it, or -1 for a single point (the leading dimensions of a
    /// window without gathers).
    llvm::SmallVector<int64_t> getWindowTileDims();
    /// For each dimension of the window's memref, its index tile or null.
    llvm::SmallVector<mlir::Value> getGatherPerDim();
  }];
}

def Tile_FillOp : Tile_Op<"fill"> {
  let summary = "set every element of a tile to a value";
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemWrite]>:$dest,
                       AnyType:$value);
  let assemblyFormat = "$dest `,` $value attr-dict `:` type($dest) `,` type($value)";
  let hasVerifier = 1;
}

def Tile_GemmOp : Tile_Op<"gemm"> {
  let summary = "C (+)= op(A) * op(B) on tiles";
  let description = [{
    `op(A)` is A or its transpose (`transpose_a`), likewise for B. op(A) is
    MxK, op(B) is KxN, C is MxN. With `clear`, C is overwritten; otherwise the
    product is accumulated into C. Products are accumulated in C's type.
    `warps_m` fixes how many of the matrix instruction's thread groups
    (warps; warpgroups for wgmma) lie along M, the rest along N.
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$a,
                       Arg<AnyStaticShapeMemRef, "", [MemRead]>:$b,
                       Arg<AnyStaticShapeMemRef, "", [MemRead, MemWrite]>:$c,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       UnitAttr:$clear,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$warps_m);
  let assemblyFormat = "$a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)";
  let builders = [OpBuilder<(ins "mlir::Value":$a, "mlir::Value":$b,
                                 "mlir::Value":$c), [{
    build($_builder, $_state, a, b, c, nullptr, nullptr, nullptr, nullptr);
  }]>];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce"> {
  let summary = "reduce a tile along one dimension";
  let description = [{
    `dest` has the shape of `source` without dimension `dim`. With `clear`
    the result overwrites dest; otherwise it is combined with dest's values.
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$source,
                       Arg<AnyStaticShapeMemRef, "", [MemRead, MemWrite]>:$dest,
                       Tile_ReduceKindAttr:$kind, I64Attr:$dim, UnitAttr:$clear);
  let assemblyFormat = "$kind $source `to` $dest attr-dict `:` type($source) `,` type($dest)";
  let hasVerifier = 1;
}

def Tile_ClusterReduceOp : Tile_Op<"cluster_reduce"> {
  let summary = "combine a tile element-wise over a thread block cluster";
  let description = [{
    In a kernel with `tile.cluster_blocks` = c, every block of a cluster
    (blocks x, x + 1, ... in groups of c along the grid's x) replaces each
    element of `tile` with the sum, max or min of that element over the c
    blocks, combined in block order so that every block gets the same
    bits. Every thread of every block of the cluster must reach it.

    ```mlir
    tile.cluster_reduce <max> %m : memref<1xf32>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead, MemWrite]>:$tile,
                       Tile_ReduceKindAttr:$kind);
  let assemblyFormat = "$kind $tile attr-dict `:` type($tile)";
}

def Tile_AtomicAddOp : Tile_Op<"atomic_add"> {
  let summary = "atomically add a tile into a window of a tensor";
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$source,
                       Arg<AnyMemRef, "", [MemRead, MemWrite]>:$dest,
                       Variadic<Index>:$destIndices);
  let assemblyFormat = [{
    $source `to` $dest `[` $destIndices `]` attr-dict `:` type($source) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load", [
    TypesMatchWith<"value has the tensor's element type", "tensor", "result",
                   "::llvm::cast<::mlir::MemRefType>($_self).getElementType()">]> {
  let summary = "read one element of a global tensor (zero outside it)";
  let description = [{
    Reads the element of a global tensor at `indices`. An index outside the
    tensor's bounds (negative or past the size) reads zero, like a copy
    window's ragged edge does.

    ```mlir
    %v = tile.load %offsets[%e] : memref<?xi32, strided<[?], offset: ?>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$tensor,
                       Variadic<Index>:$indices);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $tensor `[` $indices `]` attr-dict `:` type($tensor)
  }];
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "mlir::Value":$tensor,
                                 "mlir::ValueRange":$indices), [{
    build($_builder, $_state,
          llvm::cast<mlir::MemRefType>(tensor.getType()).getElementType(),
          tensor, indices);
  }]>];
}

def Tile_StoreOp : Tile_Op<"store", [
    TypesMatchWith<"value has the tensor's element type", "tensor", "value",
                   "::llvm::cast<::mlir::MemRefType>($_self).getElementType()">]> {
  let summary = "write one element of a global tensor (dropped outside it)";
  let description = [{
    Writes `value` to the element of a global tensor at `indices`; nothing
    is written when an index is outside the tensor's bounds.
  }];
  let arguments = (ins AnyType:$value,
                       Arg<AnyMemRef, "", [MemWrite]>:$tensor,
                       Variadic<Index>:$indices);
  let assemblyFormat = [{
    $value `,` $tensor `[` $indices `]` attr-dict `:` type($tensor)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicOp : Tile_Op<"atomic", [
    TypesMatchWith<"value has the tensor's element type", "tensor", "value",
                   "::llvm::cast<::mlir::MemRefType>($_self).getElementType()">]> {
  let summary = "atomically combine a value into one element of a tensor";
  let description = [{
    `tensor[indices] = kind(tensor[indices], value)` as one atomic
    read-modify-write, for `sum`, `max` and `min`; nothing happens when an
    index is outside the tensor's bounds. Each execution combines once: a
    target that runs a statement on several threads makes one of them do it.

    ```mlir
    tile.atomic <sum> %one, %counts[%e] : memref<?xi32, strided<[?], offset: ?>>
    ```
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind, AnyType:$value,
                       Arg<AnyMemRef, "", [MemRead, MemWrite]>:$tensor,
                       Variadic<Index>:$indices);
  let assemblyFormat = [{
    $kind $value `,` $tensor `[` $indices `]` attr-dict `:` type($tensor)
  }];
  let hasVerifier = 1;
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator, ReturnLike,
                                     ParentOneOf<["ParallelOp"]>]> {
  let summary = "terminates a tile.parallel body";
  let assemblyFormat = "attr-dict";
}

def Tile_ParallelOp : Tile_Op<"parallel", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "elementwise loop nest over a tile-shaped index space";
  let description = [{
    The body runs once per point of `shape`, in no particular order and
    possibly concurrently; iterations must not depend on each other. The
    block arguments are the indices.

    ```mlir
    tile.parallel [128, 64] {
    ^bb0(%i: index, %j: index):
      ...
    }
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$shape);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$shape $body attr-dict";
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "llvm::ArrayRef<int64_t>":$shape)>];
}

#endif // TLC_TILE_OPS_TD
