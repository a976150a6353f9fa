// RUN: tlc-opt %s --tile-attach-target --tile-gpu-kernel-abi | FileCheck %s '--implicit-check-not=func.func'
// tile-gpu-kernel-abi moves each kernel into gpu.module @tlc_kernels as
// gpu.func @tlc_NAME with the launch ABI of docs/abi.md: per tensor a bare
// data pointer (memref<1xT>), its sizes and strides as i64 (a static size
// stays a constant), then scalars (bool as i8, index as i64); the body
// rebuilds the tensors with memref.reinterpret_cast and keeps its tile ops;
// tile.block_id becomes gpu.block_id; the block size is known.

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
