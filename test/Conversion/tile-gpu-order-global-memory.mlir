// RUN: tlc-opt %s --tile-gpu-order-global-memory | FileCheck %s
// RUN: tlc-opt %s --tile-gpu-order-global-memory --tile-gpu-eliminate-barriers | FileCheck %s --check-prefix=KEPT
// tile-gpu-order-global-memory puts a tagged barrier between a tile op that
// writes (or atomically updates) a tensor and a later one that reads it,
// and between a read and a later write or atomic, unless a barrier lies
// between them; loops are followed around their back edge. Other tensors,
// writes after writes and atomics after atomics are not ordered; barrier
// elimination keeps the tagged barriers.

// CHECK-LABEL: gpu.func @k
gpu.module @m {
  gpu.func @k(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>,
              %Y: memref<?x?xf32, strided<[?, 1], offset: ?>>,
              %Z: memref<?x?xf32, strided<[?, 1], offset: ?>>,
              %i: index, %n: index) kernel attributes {tile.threads = 128 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = tile.alloc : memref<16x64xf32, #tile.scope<shared>>
    %u = tile.alloc : memref<16x64xf32, #tile.scope<shared>>
    // Reads of X then a write of Y, a write of Z, then another write of Y
    // (no reads of them before): nothing to order.
    // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %[[T:[a-z0-9]+]] :
    // CHECK-NEXT: tile.copy %[[T]] to %[[Y:[a-z0-9]+]][
    // CHECK-NEXT: tile.copy %[[T]] to %[[Z:[a-z0-9]+]][
    // CHECK-NEXT: tile.copy %[[T]] to %[[Y]][
    tile.copy %X[%i, %c0] to %t : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x64xf32, #tile.scope<shared>>
    tile.copy %t to %Y[%i, %c0] : memref<16x64xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
    tile.copy %t to %Z[%i, %c0] : memref<16x64xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
    tile.copy %t to %Y[%i, %c1] : memref<16x64xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
    // Reading Y back: ordered after the writes.
    // CHECK-NEXT: gpu.barrier {tile.global_order}
    // CHECK-NEXT: tile.copy %[[Y]][
    tile.copy %Y[%i, %c0] to %u : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x64xf32, #tile.scope<shared>>
    // A loop that reads Z, then writes it: the write waits for the read in
    // the same iteration, and the next iteration's read for the write.
    // CHECK: scf.for
    // CHECK-NEXT: gpu.barrier {tile.global_order}
    // CHECK-NEXT: tile.copy %[[Z]][
    // CHECK-NEXT: gpu.barrier {tile.global_order}
    // CHECK-NEXT: tile.copy %{{.*}} to %[[Z]][
    // CHECK-NEXT: }
    scf.for %j = %c0 to %n step %c1 {
      tile.copy %Z[%j, %c0] to %t : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x64xf32, #tile.scope<shared>>
      tile.copy %u to %Z[%j, %c0] : memref<16x64xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
    }
    // Atomics after atomics: unordered; a read after them: ordered.
    // CHECK: tile.atomic_add %{{.*}} to %[[X:[a-z0-9]+]][
    // CHECK-NEXT: tile.atomic_add %{{.*}} to %[[X]][
    // CHECK-NEXT: gpu.barrier {tile.global_order}
    // CHECK-NEXT: tile.copy %[[X]][
    tile.atomic_add %t to %X[%i, %c0] : memref<16x64xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
    tile.atomic_add %u to %X[%i, %c0] : memref<16x64xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
    tile.copy %X[%i, %c0] to %t : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x64xf32, #tile.scope<shared>>
    gpu.return
  }
}
// The barriers stay through barrier elimination.
// KEPT-COUNT-4: gpu.barrier {tile.global_order}
