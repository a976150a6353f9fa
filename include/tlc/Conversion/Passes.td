//===- Passes.td - Lowerings of the tile dialect -----------*- tablegen -*-===//
#ifndef TLC_CONVERSION_PASSES_TD
#define TLC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToCPU : Pass<"convert-tile-to-cpu", "mlir::ModuleOp"> {
  let summary = "Lower tile ops to scf/vector/memref for the CPU";
  let description = [{
    On the CPU a block is a task and every tile (shared, fragment, local) is
    block-local memory on the stack. This pass:
    - turns `tile.alloc` into `memref.alloca` and drops tile memory scopes;
    - lowers `tile.copy` to row loops of masked vector transfers (ragged
      edges read zero and are not written), converting element types;
    - lowers `tile.gemm` to a register-blocked micro-kernel: an MRxNR block
      of C lives in vector registers across the K loop, fed by broadcast A
      elements and vector rows of B (`vector.fma`);
    - lowers `tile.reduce` to vector accumulation plus `vector.reduction`;
    - vectorizes `tile.parallel` along its innermost dimension (uniform
      values stay scalar, lane-varying ones become vectors; contiguous
      accesses become vector loads/stores), with a narrower vector for the
      remainder;
    - turns each kernel into the CPU block ABI: `tile.block_id` becomes three
      trailing index arguments and the function gets a C interface;
    - unrolls `scf.for` loops marked `tile.unroll = U` (the language's
      `for k in range(n, unroll = U)`) by U.

    Before:
    ```mlir
    tile.fill %acc, %zero : memref<4x16xf32, #tile.scope<fragment>>, f32
    ```
    After (vector-bits=256):
    ```mlir
    %a = memref.alloca() : memref<4x16xf32>
    scf.for ... { vector.store %zeros, ... : memref<64xf32>, vector<8xf32> }
    ```
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", "256",
           "width of the target's vector registers in bits">,
    Option<"vectorRegisters", "vector-registers", "unsigned", "16",
           "number of vector registers (sizes the gemm register block)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
    "mlir::math::MathDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect"
  ];
}

def CPUApproximateMath : Pass<"cpu-approximate-math"> {
  let summary = "Replace math functions by polynomial approximations";
  let description = [{
    Vector `math.exp`, `math.tanh`, `math.erf`, `math.log` (and others the
    upstream patterns cover) would otherwise become one libm call per lane.
    This pass rewrites exp, expm1, log, log1p, log2, tanh, erf and erfc,
    scalar and vector alike, into the polynomial approximations MLIR
    provides (f32 accuracy; f16/bf16 compute in f32; subnormal inputs of
    log/log2 count as the smallest normal number), so `parallel` bodies
    with these functions stay vectorized. exp2 becomes exp and rsqrt
    1 / sqrt. Other functions (sin, cos, pow, ...) keep exact libm calls.

    Before:
    ```mlir
    %y = math.exp %x : vector<8xf32>
    ```
    After: arith/vector ops only (fma, bitcasts, selects), no `math.exp`.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::vector::VectorDialect"
  ];
}

def ConvertTileToGPU : Pass<"convert-tile-to-gpu", "mlir::ModuleOp"> {
  let summary = "Lower tile kernels to gpu.func kernels (SIMT)";
  let description = [{
    Moves every kernel into `gpu.module @tlc_kernels` as a `gpu.func`
    named `tlc_NAME` with the launch ABI of docs/abi.md: per tensor of rank
    R a data pointer (a `memref<1xT>` passed as a bare pointer and
    reinterpreted with the real sizes), R sizes and
    R strides (i64), then scalars by value (bool as i8). `tile.block_id`
    becomes `gpu.block_id`. Tiles get storage: shared tiles are views into
    one dynamic shared memory buffer (128-byte aligned, size recorded in
    `tile.shared_bytes`), local tiles per-thread allocas, and fragments
    per-thread register arrays laid out by their `tile.layout` (run
    tile-infer-layouts first). Tile ops become loops over the elements each
    thread owns: fragments by layout, shared/global tiles round-robin over
    the threads, with bounds checks on global windows; reductions combine
    registers, then lanes with `gpu.shuffle xor`, then warps through shared
    scratch; gemm accumulates in registers, on the target's matrix
    instructions when the accumulator has the layout of the target's MMA
    kind (NVIDIA: ldmatrix + mma.sync m16n8k16; AMD: MFMA) and with FMAs
    otherwise. Rows of shared tiles whose length is a multiple of 32 bytes
    get 16 bytes of padding so matrix loads read no bank twice. When the
    target has asynchronous copies, copies from global memory into shared
    tiles in loops marked `tile.stages = S` (`pipelined`) become S-stage
    pipelines (multi-buffered tiles, a wait for the oldest group and a
    barrier per iteration). A `gpu.barrier` follows every op that touches
    shared memory.

    Everything target-specific comes from the module's `#tile.target`
    (warp size, shared-memory limit, largest block, asynchronous copies, MMA
    kind) and the vendor's target info that its `vendor` selects
    (lib/Conversion/TileToGPU/NVIDIA, AMD); the pass has no options.

    Before:
    ```mlir
    func.func @k(%X: memref<?xf32, strided<[1], offset: ?>>)
        attributes {tile.kernel, tile.threads = 128 : i64} { ... }
    ```
    After:
    ```mlir
    gpu.module @tlc_kernels {
      gpu.func @tlc_k(%X: memref<1xf32>, %n: i64, %s: i64) kernel
          attributes {known_block_size = array<i32: 128, 1, 1>} { ... }
    }
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::math::MathDialect",
    "mlir::gpu::GPUDialect", "mlir::vector::VectorDialect"
  ];
}

#endif // TLC_CONVERSION_PASSES_TD
