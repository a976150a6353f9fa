// RUN: tlc-opt %s -split-input-file '--tile-attach-target=target=cuda arch=sm_90a' --tile-infer-layouts --tile-gpu-kernel-abi --tile-plan-pipelines 2>/dev/null | FileCheck %s
// tile-plan-pipelines makes a warp-specialized kernel persistent
// (tile.walks_tiles on its loop: its blocks walk the grid's tiles) on 2-D
// and 3-D grids when every block runs the loop equally often and the
// fragments leave the consumers 32 registers for the walk. Without it the
// kernel keeps a block per tile: a loop whose bound depends on the block
// (a causal mask's diagonal) or on a loaded value (a per-block count), a 1-D
// grid, or fragments that fill the consumers' 232 registers.

// CHECK-LABEL: gpu.func @tlc_grid3
// CHECK: } {tile.pipeline_stages = 4 : i64, tile.producer_threads = 128 : i64, tile.stages = 4 : i64, tile.walks_tiles}
func.func @grid3(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %C: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index, %counts: memref<?xindex>)
    attributes {tile.kernel, tile.grid_rank = 3 : i64, tile.threads = 256 : i64} {
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

// CHECK-LABEL: gpu.func @tlc_by_block
// CHECK: } {tile.pipeline_stages = 4 : i64, tile.producer_threads = 128 : i64, tile.stages = 4 : i64}
func.func @by_block(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %C: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index, %counts: memref<?xindex>)
    attributes {tile.kernel, tile.grid_rank = 3 : i64, tile.threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.0 : f32
  %bx = tile.block_id 0
  %ub = arith.addi %bx, %n : index
  %acc = tile.alloc : memref<128x256xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<64x256xbf16, #tile.scope<shared>>
  %As = tile.alloc : memref<128x64xbf16, #tile.scope<shared>>
  tile.fill %acc, %cst : memref<128x256xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %ub step %c1 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<128x64xbf16, #tile.scope<shared>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<128x64xbf16, #tile.scope<shared>>, memref<64x256xbf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
  } {tile.stages = 4 : i64}
  tile.copy %acc to %C[%c0, %c0] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  return
}

// -----

// CHECK-LABEL: gpu.func @tlc_loaded
// CHECK: } {tile.pipeline_stages = 4 : i64, tile.producer_threads = 128 : i64, tile.stages = 4 : i64}
func.func @loaded(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %C: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index, %counts: memref<?xindex>)
    attributes {tile.kernel, tile.grid_rank = 2 : i64, tile.threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.0 : f32
  %ub = memref.load %counts[%c0] : memref<?xindex>
  %acc = tile.alloc : memref<128x256xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<64x256xbf16, #tile.scope<shared>>
  %As = tile.alloc : memref<128x64xbf16, #tile.scope<shared>>
  tile.fill %acc, %cst : memref<128x256xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %ub step %c1 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<128x64xbf16, #tile.scope<shared>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<128x64xbf16, #tile.scope<shared>>, memref<64x256xbf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
  } {tile.stages = 4 : i64}
  tile.copy %acc to %C[%c0, %c0] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  return
}

// -----

// CHECK-LABEL: gpu.func @tlc_grid1
// CHECK: } {tile.pipeline_stages = 4 : i64, tile.producer_threads = 128 : i64, tile.stages = 4 : i64}
func.func @grid1(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %C: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index, %counts: memref<?xindex>)
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

// Two 128 x 256 f32 accumulators: 256 registers per thread.
// CHECK-LABEL: gpu.func @tlc_full
// CHECK: tile.producer_threads = 128 : i64, tile.stages = 4 : i64}
func.func @full(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %C: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index, %counts: memref<?xindex>)
    attributes {tile.kernel, tile.grid_rank = 2 : i64, tile.threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<128x256xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<64x256xbf16, #tile.scope<shared>>
  %As = tile.alloc : memref<128x64xbf16, #tile.scope<shared>>
  tile.fill %acc, %cst : memref<128x256xf32, #tile.scope<fragment>>, f32
  %acc2 = tile.alloc : memref<128x256xf32, #tile.scope<fragment>>
  tile.fill %acc2, %cst : memref<128x256xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %n step %c1 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<128x64xbf16, #tile.scope<shared>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<128x64xbf16, #tile.scope<shared>>, memref<64x256xbf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
  } {tile.stages = 4 : i64}
  tile.copy %acc to %C[%c0, %c0] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  tile.copy %acc2 to %C[%c0, %c0] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  return
}

// -----

// A bound from a tensor's size (a kernel parameter after tile-gpu-kernel-abi)
// is the same in every block.
// CHECK-LABEL: gpu.func @tlc_sized
// CHECK: tile.walks_tiles}
func.func @sized(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %C: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index, %counts: memref<?xindex>)
    attributes {tile.kernel, tile.grid_rank = 3 : i64, tile.threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.0 : f32
  %k1 = memref.dim %A, %c1 : memref<?x?xbf16, strided<[?, 1], offset: ?>>
  %ub = arith.divui %k1, %c64 : index
  %acc = tile.alloc : memref<128x256xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<64x256xbf16, #tile.scope<shared>>
  %As = tile.alloc : memref<128x64xbf16, #tile.scope<shared>>
  tile.fill %acc, %cst : memref<128x256xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %ub step %c1 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<128x64xbf16, #tile.scope<shared>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<128x64xbf16, #tile.scope<shared>>, memref<64x256xbf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
  } {tile.stages = 4 : i64}
  tile.copy %acc to %C[%c0, %c0] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  return
}

// -----

// A kernel of clusters (tile.cluster_blocks) is neither warp-specialized
// nor persistent: a producer warpgroup looping on its own could not join
// the cluster's barriers, and a block index stands for a cluster member.
// CHECK-LABEL: gpu.func @tlc_clustered
// CHECK: } {tile.pipeline_stages = 4 : i64, tile.stages = 4 : i64}
func.func @clustered(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %C: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.grid_rank = 3 : i64, tile.threads = 256 : i64, tile.cluster_blocks = 2 : i64} {
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
