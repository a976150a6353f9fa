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
    - lowers `tile.cluster_reduce` (a kernel with `tile.cluster_blocks` > 1,
      whose blocks the stub runs a thread each) to a call that publishes
      the tile and returns every block's copy (`tlc_cpu_cluster_exchange`),
      the combination in block order, and a call that waits for the
      cluster (`tlc_cpu_cluster_sync`);
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

def TileCPUTaskNest : Pass<"tile-cpu-task-nest", "mlir::ModuleOp"> {
  let summary = "Give gemm-shaped kernels a whole-range task entry on the CPU";
  let description = [{
    A kernel whose body is `fill(acc)`, one loop of two tile loads and a
    `gemm` into `acc` (A's window not moving with block x, B's not with
    block y, the loop's bounds the same in every block) and an epilogue
    gets a second function, `tlc_tasks_NAME`, with five trailing index
    arguments (bx0, bx1, by0, by1, grid z). It runs the rectangle
    [bx0, bx1) x [by0, by1) of blocks in the order of a Goto/BLIS nest: per
    step of the loop each B tile of the rectangle's columns is copied once
    into a heap panel and each row block's A tile once, then multiplied into
    every column block's accumulator (a heap panel of the accumulator's
    tiles; each panel at most `panel-bytes`, larger rectangles in chunks of
    columns and rows); after the loop the kernel's epilogue runs per block,
    from a copy of its accumulator. The B panel holds each tile as strips as wide as
    the gemm micro-kernel's register block (two vectors, `vector-bits`),
    each strip contiguous, so the micro-kernel reads B sequentially. The
    CPU stub calls this entry once per worker thread. Other kernels are left
    alone.

    Before (the gemm example, abridged):
    ```mlir
    tile.fill %acc, %zero
    scf.for %k = ... { tile.copy %A[%by_row, %k_col] to %As
                       tile.copy %B[%k_row, %bx_col] to %Bs
                       tile.gemm %As, %Bs, %acc }
    tile.copy %acc to %C[...]
    ```
    After: the kernel unchanged, plus
    `func.func @tlc_tasks_gemm(..., %bx0, %bx1, %by0, %by1, %gz)` with
    `memref.alloc` panels and the loops above.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", "256",
           "width of the target's vector registers in bits (as for "
           "convert-tile-to-cpu)">,
    Option<"panelBytes", "panel-bytes", "int64_t", "16777216",
           "the most bytes a task keeps in each panel (B tiles, "
           "accumulators); larger rectangles go in chunks">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::func::FuncDialect"
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

def TileGPUKernelABI : Pass<"tile-gpu-kernel-abi", "mlir::ModuleOp"> {
  let summary = "Move tile kernels into a gpu.module with the launch ABI";
  let description = [{
    The first step of every GPU target. Each kernel (`func.func` with
    `tile.kernel`) becomes a `gpu.func` named `tlc_NAME` in
    `gpu.module @tlc_kernels` with the launch ABI of docs/abi.md: per tensor
    of rank R a data pointer (a `memref<1xT>` passed as a bare pointer), R
    sizes and R strides (i64), then scalars by value (bool as i8, index as
    i64). The body rebuilds each tensor with `memref.reinterpret_cast` and
    keeps its tile ops; `tile.block_id` becomes `gpu.block_id` (in a 2-D
    grid of a kernel with a gemm, the blocks are grouped 8 rows at a time,
    so that the blocks running together share operand tiles in L2). The block
    size is `known_block_size` (threads x 1 x 1), and `tile.threads` must be
    between 1 and the target's `max_threads`.

    Before:
    ```mlir
    func.func @k(%X: memref<?xf32, strided<[1], offset: ?>>)
        attributes {tile.kernel, tile.threads = 128 : i64} { ... }
    ```
    After:
    ```mlir
    gpu.module @tlc_kernels {
      gpu.func @tlc_k(%X: memref<1xf32>, %n: i64, %s: i64) kernel
          attributes {known_block_size = array<i32: 128, 1, 1>, ...} {
        %x = memref.reinterpret_cast %X to offset: [0], sizes: [%n'], ...
        ...
      }
    }
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "mlir::gpu::GPUDialect"
  ];
}

def TilePlanPipelines : Pass<"tile-plan-pipelines", "mlir::ModuleOp"> {
  let summary = "Choose the asynchronous copies and stages of pipelined loops";
  let description = [{
    For targets with asynchronous copies (`async_copy` in `#tile.target`),
    a loop marked `tile.stages = S` (`pipelined(n, stages = S)`) overlaps
    the copies of later iterations with compute. This pass decides what
    overlaps: the copies from global memory into shared tiles at the top
    level of the body whose source window depends only on pure ops of the
    loop index ("producers") get `tile.async`, and the loop gets
    `tile.pipeline_stages` (S, at most 8). Each producer's tile will need
    that many buffers: while the kernel's shared tiles (planned as
    tile-plan-shared-memory does) do not fit in `max_shared_bytes`, the
    loop with the most stages (of those, the one with the largest buffers)
    loses a stage, down to 2, then its pipelining. Without
    asynchronous copies the pass does nothing. convert-tile-to-gpu builds
    the pipelines.

    Producers the target's tensor-copy unit can run (NVIDIA sm_90+: a 2-D
    window of a kernel tensor into a tile swizzled for wgmma) also get
    `tile.tensor_copy`: one thread issues them (TMA) and a copy barrier
    per stage (mbarrier) says when they landed. A kernel whose one pipelined
    loop, at its top level, copies only that way for gemms on asynchronous
    MMAs, with at least two warpgroups, is warp-specialized: the loop gets
    `tile.producer_threads = 128`, a warpgroup the target adds to issue the
    copies while the kernel's threads compute. On a 2-D grid (the kernel
    becomes persistent) its copies of register fragments to windows of
    2-byte tensors (f16, bf16: the ones checked on a GPU so far) after the
    loop are staged for tensor stores (NVIDIA sm_90+: TMA): a
    shared tile of the destination's type, swizzled by 128 bytes, with
    `tile.store_staging = [chunk, buffers]` (the whole tile in one buffer,
    else the widest column chunk of which two buffers fit beside the
    stages, else one), written by a copy from the fragment, and the copy to
    the window reads it with `tile.tensor_copy`. Where no chunk fits the
    store stays as it was.

    Every other copy from a global window into a shared tile that the
    asynchronous copies can run (same dtype, rows of 16-byte chunks) and
    that is not inside a pipelined loop gets `tile.async_once`: it is
    issued as asynchronous copies and waited for at once, so each thread
    has all of its chunks in flight (a row staged in shared memory is read
    from DRAM in one burst instead of a chunk per loop iteration).

    Before:
    ```mlir
    scf.for %k = ... {
      tile.copy %A[%i, %k0] to %As : ...
      tile.gemm %As, %Bs, %acc : ...
    } {tile.stages = 3 : i64}
    ```
    After:
    ```mlir
    scf.for %k = ... {
      tile.copy %A[%i, %k0] to %As {tile.async} : ...
      tile.gemm %As, %Bs, %acc : ...
    } {tile.pipeline_stages = 3 : i64, tile.stages = 3 : i64}
    ```
  }];
}

def TilePlanSharedMemory : Pass<"tile-plan-shared-memory", "mlir::ModuleOp"> {
  let summary = "Give every shared tile its offset in the block's shared memory";
  let description = [{
    Places the shared tiles of each GPU kernel in one dynamic shared-memory
    buffer: a tile takes its size with padding (rows that are a multiple of
    32 bytes get 16 more bytes, against bank conflicts) times its buffers
    (the `tile.pipeline_stages` of the loop whose `tile.async` producer
    writes it). Tiles whose live ranges (first to last top-level op that
    uses them) do not overlap share bytes; the largest are placed first,
    each at the lowest free 128-byte aligned offset. Each shared
    `tile.alloc` gets `tile.shared_offset` (and `tile.buffers` when
    multi-buffered), the kernel `tile.shared_bytes` (the tiles' extent;
    convert-tile-to-gpu adds reduction scratch).

    Before:
    ```mlir
    %a = tile.alloc : memref<64x64xf16, #tile.scope<shared>>
    ```
    After:
    ```mlir
    %a = tile.alloc {tile.shared_offset = 0 : i64}
        : memref<64x64xf16, #tile.scope<shared>>
    ```
  }];
}

def TileGPUTensorCopyFallback
    : Pass<"tile-gpu-tensor-copy-fallback", "mlir::ModuleOp"> {
  let summary = "Add a variant without tensor copies of each kernel that has them";
  let description = [{
    Tensor copies (`tile.tensor_copy`, chosen by tile-plan-pipelines; NVIDIA's
    TMA) need tensors the copy unit accepts (on NVIDIA: 16-byte aligned data
    and strides); the launch stub checks that at run time. For every kernel
    `tlc_NAME` with tensor copies this pass adds `tlc_NAME$fallback`, the
    same kernel with those copies left to the ordinary asynchronous copies,
    and records its name in `tile.fallback` on the original; the stub
    launches it when a tensor breaks the rules (or when told to).
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def TileNVVMPartialBarriers
    : Pass<"tile-nvvm-partial-barriers", "mlir::ModuleOp"> {
  let summary = "Barriers of a warp-specialized kernel's consumers wait for them alone";
  let description = [{
    In a warp-specialized kernel the producer threads never reach the
    barriers of the computing threads' code (the region of the op with
    `tile.consumer_threads = N`). Each `gpu.barrier` there becomes the
    named barrier 1 for N threads (`bar.sync 1, N`); barrier 0 stays the
    whole block's.
  }];
  let dependentDialects = ["mlir::NVVM::NVVMDialect"];
}

def TileNVVMFloatMinMax
    : Pass<"tile-nvvm-float-min-max", "mlir::ModuleOp"> {
  let summary = "Keep NaN-propagating float min/max as LLVM intrinsics";
  let description = [{
    `arith.maximumf` / `arith.minimumf` (the language's `max`/`min` on
    floats, and reduce_max/reduce_min) become `llvm.intr.maximum` /
    `llvm.intr.minimum` before the upstream `arith-expand`, which would turn
    each into two compares and two selects. LLVM's NVPTX backend emits one
    `max.NaN`/`min.NaN` instruction where the chip has it (sm_80 and newer)
    and expands the intrinsic itself elsewhere, so the semantics (NaN
    propagates, -0 < +0) stay the same on every architecture.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def TileNVVMFastExp2 : Pass<"tile-nvvm-fast-exp2", "mlir::ModuleOp"> {
  let summary = "f32 exp2 as one ex2.approx.ftz instruction";
  let description = [{
    `math.exp2` on f32 (the language's `exp2`, which softmax and attention
    kernels take with log2(e) folded into their scale) becomes the
    `llvm.nvvm.ex2.approx.ftz.f` intrinsic before the upstream
    convert-gpu-to-nvvm would call libdevice's `__nv_exp2f`. That compiles
    to `ex2.approx.f32`, which ptxas expands into a compare, two
    predicated multiplies and the MUFU.EX2 to keep subnormal results; the
    ftz form is the MUFU.EX2 alone (same 2-ulp approximation; results
    below 2^-126 become 0, as with nvcc --use_fast_math). The CUDA target
    runs it unless `--precise-math` is given.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def TileNVVMF8Conversions
    : Pass<"tile-nvvm-f8-conversions", "mlir::ModuleOp"> {
  let summary = "Convert f32 <-> f8 with the cvt instructions of sm_89+";
  let description = [{
    For NVIDIA GPUs from sm_89 on, which convert two values per
    instruction: `arith.truncf` from f32 to f8E4M3FN / f8E5M2 (scalars and
    vectors) becomes `nvvm.convert.f32x2.to.f8x2` with round-to-nearest
    and `.satfinite` (`cvt.rn.satfinite.e4m3x2.f32`: the language's
    rounding, saturation included, NaN kept NaN), two lanes at a time;
    `arith.extf` from f8 becomes `nvvm.convert.f8x2.to.f16x2` (exact) and an
    f16 -> result extension (exact too). Older chips and the other targets
    leave these conversions to tile-expand-f8 (integer operations), which
    gives the same results.
  }];
  let dependentDialects = ["mlir::NVVM::NVVMDialect",
                           "mlir::vector::VectorDialect"];
}

def TileGPUSplitKernels
    : Pass<"tile-gpu-split-kernels", "mlir::ModuleOp"> {
  let summary = "Give every kernel a gpu.module of its own";
  let description = [{
    Moves each `gpu.func` kernel of a `gpu.module` that holds several into a
    `gpu.module` of its own (the first stays where it was; the others follow
    it in order, named `NAME_1`, `NAME_2`, ..., with NAME's attributes and
    `tile.split_from = "NAME"`). A pass pipeline nested on `gpu.module`
    then lowers the kernels on parallel threads; tile-gpu-merge-kernels
    puts them back together. Only kernels are moved: a module with other
    symbols is left alone, since its kernels may share them.

    Before:
    ```mlir
    gpu.module @tlc_kernels {
      gpu.func @a() kernel { ... }
      gpu.func @b() kernel { ... }
    }
    ```
    After:
    ```mlir
    gpu.module @tlc_kernels {
      gpu.func @a() kernel { ... }
    }
    gpu.module @tlc_kernels_1 attributes {tile.split_from = "tlc_kernels"} {
      gpu.func @b() kernel { ... }
    }
    ```
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def TileGPUMergeKernels
    : Pass<"tile-gpu-merge-kernels", "mlir::ModuleOp"> {
  let summary = "Merge the modules tile-gpu-split-kernels made";
  let description = [{
    Moves the symbols of every `gpu.module` marked `tile.split_from = "NAME"`
    back into module NAME, in order, and erases the emptied module. A
    symbol NAME already has is dropped when it is the same operation (the
    declarations and globals each module's lowering made alike, such as
    `llvm.func @__nv_expf` or the dynamic shared memory), and renamed
    uniquely, its uses in its module with it, when it differs.

    Before:
    ```mlir
    gpu.module @tlc_kernels {
      llvm.mlir.global internal @smem() : !llvm.array<0 x i8>
      llvm.func @a() { ... }
    }
    gpu.module @tlc_kernels_1 attributes {tile.split_from = "tlc_kernels"} {
      llvm.mlir.global internal @smem() : !llvm.array<0 x i8>
      llvm.func @b() { ... }
    }
    ```
    After:
    ```mlir
    gpu.module @tlc_kernels {
      llvm.mlir.global internal @smem() : !llvm.array<0 x i8>
      llvm.func @a() { ... }
      llvm.func @b() { ... }
    }
    ```
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def TileNVVMTensorMapParams
    : Pass<"tile-nvvm-tensor-map-params", "mlir::ModuleOp"> {
  let summary = "Pass a kernel's tensor maps by value as __grid_constant__";
  let description = [{
    After the lowering to the LLVM dialect: the trailing parameters of a
    kernel with `tile.tensor_maps` are TMA tensor maps. Each becomes a
    64-byte aligned 128-byte parameter passed by value (`llvm.byval`) and
    marked `nvvm.grid_constant`, so the kernel reads the map in parameter
    space, where cp.async.bulk.tensor may use it, and the host passes the
    128 bytes the driver encoded as the launch argument.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def TileVulkanPrepareSPIRV
    : Pass<"tile-vulkan-prepare-spirv", "mlir::ModuleOp"> {
  let summary = "Rewrite GPU kernels into the Vulkan ABI and flat memory";
  let description = [{
    SPIR-V for Vulkan uses logical addressing: kernels cannot take pointers,
    reinterpret memory or cast pointers. After convert-tile-to-gpu, for each
    kernel of a module whose #tile.target is Vulkan's:
    - tensor argument i becomes a runtime array (`memref<?xT>`) at
      descriptor set 0, binding i (`spirv.interface_var_abi`);
    - the scalar arguments become words of one push-constant block
      (`memref<Nxi32, PushConstant>`, the last argument): the element
      offset of each tensor in its binding, then one 32-bit word per scalar
      (i64 sizes and strides as i32; f32 as its bits);
    - every memref access goes to a 1-D root with a linear index, following
      reinterpret_cast, cast, subview and view back to the root; vector
      loads and stores become scalar ones, elementwise ops on vectors of
      more than 4 lanes (SPIR-V's limit) one op per lane; memref.dim and
      extract_strided_metadata become the sizes and strides;
    - shared tiles (views of gpu.dynamic_shared_memory) become one
      workgroup array per element type (an error when they exceed the
      target's workgroup memory), register arrays Function-storage arrays;
    - bf16 data is stored as i16 (loads and stores bitcast; SPIR-V has no
      bf16); f64 is refused;
    - the gpu.module gets `spirv.target_env` (SPIR-V 1.5, the -arch's
      subgroup size), each kernel `spirv.entry_point_abi` with its
      workgroup size and `tile.vulkan_push_words`.

    Before:
    ```mlir
    %v = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%m, %n],
        strides: [%s, 1] : memref<1xf32> to memref<?x?xf32, strided<[?, 1]>>
    %x = memref.load %v[%i, %j] : memref<?x?xf32, strided<[?, 1]>>
    ```
    After:
    ```mlir
    %x = memref.load %arg_buffer[%linear] : memref<?xf32>
    ```
  }];
  let dependentDialects = ["mlir::spirv::SPIRVDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::vector::VectorDialect"];
}

def TileVulkanConvertToSPIRV
    : Pass<"tile-vulkan-convert-to-spirv", "mlir::ModuleOp"> {
  let summary = "Convert prepared Vulkan kernels to the SPIR-V dialect";
  let description = [{
    After tile-vulkan-prepare-spirv: expands math.erf/erfc into polynomials
    (GLSL.std.450 has no erf) and bf16 extf/truncf into integer ops,
    retypes the remaining bf16 values (bitcasts, constants, scf results) to
    i16, maps memref memory spaces to Vulkan's
    storage classes and converts each gpu.module (gpu, scf, arith, math,
    memref, vector and func ops) into a spirv.module with upstream's
    patterns, 32-bit indices and structured control flow. Upstream's
    convert-gpu-to-spirv does the same without math and vector ops.
    `spirv-lower-abi-attrs` and `spirv-update-vce` run after it.
  }];
  let dependentDialects = ["mlir::spirv::SPIRVDialect"];
}

def TileGPUOrderGlobalMemory
    : Pass<"tile-gpu-order-global-memory", "mlir::ModuleOp"> {
  let summary = "Order a block's global-memory accesses across its threads";
  let description = [{
    Puts a `gpu.barrier {tile.global_order}` before a tile op (or element
    access) of a GPU kernel that reads a tensor an earlier op of the block
    wrote or atomically updated, or that writes or atomically updates a
    tensor an earlier op read, when no barrier lies between them (loops are
    followed around their back edge). Tensors are told apart by the kernel
    argument they come from (views included): the stub rejects outputs that
    overlap other arguments. Writes after writes and atomics after atomics
    are not ordered. tile-gpu-eliminate-barriers keeps these barriers.

    Before:
    ```mlir
    tile.copy %t to %Y[%i, %j] : ...
    tile.copy %Y[%i, %j] to %u : ...
    ```
    After:
    ```mlir
    tile.copy %t to %Y[%i, %j] : ...
    gpu.barrier {tile.global_order}
    tile.copy %Y[%i, %j] to %u : ...
    ```
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def TileGPUEliminateBarriers
    : Pass<"tile-gpu-eliminate-barriers", "mlir::ModuleOp"> {
  let summary = "Remove barriers that order no shared-memory accesses";
  let description = [{
    convert-tile-to-gpu places a `gpu.barrier` after every op that touches
    shared memory. A barrier is needed only between a write to shared
    memory and a later access, or a read and a later write, with no other
    barrier between them; this pass removes the others, looking at the
    accesses (memory effects on workgroup memrefs; unknown ops count as
    reads and writes) since the last kept barrier and up to the next one
    in the same block. The start and end of a block count as any access,
    except that the body of a pipelined loop (`tile.pipelined`) ends where
    the next iteration's leading barrier follows.

    Before:
    ```mlir
    memref.store %v, %shared[%i] : memref<128xf32, 3>
    gpu.barrier
    %x = memref.load %global[%i] : memref<?xf32>
    gpu.barrier
    ```
    After:
    ```mlir
    memref.store %v, %shared[%i] : memref<128xf32, 3>
    gpu.barrier
    %x = memref.load %global[%i] : memref<?xf32>
    ```
  }];
}

def ConvertTileToGPU : Pass<"convert-tile-to-gpu", "mlir::ModuleOp"> {
  let summary = "Lower tile kernels to gpu.func kernels (SIMT)";
  let description = [{
    Lowers the tile ops of the kernels that tile-gpu-kernel-abi moved into
    `gpu.module @tlc_kernels`. Tiles get storage: shared tiles are views
    into one dynamic shared memory buffer at the offsets of
    tile-plan-shared-memory (run it first; the total, with reduction
    scratch, is recorded in `tile.shared_bytes`), local tiles per-thread
    allocas, and fragments per-thread register arrays laid out by their
    `tile.layout` (run
    tile-infer-layouts first). Tile ops become loops over the elements each
    thread owns: fragments by layout, shared/global tiles round-robin over
    the threads, with bounds checks on global windows; reductions combine
    registers, then lanes with `gpu.shuffle xor`, then warps through shared
    scratch; gemm accumulates in registers, on the target's matrix
    instructions when the accumulator has the layout of the target's MMA
    kind (NVIDIA: ldmatrix + mma.sync m16n8k16; AMD: MFMA) and with FMAs
    otherwise. The loops tile-plan-pipelines chose become S-stage pipelines
    (multi-buffered tiles, the `tile.async` copies of iteration k + S - 1
    issued while iteration k computes, a wait for the oldest group and a
    barrier per iteration). A `gpu.barrier` follows every op that touches
    shared memory (tile-gpu-eliminate-barriers removes the ones that order
    nothing).

    Everything target-specific comes from the module's `#tile.target`
    (warp size, shared-memory limit, largest block, asynchronous copies, MMA
    kind) and the vendor's target info that its `vendor` selects
    (lib/Conversion/TileToGPU/NVIDIA, AMD); the pass has no options.

    Before:
    ```mlir
    gpu.func @tlc_k(...) kernel {
      tile.fill %acc, %zero : memref<64xf32, #tile.scope<fragment>>, f32
    }
    ```
    After:
    ```mlir
    gpu.func @tlc_k(...) kernel {
      %slots = memref.alloca() : memref<1xf32>
      memref.store %zero, %slots[%c0] : memref<1xf32>
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
