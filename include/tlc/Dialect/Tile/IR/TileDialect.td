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

def Tile_LayoutAttr : AttrDef<Tile_Dialect, "Layout"> {
  let mnemonic = "layout";
  let summary = "how a fragment's elements are spread over a block's threads";
  let description = [{
    A fragment of shape [d0, ..., dn] lives in the registers of a block's
    `threads` threads. Each dimension is split into factors (listed major to
    minor within a dimension, dimensions in order); factor f covers
    `extents[f]` values of dimension `dims[f]`. A thread factor takes its
    digit from the thread id, `(tid / thread_strides[f]) % extents[f]`; a
    slot factor from the register slot, `(slot / slot_strides[f]) %
    extents[f]` (the other stride is 0). A factor with dim -1 is a
    replication: threads that differ only in its digit hold copies of the
    same elements. The element index along dimension d is the mixed-radix
    number of its factors' digits.

    ```mlir
    // 64x128 over 128 threads: 4 warps on rows, 32 lanes x 4 registers on
    // columns, 16 row registers.
    #tile.layout<threads = 128, dims = [0, 0, 1, 1], extents = [16, 4, 32, 4],
                 thread_strides = [0, 32, 1, 0], slot_strides = [4, 0, 0, 1]>
    ```
  }];
  let parameters = (ins "int64_t":$threads,
                        ArrayRefParameter<"int64_t">:$dims,
                        ArrayRefParameter<"int64_t">:$extents,
                        ArrayRefParameter<"int64_t">:$thread_strides,
                        ArrayRefParameter<"int64_t">:$slot_strides);
  let assemblyFormat = [{
    `<` `threads` `=` $threads `,` `dims` `=` `[` $dims `]` `,`
    `extents` `=` `[` $extents `]` `,`
    `thread_strides` `=` `[` $thread_strides `]` `,`
    `slot_strides` `=` `[` $slot_strides `]` `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_TargetAttr : AttrDef<Tile_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "what a GPU target offers the tile passes";
  let description = [{
    Set once on the module (as `tile.target`) from `-target` and `-arch`,
    and read by every pass that makes a target-dependent choice, so no
    pass takes architecture facts as options. `vendor` names the target
    (it selects the GPU lowering's target info), `arch` the architecture;
    `warp_size` is the threads that run in lockstep (a warp or wave),
    `max_shared_bytes` the shared memory (LDS) a block may use,
    `max_threads` the largest block, `max_registers` the 32-bit registers
    a thread may hold fragments in, `vector_bytes` the widest vector
    memory access, `async_copy` whether global-to-shared copies can run
    asynchronously (so `pipelined` loops overlap them with compute) and
    `mma` the matrix instruction families gemms may use, comma-separated
    in order of preference (empty: none), as registered by the vendor's
    lowering.

    ```mlir
    module attributes {tile.target = #tile.target<vendor = "rocm",
        arch = "gfx942", warp_size = 64, max_shared_bytes = 65536,
        max_threads = 1024, max_registers = 256, vector_bytes = 16, async_copy = false,
        mma = "mfma_f32_16x16x16">} { ... }
    ```
  }];
  let parameters = (ins StringRefParameter<"target name">:$vendor,
                        StringRefParameter<"architecture">:$arch,
                        "int64_t":$warp_size,
                        "int64_t":$max_shared_bytes,
                        "int64_t":$max_threads,
                        "int64_t":$max_registers,
                        "int64_t":$vector_bytes,
                        "bool":$async_copy,
                        StringRefParameter<"matrix instructions">:$mma);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // TLC_TILE_DIALECT_TD
