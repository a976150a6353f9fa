// RUN: tlc-opt %s -split-input-file --tile-attach-target --tile-gpu-kernel-abi --tile-plan-pipelines | FileCheck %s
// RUN: tlc-opt %s -split-input-file '--tile-attach-target=target=rocm' --tile-gpu-kernel-abi --tile-plan-pipelines | FileCheck %s --check-prefix=SYNC
// RUN: tlc-opt %s -split-input-file '--tile-attach-target=target=cuda arch=sm_75' --tile-gpu-kernel-abi --tile-plan-pipelines | FileCheck %s --check-prefix=SYNC
// tile-plan-pipelines marks the producer copies (global -> shared at the top
// of a pipelined loop, window from pure ops of the loop index and reads of
// tensors the kernel never writes) with
// tile.async and the loop with tile.pipeline_stages: the asked stages, at
// most 8, fewer (then none) while the buffers do not fit in shared memory.
// Targets without asynchronous copies (rocm, sm_75) get nothing.
// SYNC-NOT: tile.async
// SYNC-NOT: tile.pipeline_stages

// CHECK-LABEL: gpu.func @tlc_two_producers
// CHECK: tile.copy {{.*}} {tile.async}
// CHECK: tile.copy {{.*}} {tile.async}
// CHECK: tile.gemm
// CHECK: } {tile.pipeline_stages = 3 : i64, tile.stages = 3 : i64}
func.func @two_producers(%A: memref<?x?xf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xf16, strided<[?, 1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %As = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
  %Bs = tile.alloc : memref<32x64xf16, #tile.scope<shared>>
  %acc = tile.alloc : memref<64x64xf32, #tile.scope<shared>>
  scf.for %k = %c0 to %n step %c1 {
    %k0 = arith.muli %k, %c32 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<64x32xf16, #tile.scope<shared>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<32x64xf16, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<shared>>
  } {tile.stages = 3 : i64}
  return
}

// -----

// More than 8 stages hide no more latency: 8. A copy whose window depends
// on a load from a tensor the kernel writes is not a producer.
// CHECK-LABEL: gpu.func @tlc_capped
// CHECK: %[[ROW:.*]] = memref.load
// CHECK: tile.copy %{{.*}}[%[[ROW]], %{{.*}}] to %{{[^ ]*}} :
// CHECK: tile.copy {{.*}} {tile.async}
// CHECK: } {tile.pipeline_stages = 8 : i64, tile.stages = 12 : i64}
func.func @capped(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>, %R: memref<?xindex, strided<[1], offset: ?>>, %n: index, %B: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %As = tile.alloc : memref<8x32xf32, #tile.scope<shared>>
  %Gs = tile.alloc : memref<8x32xf32, #tile.scope<shared>>
  scf.for %k = %c0 to %n step %c1 {
    %row = memref.load %R[%k] : memref<?xindex, strided<[1], offset: ?>>
    tile.copy %A[%row, %c0] to %Gs : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<8x32xf32, #tile.scope<shared>>
    tile.copy %A[%k, %c0] to %As : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<8x32xf32, #tile.scope<shared>>
    tile.copy %As to %B[%c0, %c0] : memref<8x32xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
    tile.copy %Gs to %B[%c1, %c0] : memref<8x32xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  } {tile.stages = 12 : i64}
  memref.store %c0, %R[%c0] : memref<?xindex, strided<[1], offset: ?>>
  return
}

// -----

// A window origin read from a tensor the kernel never writes (a block list,
// bounds-checked: the scf.if of tile-expand-element-access) is computed
// ahead for later iterations: the copy is a producer.
// CHECK-LABEL: gpu.func @tlc_read_ahead
// CHECK: %[[ROW:.*]] = scf.if
// CHECK: memref.load
// CHECK: tile.copy %{{.*}}[%[[ROW]], %{{.*}}] to %{{.*}} {tile.async} :
// CHECK: } {tile.pipeline_stages = 2 : i64, tile.stages = 2 : i64}
func.func @read_ahead(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>, %R: memref<?xindex, strided<[1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %Gs = tile.alloc : memref<8x32xf32, #tile.scope<shared>>
  %Os = tile.alloc : memref<8x32xf32, #tile.scope<shared>>
  scf.for %k = %c0 to %n step %c1 {
    %len = memref.dim %R, %c0 : memref<?xindex, strided<[1], offset: ?>>
    %in = arith.cmpi ult, %k, %len : index
    %row = scf.if %in -> (index) {
      %r = memref.load %R[%k] : memref<?xindex, strided<[1], offset: ?>>
      scf.yield %r : index
    } else {
      scf.yield %c0 : index
    }
    tile.copy %A[%row, %c0] to %Gs : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<8x32xf32, #tile.scope<shared>>
    tile.copy %Gs to %Os : memref<8x32xf32, #tile.scope<shared>>, memref<8x32xf32, #tile.scope<shared>>
  } {tile.stages = 2 : i64}
  return
}

// -----

// The loops use their tiles at different times, so the tiles share bytes.
// 48 x 512 f32 (99072 bytes with padding) fits sm_90a's 232448 bytes twice,
// not three times; 64 x 512 (132096) does not fit twice. The loop with the
// most stages loses a stage first; then, both at 2 stages, the one with the
// larger buffers loses its pipelining; its copy is then an ordinary one,
// waited for where it is issued (tile.async_once).
// CHECK-LABEL: gpu.func @tlc_shed
// CHECK: tile.copy {{.*}} {tile.async} : {{.*}} memref<48x512xf32
// CHECK: } {tile.pipeline_stages = 2 : i64, tile.stages = 3 : i64}
// CHECK-NOT: tile.async}
// CHECK: tile.copy {{.*}} {tile.async_once} : {{.*}} memref<64x512xf32
// CHECK-NOT: tile.async}
// CHECK: } {tile.stages = 2 : i64}
func.func @shed(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>, %n: index, %B: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %S = tile.alloc : memref<48x512xf32, #tile.scope<shared>>
  %L = tile.alloc : memref<64x512xf32, #tile.scope<shared>>
  scf.for %k = %c0 to %n step %c1 {
    tile.copy %A[%k, %c0] to %S : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<48x512xf32, #tile.scope<shared>>
    tile.copy %S to %B[%c0, %c0] : memref<48x512xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  } {tile.stages = 3 : i64}
  scf.for %k = %c0 to %n step %c1 {
    tile.copy %A[%k, %c0] to %L : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<64x512xf32, #tile.scope<shared>>
    tile.copy %L to %B[%c0, %c0] : memref<64x512xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  } {tile.stages = 2 : i64}
  return
}

// -----

// A copy from a tensor the loop writes (here through a view of it) is not
// a producer: read ahead, it would miss the loop's writes. It stays where
// it is, issued asynchronously and waited for at once (tile.async_once).
// CHECK-LABEL: gpu.func @tlc_writes_source
// CHECK-NOT: tile.async}
// CHECK: tile.copy {{.*}} {tile.async_once}
// CHECK-NOT: tile.async}
// CHECK: } {tile.stages = 2 : i64}
func.func @writes_source(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %S = tile.alloc : memref<8x32xf32, #tile.scope<shared>>
  scf.for %k = %c0 to %n step %c1 {
    tile.copy %A[%k, %c0] to %S : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<8x32xf32, #tile.scope<shared>>
    %v = memref.subview %A[%c1, 0] [%n, 32] [1, 1] : memref<?x?xf32, strided<[?, 1], offset: ?>> to memref<?x32xf32, strided<[?, 1], offset: ?>>
    tile.copy %S to %v[%k, %c0] : memref<8x32xf32, #tile.scope<shared>>, memref<?x32xf32, strided<[?, 1], offset: ?>>
  } {tile.stages = 2 : i64}
  return
}
