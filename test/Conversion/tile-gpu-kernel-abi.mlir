// RUN: tlc-opt %s --tile-attach-target --tile-gpu-kernel-abi | FileCheck %s '--implicit-check-not=func.func'
// tile-gpu-kernel-abi moves each kernel into gpu.module @tlc_kernels as
// gpu.func @tlc_NAME with the launch ABI of docs/abi.md: per tensor a bare
// data pointer (memref<1xT>), its sizes and strides as i64 (a static size
// stays a constant), then scalars (bool as i8, index as i64); the body
// rebuilds the tensors with memref.reinterpret_cast and keeps its tile ops;
// tile.block_id becomes gpu.block_id; the block size is known. A kernel
// with a gemm and a 2-D grid takes its blocks in groups of 8 rows: the
// linear hardware id by * gx + bx walks down the rows of its group first.

// CHECK: module attributes {gpu.container_module, tile.target = #tile.target<vendor = "cuda"
// CHECK: gpu.module @tlc_kernels {
// CHECK: gpu.func @tlc_abi(%[[X:.*]]: memref<1xf32>, %[[XM:.*]]: i64, %[[XN:.*]]: i64, %[[XS0:.*]]: i64, %[[XS1:.*]]: i64, %[[W:.*]]: memref<1xf16>, %[[WN:.*]]: i64, %[[WS:.*]]: i64, %[[FLAG:.*]]: i8, %[[N:.*]]: i64, %[[A:.*]]: f32) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME: tile.grid_rank = 2 : i64, tile.threads = 256 : i64
// CHECK-DAG: %[[M:.*]] = arith.index_cast %[[XM]] : i64 to index
// CHECK-DAG: %[[S0:.*]] = arith.index_cast %[[XS0]] : i64 to index
// CHECK-DAG: memref.reinterpret_cast %[[X]] to offset: [%{{.*}}], sizes: [%[[M]], %{{.*}}], strides: [%[[S0]], 1]
// The 64-element W keeps its static size.
// CHECK-DAG: memref.reinterpret_cast %[[W]] to offset: [%{{.*}}], sizes: [64], strides: [1]
// CHECK-DAG: arith.cmpi ne, %[[FLAG]], %{{.*}} : i8
// CHECK-DAG: arith.index_cast %[[N]] : i64 to index
// CHECK-DAG: gpu.block_id y
// CHECK: tile.fill
// CHECK: tile.copy
// CHECK: gpu.return
func.func @abi(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %W: memref<64xf16, strided<[1], offset: ?>>,
               %flag: i1, %n: index, %a: f32)
    attributes {tile.kernel, tile.threads = 256 : i64, tile.grid_rank = 2 : i64} {
  %c0 = arith.constant 0 : index
  %by = tile.block_id 1
  %t = tile.alloc : memref<64xf32, #tile.scope<shared>>
  tile.fill %t, %a : memref<64xf32, #tile.scope<shared>>, f32
  %i = arith.addi %by, %n : index
  tile.copy %t to %X[%i, %c0] : memref<64xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// CHECK: gpu.func @tlc_grouped
// CHECK-DAG: %[[GX:.*]] = gpu.grid_dim x
// CHECK-DAG: %[[GY:.*]] = gpu.grid_dim y
// CHECK-DAG: %[[BX:.*]] = gpu.block_id x
// CHECK-DAG: %[[BY:.*]] = gpu.block_id y
// CHECK: %[[ROW:.*]] = arith.muli %[[BY]], %[[GX]]
// CHECK: %[[LIN:.*]] = arith.addi %[[ROW]], %[[BX]]
// CHECK: %[[PER:.*]] = arith.muli %[[GX]], %c8
// CHECK: %[[GROUP:.*]] = arith.divui %[[LIN]], %[[PER]]
// CHECK: %[[FIRST:.*]] = arith.muli %[[GROUP]], %c8
// CHECK: %[[LEFT:.*]] = arith.subi %[[GY]], %[[FIRST]]
// CHECK: %[[ROWS:.*]] = arith.minui %[[LEFT]], %c8
// CHECK: %[[IN:.*]] = arith.remui %[[LIN]], %[[PER]]
// CHECK: %[[R:.*]] = arith.remui %[[IN]], %[[ROWS]]
// CHECK: %[[Y:.*]] = arith.addi %[[FIRST]], %[[R]]
// CHECK: %[[X:.*]] = arith.divui %[[IN]], %[[ROWS]]
// CHECK: arith.addi %[[X]], %[[Y]]
// CHECK: tile.gemm
func.func @grouped(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64, tile.grid_rank = 2 : i64} {
  %c0 = arith.constant 0 : index
  %bx = tile.block_id 0
  %by = tile.block_id 1
  %a = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %acc = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %i = arith.addi %bx, %by : index
  tile.copy %X[%i, %c0] to %a : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
  tile.gemm %a, %a, %acc {clear} : memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  tile.copy %acc to %X[%i, %c0] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// The same kernel in clusters of two (tile.cluster_blocks): consecutive
// blocks along x are a cluster's members, so the block indices stay the
// hardware's (no groups of rows).
// CHECK: gpu.func @tlc_clustered
// CHECK-SAME: tile.cluster_blocks = 2
// CHECK-NOT: arith.divui
// CHECK: %[[CBX:.*]] = gpu.block_id x
// CHECK: %[[CBY:.*]] = gpu.block_id y
// CHECK-NOT: arith.divui
// CHECK: arith.addi %[[CBX]], %[[CBY]]
// CHECK: tile.gemm
func.func @clustered(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64, tile.grid_rank = 2 : i64, tile.cluster_blocks = 2 : i64} {
  %c0 = arith.constant 0 : index
  %bx = tile.block_id 0
  %by = tile.block_id 1
  %a = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %acc = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %i = arith.addi %bx, %by : index
  tile.copy %X[%i, %c0] to %a : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
  tile.gemm %a, %a, %acc {clear} : memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  tile.copy %acc to %X[%i, %c0] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// Every use of a symbolic dimension has the same extent (the stub checks):
// X's and Y's N (tile.dims) both read X's parameter; Y's own stays unused.
// CHECK: gpu.func @tlc_shared_dims(%[[SX:.*]]: memref<1xf32>, %[[SXM:.*]]: i64, %[[SXN:.*]]: i64, %{{.*}}: i64, %{{.*}}: i64, %[[SY:.*]]: memref<1xf32>, %[[SYN:.*]]: i64, %{{.*}}: i64)
// CHECK-NOT: arith.index_cast %[[SYN]]
// CHECK: memref.reinterpret_cast %[[SX]]
// CHECK-NOT: arith.index_cast %[[SYN]]
// CHECK: %[[NY:.*]] = arith.index_cast %[[SXN]] : i64 to index
// CHECK-NEXT: arith.constant 0
// CHECK-NEXT: memref.reinterpret_cast %[[SY]] to offset: [%{{.*}}], sizes: [%[[NY]]]
// CHECK-NOT: arith.index_cast %[[SYN]]
// CHECK: gpu.return
func.func @shared_dims(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %Y: memref<?xf32, strided<[1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 32 : i64, tile.grid_rank = 1 : i64,
                tile.dims = {M = [array<i64: 0, 0>], N = [array<i64: 0, 1>, array<i64: 1, 0>]}} {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : memref<32xf32, #tile.scope<shared>>
  tile.copy %X[%c0, %c0] to %t : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<32xf32, #tile.scope<shared>>
  tile.copy %t to %Y[%c0] : memref<32xf32, #tile.scope<shared>>, memref<?xf32, strided<[1], offset: ?>>
  return
}
