// RUN: tlc-opt %s -split-input-file '--tile-attach-target=target=cuda arch=sm_90a' --tile-infer-layouts --tile-gpu-kernel-abi --tile-plan-shared-memory --convert-tile-to-gpu | FileCheck %s
// RUN: not tlc-opt %s -split-input-file '--tile-attach-target=target=cuda arch=sm_80' --tile-infer-layouts --tile-gpu-kernel-abi --tile-plan-shared-memory --convert-tile-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80
// tile.cluster_reduce in a kernel of clusters of 4 (tile.cluster_blocks):
// every thread stores its slot at slot * threads + tid of one of two
// exchange buffers behind the tiles (a per-thread parity, flipped by every
// reduction, picks it: the next reduction's cluster barrier orders this
// one's reads before the buffer is written again), the cluster
// synchronizes, and the thread reads that word from each block of the
// cluster in rank order (mapa to block 0, 1, 2, 3 + a load from
// shared::cluster) and combines them. The kernel synchronizes the cluster
// once more before it returns, and asks for clusters of (4, 1, 1)
// (nvvm.cluster_dim).

// CHECK-LABEL: gpu.func @tlc_cluster_max
// CHECK-SAME: nvvm.cluster_dim = array<i32: 4, 1, 1>
// CHECK-SAME: tile.shared_bytes = 1032
// CHECK: %[[PARITY:.*]] = memref.alloca() : memref<1xindex>
// CHECK: %[[P:.*]] = memref.load %[[PARITY]][
// CHECK: %[[FLIP:.*]] = arith.subi %{{.*}}, %[[P]] : index
// CHECK: memref.store %[[FLIP]], %[[PARITY]][
// CHECK: %[[SHIFT:.*]] = arith.muli %[[P]], %c512 : index
// CHECK: %[[AT:.*]] = arith.addi %c0{{.*}}, %[[SHIFT]] : index
// CHECK: memref.view %{{.*}}[%[[AT]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK: %[[R0:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK-NEXT: nvvm.mapa %{{.*}}, %[[R0]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr<7> -> f32
// CHECK-COUNT-3: nvvm.mapa
// CHECK-NOT: nvvm.cluster.arrive
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: gpu.return
// SM80: error: kernel 'cluster_max' asks for clusters of 4 blocks; sm_80 runs no thread block clusters
func.func @cluster_max(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64, tile.grid_rank = 1 : i64, tile.cluster_blocks = 4 : i64} {
  %c0 = arith.constant 0 : index
  %s = tile.alloc : memref<1x512xf32, #tile.scope<fragment>>
  %m = tile.alloc : memref<1xf32, #tile.scope<fragment>>
  tile.copy %X[%c0, %c0] to %s : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<1x512xf32, #tile.scope<fragment>>
  tile.reduce <max> %s to %m {dim = 1 : i64, clear} : memref<1x512xf32, #tile.scope<fragment>>, memref<1xf32, #tile.scope<fragment>>
  tile.cluster_reduce <max> %m : memref<1xf32, #tile.scope<fragment>>
  tile.copy %m to %X[%c0, %c0] : memref<1xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// A cluster of one block (cluster(1), e.g. Blocks = target_cluster_blocks on
// a target without clusters): the reduction is the tile itself.
// CHECK-LABEL: gpu.func @tlc_cluster_of_one
// CHECK-NOT: nvvm.cluster_dim
// CHECK-NOT: nvvm.mapa
// CHECK-NOT: nvvm.cluster.arrive
// CHECK: gpu.return
func.func @cluster_of_one(%X: memref<?xf32, strided<[1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64, tile.grid_rank = 1 : i64, tile.cluster_blocks = 1 : i64} {
  %c0 = arith.constant 0 : index
  %m = tile.alloc : memref<128xf32, #tile.scope<fragment>>
  tile.copy %X[%c0] to %m : memref<?xf32, strided<[1], offset: ?>>, memref<128xf32, #tile.scope<fragment>>
  tile.cluster_reduce <sum> %m : memref<128xf32, #tile.scope<fragment>>
  tile.copy %m to %X[%c0] : memref<128xf32, #tile.scope<fragment>>, memref<?xf32, strided<[1], offset: ?>>
  return
}
