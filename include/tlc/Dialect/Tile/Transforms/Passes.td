//===- Passes.td - Target-neutral tile passes --------------*- tablegen -*-===//
#ifndef TLC_TILE_PASSES_TD
#define TLC_TILE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileSpecializeDims : Pass<"tile-specialize-dims", "mlir::ModuleOp"> {
  let summary = "Replace symbolic dimensions of kernel arguments by constants";
  let description = [{
    A kernel's symbolic dimensions (`M` in `A: f32[M, K]`) are dynamic by
    default and bound from the argument shapes at launch. `-D M=4096` on the
    tlc command line reaches this pass as the kernel's `tile.static_dims`
    (MLIRGen records it; the `dims` option adds bindings for every kernel),
    and the pass makes every argument dimension bound to `M` static. Canonicalization then folds `memref.dim`, grid math
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

def TilePackSubByte : Pass<"tile-pack-sub-byte", "mlir::ModuleOp"> {
  let summary = "Store u4/i4 elements two per byte and compute 4-bit values "
                "in bytes";
  let description = [{
    tlc's `u4` and `i4` are packed: two elements per byte along the
    innermost dimension, element 2c in the low nibble of byte c. MLIRGen
    emits them as `i4` memrefs and values; this pass leaves none, so no
    target has to know a 4-bit type:
    - kernel arguments and tiles of `i4` become `i8` memrefs with half the
      innermost size (the stub passes a packed tensor as its bytes); a
      `memref.dim` of the innermost dimension is doubled back;
    - copies move whole bytes: the innermost window origin (and a slice's
      start and length) is halved, which needs it to be provably even
      (`k * 64`, sums and min/max of such); otherwise the copy is an error;
    - an element read loads its byte and shifts the nibble down;
    - element writes are allowed only in a `tile.parallel` over the packed
      tile at its own indices: the parallel is halved along its innermost
      dimension, and each iteration runs the body for both elements of a
      byte and stores the byte (no two iterations share one);
    - `i4` values become `i8` values holding the nibble in their low bits;
      extensions, truncations, int/float and index conversions, constants
      and selects are rewritten; any other operation on them is an error
      (Sema computes 4-bit arithmetic in i32).

    Before:
    ```mlir
    %q = memref.load %Qs[%i, %j] : memref<16x64xi4, #tile.scope<shared>>
    %v = arith.extui %q : i4 to i32
    ```
    After (abridged):
    ```mlir
    %jb = arith.shrsi %j, %c1 : index
    %b = memref.load %Qs[%i, %jb] : memref<16x32xi8, #tile.scope<shared>>
    %n = arith.shrui %b, %shift : i8
    %q = arith.andi %n, %c15_i8 : i8
    %v = arith.extui %q : i8 to i32
    ```
    Runs after tile-specialize-dims (static sizes must be even) and before
    tile-expand-element-access.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def TileExpandF8 : Pass<"tile-expand-f8"> {
  let summary = "Lower the 8-bit float conversions and constants to integer "
                "operations on their bits";
  let description = [{
    tlc's f8e4m3 (MLIR's f8E4M3FN) and f8e5m2 (f8E5M2) are storage types:
    values are loaded, stored, selected and converted, and all arithmetic
    on them is done in f32 (Sema promotes it). No target knows these types,
    so this pass leaves them only where their bits are moved:
    - `arith.extf` from f8 decodes the bits into an f32 exactly (then
      widens or narrows that f32 to the result type, exactly too);
    - `arith.truncf` to f8 rounds an f32 (other sources go to f32 first) to
      nearest even, saturating to the largest finite value (448 or 57344;
      infinities too) with NaN kept NaN, as NVIDIA's `.satfinite`
      conversions do;
    - f8 constants become i8 constants and a bitcast.
    Loads, stores and memrefs of f8 stay: the LLVM and SPIR-V lowerings see
    one byte per element. Any other arith operation on f8 values is an
    error (nothing in tlc generates one).

    Before:
    ```mlir
    %h = arith.truncf %x : f32 to f8E4M3FN
    ```
    After (abridged):
    ```mlir
    %bits = arith.bitcast %x : f32 to i32
    ...
    %h = arith.bitcast %byte : i8 to f8E4M3FN
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TileExpandBF16Truncf : Pass<"tile-expand-bf16-truncf"> {
  let summary = "Round f32 -> bf16 truncations with integer operations";
  let description = [{
    Every `arith.truncf` from f32 (scalar or vector) to bf16 becomes
    round-to-nearest-even in integer operations: a NaN gets its quiet bit,
    then `(bits + 0x7fff + ((bits >> 16) & 1)) >> 16`. For targets without a
    native conversion: the CPU (where LLVM would call compiler-rt's
    `__truncsfbf2`, missing from libgcc), AMD GPUs and NVIDIA GPUs before
    sm_80. sm_80 and newer keep the truncation (one `cvt.rn.bf16.f32`).

    Before:
    ```mlir
    %h = arith.truncf %x : f32 to bf16
    ```
    After (abridged):
    ```mlir
    %bits = arith.bitcast %x : f32 to i32
    ...
    %h = arith.bitcast %narrow : i16 to bf16
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TileExpandElementAccess : Pass<"tile-expand-element-access"> {
  let summary = "Lower tensor element accesses to bounds-checked memref ops";
  let description = [{
    `tile.load`, `tile.store` and `tile.atomic` read, write and combine one
    element of a global tensor, with defined behaviour outside its bounds
    (a load reads zero, a store or an atomic does nothing). This pass makes
    that check explicit for every target: each access becomes an `scf.if`
    on `index < size` for every dimension (unsigned, so negative indices
    fail too) around `memref.load` (else zero), `memref.store` or
    `memref.atomic_rmw` (`addf`/`addi`, `maximumf`/`maxs`, `minimumf`/
    `mins`). Checks on static sizes with constant indices fold away.

    Before:
    ```mlir
    %v = tile.load %X[%i] : memref<?xf32, strided<[?], offset: ?>>
    ```
    After:
    ```mlir
    %n = memref.dim %X, %c0 : memref<?xf32, strided<[?], offset: ?>>
    %ok = arith.cmpi ult, %i, %n : index
    %v = scf.if %ok -> (f32) {
      %x = memref.load %X[%i] : memref<?xf32, strided<[?], offset: ?>>
      scf.yield %x : f32
    } else {
      scf.yield %cst0 : f32
    }
    ```
    Runs right after MLIRGen's module is specialized, before every target's
    lowering; GPU targets then make one thread of those that run an
    iteration perform its stores and atomics.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def TileHoistVarLoads : Pass<"tile-hoist-var-loads"> {
  let summary = "Read the vars a loop does not write before the loop";
  let description = [{
    MLIRGen makes a `var` a rank-0 `memref.alloca` and every use of it a
    `memref.load`. In an `scf.for` that reads a var but never writes it (no
    store or other use of the alloca than loads, at any depth), the loads
    move in front of the loop, so that what depends on them is
    loop-invariant. This matters for `pipelined` loops: a copy whose origin
    is read from memory in each iteration cannot be issued stages ahead,
    and the GPU lowering would leave its copies synchronous. Inner loops go
    first, so a read may leave several loops.

    Before:
    ```mlir
    scf.for %k = %c0 to %n step %c1 {
      %row = memref.load %first[] : memref<index>
      tile.copy %A[%row, %k] to %As : ...
    } {tile.stages = 3 : i64}
    ```
    After:
    ```mlir
    %row = memref.load %first[] : memref<index>
    scf.for %k = %c0 to %n step %c1 {
      tile.copy %A[%row, %k] to %As : ...
    } {tile.stages = 3 : i64}
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def TileInferLayouts : Pass<"tile-infer-layouts", "mlir::ModuleOp"> {
  let summary = "Give every fragment a thread layout (#tile.layout)";
  let description = [{
    For targets that run a block on many threads, each `fragment` tile is
    spread over the registers of the block's `tile.threads` threads. This
    pass picks the spreading, as a `tile.layout` attribute on the fragment's
    `tile.alloc`, from the ops that use it:
    - `tile.gemm` fixes its accumulator's layout: when the module's
      `#tile.target` names an MMA kind (`mma`), the layout of that kind's
      accumulator (e.g. NVIDIA's m16n8k16 mma.sync, AMD's MFMA) if the
      operands suit it (supported types in shared memory, or A in
      registers where the kind allows it, sizes multiples of the
      instruction tile), otherwise the FMA (SIMT) accumulator layout;
    - `tile.reduce` gives its result the source layout without the reduced
      dimension (threads that held the reduced dimension hold copies);
    - a fragment-to-fragment `tile.copy` gives both sides one layout;
    - in a `tile.parallel` the iterations follow a fragment written at the
      loop indices; fragments read at the loop indices, or at a subset of
      them (`m[i]` in a loop over `(i, j)`), must use that layout or its
      projection.
    Fragments that nothing constrains get a row-major layout (innermost
    dimension over lanes, 8 consecutive elements per thread: 16-byte
    accesses for 16-bit types, two for 32-bit ones), largest
    first. A fragment whose uses cannot agree on a layout, or that is read
    in a way no thread-local layout serves (at other indices, outside
    `parallel`, as a gemm operand of the FMA path), moves to shared memory:
    its scope becomes `shared` and `tile.demoted` says why.

    Before:
    ```mlir
    %acc = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %acc : ...
    ```
    After:
    ```mlir
    %acc = tile.alloc {tile.layout = #tile.layout<threads = 128, ...>}
        : memref<64x64xf32, #tile.scope<fragment>>
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

#endif // TLC_TILE_PASSES_TD
