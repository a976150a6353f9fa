// RUN: tlc-opt %s -split-input-file --tile-attach-target --tile-infer-layouts --tile-gpu-kernel-abi --tile-plan-pipelines | FileCheck %s
// RUN: tlc-opt %s -split-input-file '--tile-attach-target=target=cuda arch=sm_75' --tile-infer-layouts --tile-gpu-kernel-abi --tile-plan-pipelines | FileCheck %s --check-prefix=SYNC
// RUN: tlc-opt %s -split-input-file --tile-attach-target --tile-infer-layouts --tile-gpu-kernel-abi --tile-plan-pipelines --tile-plan-shared-memory --convert-tile-to-gpu 2>/dev/null | FileCheck %s --check-prefix=LOWER
// Copies from global windows into shared tiles outside pipelined loops get
// tile.async_once where the asynchronous copies can run them (same dtype,
// rows of 16-byte chunks): convert-tile-to-gpu issues them as asynchronous
// copies and waits for them right away (once for a run of such copies).
// Targets without asynchronous copies (sm_75) keep ordinary copies.
// SYNC-NOT: tile.async

// CHECK-LABEL: gpu.func @tlc_staged_row
// Outside loops it runs once: the fewer code paths of a pipeline's
// prologue (tile.cold_copy).
// CHECK: tile.copy {{.*}} to %{{.*}} {tile.async_once, tile.cold_copy} : {{.*}} memref<1x4096xf32
// A dtype conversion is not a byte copy.
// CHECK: tile.copy {{.*}} to %{{.*}} : {{.*}} memref<1x256xf32
// Rows of 12 bytes are not 16-byte chunks.
// CHECK: tile.copy {{.*}} to %{{.*}} : {{.*}} memref<4x3xf32
// Into a fragment: registers, not shared memory.
// CHECK: tile.copy {{.*}} to %{{.*}} : {{.*}} memref<1x1024xf32, #tile.scope<fragment>>
// Inside a loop that is not pipelined: waited for where it is issued.
// CHECK: scf.for
// CHECK: tile.copy {{.*}} {tile.async_once} : {{.*}} memref<1x1024xf32, #tile.scope<shared>>
// LOWER-LABEL: gpu.func @tlc_staged_row
// LOWER: nvgpu.device_async_copy
// LOWER: nvvm.cp.async.commit.group
// LOWER-NEXT: nvvm.cp.async.wait.group 0
// LOWER: gpu.barrier
func.func @staged_row(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %H: memref<?x?xf16, strided<[?, 1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %row = tile.alloc : memref<1x4096xf32, #tile.scope<shared>>
  %wide = tile.alloc : memref<1x256xf32, #tile.scope<shared>>
  %odd = tile.alloc : memref<4x3xf32, #tile.scope<shared>>
  %frag = tile.alloc : memref<1x1024xf32, #tile.scope<fragment>>
  %part = tile.alloc : memref<1x1024xf32, #tile.scope<shared>>
  tile.copy %X[%c0, %c0] to %row : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<1x4096xf32, #tile.scope<shared>>
  tile.copy %H[%c0, %c0] to %wide : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<1x256xf32, #tile.scope<shared>>
  tile.copy %X[%c0, %c0] to %odd : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<4x3xf32, #tile.scope<shared>>
  tile.copy %X[%c0, %c0] to %frag : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<1x1024xf32, #tile.scope<fragment>>
  scf.for %k = %c0 to %n step %c1 {
    tile.copy %X[%k, %c0] to %part : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<1x1024xf32, #tile.scope<shared>>
    tile.copy %part to %X[%k, %c0] : memref<1x1024xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  }
  return
}

// -----

// In a pipelined loop a copy that is not a producer (its tensor is written
// in the loop) stays synchronous: a wait for every group would drain the
// pipeline's stages.
// CHECK-LABEL: gpu.func @tlc_in_pipeline
// CHECK: tile.copy {{.*}} {tile.async} : {{.*}} memref<8x32xf32
// CHECK: tile.copy %{{.*}} to %{{.*}} : {{.*}} memref<8x32xf32
// CHECK: } {tile.pipeline_stages = 2 : i64, tile.stages = 2 : i64}
// CHECK-NOT: tile.async_once
func.func @in_pipeline(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>, %B: memref<?x?xf32, strided<[?, 1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %S = tile.alloc : memref<8x32xf32, #tile.scope<shared>>
  %T = tile.alloc : memref<8x32xf32, #tile.scope<shared>>
  scf.for %k = %c0 to %n step %c1 {
    tile.copy %A[%k, %c0] to %S : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<8x32xf32, #tile.scope<shared>>
    tile.copy %B[%k, %c0] to %T : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<8x32xf32, #tile.scope<shared>>
    tile.copy %S to %B[%k, %c0] : memref<8x32xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
    tile.copy %T to %B[%c0, %c0] : memref<8x32xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  } {tile.stages = 2 : i64}
  return
}

// -----

// Adjacent copies into disjoint tiles wait once, after the second. A copy
// into the same tile again, and a gather whose index tile the copy before
// it fills, wait after each: nothing orders asynchronous copies before the
// wait, and the gather reads its index tile when it is issued.
// CHECK-LABEL: gpu.func @tlc_runs
// LOWER-LABEL: gpu.func @tlc_runs
// LOWER: nvvm.cp.async.commit.group
// LOWER-NOT: nvvm.cp.async.wait.group
// LOWER: nvvm.cp.async.commit.group
// LOWER-NEXT: nvvm.cp.async.wait.group 0
// LOWER: nvvm.cp.async.commit.group
// LOWER-NEXT: nvvm.cp.async.wait.group 0
// LOWER: nvvm.cp.async.commit.group
// LOWER-NEXT: nvvm.cp.async.wait.group 0
// LOWER: nvvm.cp.async.commit.group
// LOWER-NEXT: nvvm.cp.async.wait.group 0
// LOWER: nvvm.cp.async.commit.group
// LOWER-NEXT: nvvm.cp.async.wait.group 0
// LOWER: gpu.return
func.func @runs(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %R: memref<?xi32, strided<[1], offset: ?>>, %Y: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %a = tile.alloc : memref<8x32xf32, #tile.scope<shared>>
  %b = tile.alloc : memref<8x32xf32, #tile.scope<shared>>
  %rows = tile.alloc : memref<8xi32, #tile.scope<shared>>
  tile.copy %X[%c0, %c0] to %a : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<8x32xf32, #tile.scope<shared>>
  tile.copy %X[%c8, %c0] to %b : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<8x32xf32, #tile.scope<shared>>
  tile.copy %a to %Y[%c0, %c0] : memref<8x32xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %b to %Y[%c8, %c0] : memref<8x32xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %X[%c0, %c0] to %a : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<8x32xf32, #tile.scope<shared>>
  tile.copy %X[%c8, %c0] to %a : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<8x32xf32, #tile.scope<shared>>
  tile.copy %a to %Y[%c0, %c0] : memref<8x32xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %R[%c0] to %rows : memref<?xi32, strided<[1], offset: ?>>, memref<8xi32, #tile.scope<shared>>
  tile.copy %X[%c0, %c0] gather(%rows : memref<8xi32, #tile.scope<shared>>) to %b {gather_dims = array<i64: 0>} : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<8x32xf32, #tile.scope<shared>>
  tile.copy %b to %Y[%c0, %c0] : memref<8x32xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}
