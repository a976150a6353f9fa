// RUN: tlc-opt %s -split-input-file -verify-diagnostics --tile-attach-target --tile-gpu-kernel-abi --tile-plan-shared-memory --convert-tile-to-gpu
// RUN: not tlc-opt %s -split-input-file --tile-infer-layouts --tile-gpu-kernel-abi --tile-plan-pipelines --tile-plan-shared-memory --convert-tile-to-gpu 2>&1 | FileCheck %s --check-prefix=LIMIT
// Errors of convert-tile-to-gpu, located at the op or kernel: fragments
// need a layout that fits them (tile-infer-layouts gives them one), nothing
// but tile ops and parallel bodies may use a register fragment, and a
// kernel's shared tiles plus reduction scratch must fit in a block's shared
// memory (max_shared_bytes of the #tile.target, named after its arch in the
// message).

func.func @no_layout(%X: memref<?xf32, strided<[1], offset: ?>>, %i: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  // expected-error @+1 {{fragment has no thread layout (run tile-infer-layouts first)}}
  %f = tile.alloc : memref<128xf32, #tile.scope<fragment>>
  tile.copy %X[%i] to %f : memref<?xf32, strided<[1], offset: ?>>, memref<128xf32, #tile.scope<fragment>>
  tile.copy %f to %X[%i] : memref<128xf32, #tile.scope<fragment>>, memref<?xf32, strided<[1], offset: ?>>
  return
}

// -----

// The layout spreads 64 elements over 64 threads; the fragment has 128 and
// the kernel 128 threads.
func.func @wrong_shape(%X: memref<?xf32, strided<[1], offset: ?>>, %i: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  // expected-error @+1 {{fragment layout does not fit its shape}}
  %f = tile.alloc {tile.layout = #tile.layout<threads = 64, dims = [0], extents = [64], thread_strides = [1], slot_strides = [0]>} : memref<128xf32, #tile.scope<fragment>>
  tile.copy %X[%i] to %f : memref<?xf32, strided<[1], offset: ?>>, memref<128xf32, #tile.scope<fragment>>
  return
}

// -----

// Right shape, but laid out for 256 threads.
func.func @wrong_threads(%X: memref<?xf32, strided<[1], offset: ?>>, %i: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  // expected-error @+1 {{fragment layout does not fit its shape}}
  %f = tile.alloc {tile.layout = #tile.layout<threads = 256, dims = [0, -1], extents = [128, 2], thread_strides = [1, 128], slot_strides = [0, 0]>} : memref<128xf32, #tile.scope<fragment>>
  tile.copy %X[%i] to %f : memref<?xf32, strided<[1], offset: ?>>, memref<128xf32, #tile.scope<fragment>>
  return
}

// -----

// An element read outside parallel: only shared memory can serve it
// (tile-infer-layouts would have demoted the fragment).
func.func @element_outside_parallel(%c0: index) -> f32 attributes {tile.kernel, tile.threads = 128 : i64} {
  // expected-error @+1 {{fragment used by an op the GPU lowering does not handle}}
  %f = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0], extents = [128], thread_strides = [1], slot_strides = [0]>} : memref<128xf32, #tile.scope<fragment>>
  %v = memref.load %f[%c0] : memref<128xf32, #tile.scope<fragment>>
  return %v : f32
}

// -----

// 241 x 241 f32 of shared tiles (232324 bytes) fit in the default 232448
// (sm_90a), but not with the 2048 bytes of scratch (at 232448, 128-byte
// aligned) of the column reduction across the 4 warps.
// expected-error @+1 {{kernel 'too_much_shared' needs 234496 bytes of shared memory (tiles and reduction scratch); sm_90a allows}}
func.func @too_much_shared(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %big = tile.alloc : memref<241x241xf32, #tile.scope<shared>>
  %x = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, 1, 1], extents = [2, 4, 32, 4], thread_strides = [0, 32, 1, 0], slot_strides = [4, 0, 0, 1]>} : memref<8x128xf32, #tile.scope<fragment>>
  %cols = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, -1], extents = [32, 4, 4], thread_strides = [1, 0, 32], slot_strides = [0, 1, 0]>} : memref<128xf32, #tile.scope<fragment>>
  tile.copy %X[%c0, %c0] to %big : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<241x241xf32, #tile.scope<shared>>
  tile.copy %X[%c0, %c0] to %x : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<8x128xf32, #tile.scope<fragment>>
  tile.reduce <sum> %x to %cols {dim = 0 : i64, clear} : memref<8x128xf32, #tile.scope<fragment>>, memref<128xf32, #tile.scope<fragment>>
  tile.copy %cols to %X[%c0, %c0] : memref<128xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %big to %X[%c0, %c0] : memref<241x241xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// A cluster reduction where the kernel has no cluster(...)
// (tile.cluster_blocks): there is nothing to combine with.
func.func @no_cluster(%X: memref<?xf32, strided<[1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %m = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0], extents = [128], thread_strides = [1], slot_strides = [0]>} : memref<128xf32, #tile.scope<fragment>>
  tile.copy %X[%c0] to %m : memref<?xf32, strided<[1], offset: ?>>, memref<128xf32, #tile.scope<fragment>>
  // expected-error @+1 {{cluster_reduce in a kernel without cluster(...)}}
  tile.cluster_reduce <sum> %m : memref<128xf32, #tile.scope<fragment>>
  tile.copy %m to %X[%c0] : memref<128xf32, #tile.scope<fragment>>, memref<?xf32, strided<[1], offset: ?>>
  return
}

// -----

// With max_shared_bytes = 1024, 2 KiB of shared tiles are too much; the
// message names the target's arch. (The first RUN line replaces this
// description by sm_90a's, where they fit.)
module attributes {tile.target = #tile.target<vendor = "cuda", arch = "tiny_arch", warp_size = 32, max_shared_bytes = 1024, max_threads = 1024, max_registers = 255, vector_bytes = 16, async_copy = true, mma = "">} {
// LIMIT: convert-tile-to-gpu-invalid.mlir:[[@LINE+1]]:1: error: kernel 'two_kib' needs 2048 bytes of shared memory (tiles and reduction scratch); tiny_arch allows 1024
func.func @two_kib(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %s = tile.alloc : memref<512xf32, #tile.scope<shared>>
  tile.copy %X[%c0, %c0] to %s : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<512xf32, #tile.scope<shared>>
  tile.copy %s to %X[%c0, %c0] : memref<512xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}
}
