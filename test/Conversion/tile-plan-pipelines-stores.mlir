// RUN: tlc-opt %s -split-input-file '--tile-attach-target=target=cuda arch=sm_90a' --tile-infer-layouts --tile-gpu-kernel-abi --tile-plan-pipelines | FileCheck %s
// RUN: tlc-opt %s -split-input-file '--tile-attach-target=target=cuda arch=sm_80' --tile-infer-layouts --tile-gpu-kernel-abi --tile-plan-pipelines | FileCheck %s --check-prefix=SM80
// tile-plan-pipelines stages the accumulator stores of a warp-specialized
// kernel on a 2-D grid (it becomes persistent) through a shared tile of the
// destination's type, swizzled by 128 bytes: the fragment is copied there
// and a tensor store (tile.tensor_copy on the copy to the window) writes it
// out. The tile's storage (tile.store_staging = [chunk, buffers]) is what
// fits beside the loop's stages: 128 x 256 bf16 (64 KiB) beside four stages
// of 48 KiB does not fit sm_90a's 227 KiB, nor two buffers of 128 columns;
// two of 64 (one swizzle atom, 2 x 16 KiB) do. The stages stay.
// sm_80 has no tensor copies: nothing changes.
// SM80-NOT: tile.store_staging
// RUN: tlc-opt %s -split-input-file '--tile-attach-target=target=cuda arch=sm_90a' --tile-infer-layouts --tile-gpu-kernel-abi --tile-plan-pipelines -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// CHECK-LABEL: gpu.func @tlc_staged
// CHECK: %[[STAGE:.*]] = tile.alloc {tile.store_staging = array<i64: 64, 2>, tile.swizzle = 128 : i64} : memref<128x256xbf16, #tile.scope<shared>>
// CHECK: scf.for
// CHECK: } {tile.pipeline_stages = 4 : i64, tile.producer_threads = 128 : i64, tile.stages = 4 : i64, tile.walks_tiles}
// CHECK: tile.copy %[[ACC:.*]] to %[[STAGE]] : memref<128x256xf32, #tile.scope<fragment>>, memref<128x256xbf16, #tile.scope<shared>>
// CHECK-NEXT: tile.copy %[[STAGE]] to %{{.*}}[%{{.*}}, %{{.*}}] {tile.tensor_copy} : memref<128x256xbf16, #tile.scope<shared>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
func.func @staged(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %C: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.grid_rank = 2 : i64, tile.threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<128x256xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<64x256xbf16, #tile.scope<shared>>
  %As = tile.alloc : memref<128x64xbf16, #tile.scope<shared>>
  tile.fill %acc, %cst : memref<128x256xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %n step %c1 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<128x64xbf16, #tile.scope<shared>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<128x64xbf16, #tile.scope<shared>>, memref<64x256xbf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
  } {tile.stages = 4 : i64}
  tile.copy %acc to %C[%c0, %c0] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  return
}

// -----

// A 1-D grid (the kernel stays one tile per block): the store stays.
// CHECK-LABEL: gpu.func @tlc_one_tile
// CHECK-NOT: tile.store_staging
// CHECK: tile.copy %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x256xf32, #tile.scope<fragment>>
func.func @one_tile(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %C: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.grid_rank = 1 : i64, tile.threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<128x256xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<64x256xbf16, #tile.scope<shared>>
  %As = tile.alloc : memref<128x64xbf16, #tile.scope<shared>>
  tile.fill %acc, %cst : memref<128x256xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %n step %c1 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<128x64xbf16, #tile.scope<shared>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<128x64xbf16, #tile.scope<shared>>, memref<64x256xbf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
  } {tile.stages = 4 : i64}
  tile.copy %acc to %C[%c0, %c0] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  return
}

// -----

// f32 results stay stores from registers (only 2-byte results are staged
// so far: those have run against references on a GPU).
// CHECK-LABEL: gpu.func @tlc_f32
// REMARK: remark: accumulator store of kernel 'f32' stays a store from registers: tensor stores are staged for 2-byte results only so far
// CHECK-NOT: tile.store_staging
// CHECK: tile.copy %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xf32
// With another 24 KiB tile beside the stages, not even one buffer of one
// swizzle atom (128 x 64 bf16, 16 KiB) fits: the store stays.
// CHECK-LABEL: gpu.func @tlc_too_big
// REMARK: remark: accumulator store of kernel 'too_big' stays a store from registers: no staging tile of whole 128-byte column chunks fits in shared memory beside the pipeline's stages
// CHECK-NOT: tile.store_staging
// CHECK: } {tile.pipeline_stages = 4 : i64, tile.producer_threads = 128 : i64, tile.stages = 4 : i64, tile.walks_tiles}
// CHECK: tile.copy %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xbf16
func.func @f32(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %C: memref<?x?xf32, strided<[?, 1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.grid_rank = 2 : i64, tile.threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<128x256xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<64x256xbf16, #tile.scope<shared>>
  %As = tile.alloc : memref<128x64xbf16, #tile.scope<shared>>
  tile.fill %acc, %cst : memref<128x256xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %n step %c1 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<128x64xbf16, #tile.scope<shared>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<128x64xbf16, #tile.scope<shared>>, memref<64x256xbf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
  } {tile.stages = 4 : i64}
  tile.copy %acc to %C[%c0, %c0] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

func.func @too_big(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %C: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.grid_rank = 2 : i64, tile.threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<128x256xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<64x256xbf16, #tile.scope<shared>>
  %extra = tile.alloc : memref<128x96xbf16, #tile.scope<shared>>
  %As = tile.alloc : memref<128x64xbf16, #tile.scope<shared>>
  tile.fill %acc, %cst : memref<128x256xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %n step %c1 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<128x64xbf16, #tile.scope<shared>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<128x64xbf16, #tile.scope<shared>>, memref<64x256xbf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
  } {tile.stages = 4 : i64}
  tile.copy %acc to %C[%c0, %c0] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  return
}

// -----

// A persistent kernel keeps its shared tiles live throughout: with a 48 KiB
// tile beside them, 4 stages (192 KiB) no longer fit and the loop keeps 3
// (a remark says why); then one staging buffer of 64 columns fits (the
// padded 50 KiB tile leaves no room for two).
// CHECK-LABEL: gpu.func @tlc_refit
// CHECK: tile.alloc {tile.store_staging = array<i64: 64, 1>
// CHECK: } {tile.pipeline_stages = 3 : i64, tile.producer_threads = 128 : i64, tile.stages = 4 : i64, tile.walks_tiles}
// REMARK: remark: pipelined loop runs 3 stages instead of 4 in kernel 'refit': its shared tiles stay live across the tiles of the persistent kernel
func.func @refit(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %C: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.grid_rank = 2 : i64, tile.threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<128x256xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<64x256xbf16, #tile.scope<shared>>
  %extra = tile.alloc : memref<128x192xbf16, #tile.scope<shared>>
  %As = tile.alloc : memref<128x64xbf16, #tile.scope<shared>>
  tile.fill %acc, %cst : memref<128x256xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %n step %c1 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<128x64xbf16, #tile.scope<shared>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<128x64xbf16, #tile.scope<shared>>, memref<64x256xbf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
  } {tile.stages = 4 : i64}
  tile.copy %acc to %C[%c0, %c0] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  return
}

// -----

// C += A @ B reads C before the loop: its store, asynchronous, would not be
// ordered with the reads, so it is not staged (the kernel is still
// warp-specialized).
// CHECK-LABEL: gpu.func @tlc_accumulate
// REMARK: remark: accumulator store of kernel 'accumulate' stays a store from registers: the kernel accesses the tensor elsewhere, and a tensor store is not ordered with that
// CHECK-NOT: tile.store_staging
// CHECK: tile.producer_threads = 128
// CHECK: tile.copy %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xbf16
func.func @accumulate(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %C: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.grid_rank = 2 : i64, tile.threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<128x256xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<64x256xbf16, #tile.scope<shared>>
  %As = tile.alloc : memref<128x64xbf16, #tile.scope<shared>>
  tile.copy %C[%c0, %c0] to %acc : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<128x256xf32, #tile.scope<fragment>>
  scf.for %k = %c0 to %n step %c1 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<128x64xbf16, #tile.scope<shared>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<128x64xbf16, #tile.scope<shared>>, memref<64x256xbf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
  } {tile.stages = 4 : i64}
  tile.copy %acc to %C[%c0, %c0] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  return
}

// -----

// A kernel that reduces keeps its stores: the reduction's scratch needs the
// shared memory.
// CHECK-LABEL: gpu.func @tlc_reduces
// CHECK-NOT: tile.store_staging
// REMARK: remark: accumulator store of kernel 'reduces' stays a store from registers: the kernel reduces, and its scratch needs the shared memory a staging tile would take
func.func @reduces(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %C: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.grid_rank = 2 : i64, tile.threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<128x256xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<64x256xbf16, #tile.scope<shared>>
  %As = tile.alloc : memref<128x64xbf16, #tile.scope<shared>>
  tile.fill %acc, %cst : memref<128x256xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %n step %c1 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<128x64xbf16, #tile.scope<shared>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<128x64xbf16, #tile.scope<shared>>, memref<64x256xbf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
  } {tile.stages = 4 : i64}
  %rs = tile.alloc : memref<128xf32, #tile.scope<fragment>>
  tile.reduce <sum> %acc to %rs {dim = 1 : i64} : memref<128x256xf32, #tile.scope<fragment>>, memref<128xf32, #tile.scope<fragment>>
  tile.copy %acc to %C[%c0, %c0] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  return
}

