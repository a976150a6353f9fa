// RUN: tlc-opt %s -split-input-file --tile-infer-layouts | FileCheck %s
// RUN: tlc-opt %s -split-input-file --tile-attach-target --tile-infer-layouts | FileCheck %s --check-prefix=MMA
// Every fragment of a kernel gets a #tile.layout over the kernel's
// tile.threads threads, from the ops that use it; a fragment no register
// layout can serve moves to shared memory with the reason in tile.demoted.
// The exact layouts below are computed by hand from Layout.cpp
// (simtAccumulator, rowMajor with 8 elements per thread, project).

// A gemm accumulator gets the SIMT accumulator layout: 32x64 over 128
// threads is a 8x16 thread grid (tn = 16 lanes on columns, tm = 8 on rows,
// thread stride 16), each thread holding a 4x4 grid of elements strided by
// it. The shared operands are left alone.
// CHECK-LABEL: func.func @gemm_accumulator(
// CHECK: tile.alloc : memref<32x16xf32, #tile.scope<shared>>
// CHECK-NEXT: tile.alloc : memref<16x64xf32, #tile.scope<shared>>
// CHECK-NEXT: %[[ACC:.*]] = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, 1, 1], extents = [4, 8, 4, 16], thread_strides = [0, 16, 0, 1], slot_strides = [4, 0, 1, 0]>} : memref<32x64xf32, #tile.scope<fragment>>
// A fragment copied from (or to) a fragment shares its layout, whichever
// side is known first.
// CHECK-NEXT: %[[OUT:.*]] = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, 1, 1], extents = [4, 8, 4, 16], thread_strides = [0, 16, 0, 1], slot_strides = [4, 0, 1, 0]>} : memref<32x64xf32, #tile.scope<fragment>>
// CHECK-NEXT: %[[IN:.*]] = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, 1, 1], extents = [4, 8, 4, 16], thread_strides = [0, 16, 0, 1], slot_strides = [4, 0, 1, 0]>} : memref<32x64xf32, #tile.scope<fragment>>
// `r[i]` in a parallel over (i, j) anchored on the accumulator: the
// projection on dimension 0; the 16 lanes of the column digit hold copies
// (replication, dim -1). A row-major default would have been
// dims = [0, 0, -1], extents = [4, 8, 32].
// CHECK-NEXT: %[[R:.*]] = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, -1], extents = [4, 8, 16], thread_strides = [0, 16, 1], slot_strides = [1, 0, 0]>} : memref<32xf32, #tile.scope<fragment>>
// `c[j]`: the projection on dimension 1, replicated over the 8 row digits.
// CHECK-NEXT: %[[C:.*]] = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, -1], extents = [4, 16, 8], thread_strides = [0, 1, 16], slot_strides = [1, 0, 0]>} : memref<64xf32, #tile.scope<fragment>>
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[ACC]] {clear}
// CHECK: tile.copy %[[ACC]] to %[[OUT]]
// CHECK: tile.copy %[[IN]] to %[[ACC]]
func.func @gemm_accumulator(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>, %C: memref<?x?xf32, strided<[?, 1], offset: ?>>, %i: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %a = tile.alloc : memref<32x16xf32, #tile.scope<shared>>
  %b = tile.alloc : memref<16x64xf32, #tile.scope<shared>>
  %acc = tile.alloc : memref<32x64xf32, #tile.scope<fragment>>
  %out = tile.alloc : memref<32x64xf32, #tile.scope<fragment>>
  %in = tile.alloc : memref<32x64xf32, #tile.scope<fragment>>
  %r = tile.alloc : memref<32xf32, #tile.scope<fragment>>
  %c = tile.alloc : memref<64xf32, #tile.scope<fragment>>
  tile.copy %A[%i, %i] to %a : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<32x16xf32, #tile.scope<shared>>
  tile.copy %A[%i, %i] to %b : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x64xf32, #tile.scope<shared>>
  tile.copy %A[%i, %i] to %r : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<32xf32, #tile.scope<fragment>>
  tile.copy %A[%i, %i] to %c : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<64xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %acc {clear} : memref<32x16xf32, #tile.scope<shared>>, memref<16x64xf32, #tile.scope<shared>>, memref<32x64xf32, #tile.scope<fragment>>
  tile.parallel [32, 64] {
  ^bb0(%ii: index, %jj: index):
    %v = memref.load %acc[%ii, %jj] : memref<32x64xf32, #tile.scope<fragment>>
    %s = memref.load %r[%ii] : memref<32xf32, #tile.scope<fragment>>
    %t = memref.load %c[%jj] : memref<64xf32, #tile.scope<fragment>>
    %m = arith.mulf %v, %s : f32
    %n = arith.addf %m, %t : f32
    memref.store %n, %acc[%ii, %jj] : memref<32x64xf32, #tile.scope<fragment>>
  }
  tile.copy %acc to %out : memref<32x64xf32, #tile.scope<fragment>>, memref<32x64xf32, #tile.scope<fragment>>
  tile.copy %out to %C[%i, %i] : memref<32x64xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %A[%i, %i] to %in : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<32x64xf32, #tile.scope<fragment>>
  tile.copy %in to %acc : memref<32x64xf32, #tile.scope<fragment>>, memref<32x64xf32, #tile.scope<fragment>>
  return
}

// -----

// Without tile.threads a kernel has 128 threads. An 8x8 accumulator uses
// 64 of them (8x8 thread grid, one element each); the other 64 hold copies.
// CHECK-LABEL: func.func @small_accumulator(
// CHECK: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 1, -1], extents = [8, 8, 2], thread_strides = [8, 1, 64], slot_strides = [0, 0, 0]>} : memref<8x8xf32, #tile.scope<fragment>>
// With 256 threads: tn = 16, tm = 16, 8x8 elements per thread.
// CHECK-LABEL: func.func @threads_256(
// CHECK: tile.alloc {tile.layout = #tile.layout<threads = 256, dims = [0, 0, 1, 1], extents = [8, 16, 8, 16], thread_strides = [0, 16, 0, 1], slot_strides = [8, 0, 1, 0]>} : memref<128x128xf32, #tile.scope<fragment>>
func.func @small_accumulator() attributes {tile.kernel} {
  %a = tile.alloc : memref<8x4xf32, #tile.scope<shared>>
  %b = tile.alloc : memref<4x8xf32, #tile.scope<shared>>
  %acc = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %acc {clear} : memref<8x4xf32, #tile.scope<shared>>, memref<4x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<fragment>>
  return
}
func.func @threads_256() attributes {tile.kernel, tile.threads = 256 : i64} {
  %a = tile.alloc : memref<128x8xbf16, #tile.scope<shared>>
  %b = tile.alloc : memref<8x128xbf16, #tile.scope<shared>>
  %acc = tile.alloc : memref<128x128xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %acc {clear} : memref<128x8xbf16, #tile.scope<shared>>, memref<8x128xbf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
  return
}

// -----

// Unconstrained fragments get the row-major default, largest first: 64x128
// over 128 threads is 16 runs of 8 consecutive registers on columns (thread
// digit of stride 1, 16 lanes) and the remaining 8 thread digits (stride 16)
// on rows, 8 rows each in registers.
// CHECK-LABEL: func.func @reduce(
// CHECK-NEXT: %[[S:.*]] = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, 1, 1], extents = [8, 8, 16, 8], thread_strides = [0, 16, 1, 0], slot_strides = [8, 0, 0, 1]>} : memref<64x128xf32, #tile.scope<fragment>>
// A row reduction's result gets the source layout without dimension 1: the
// 16 lanes that held the columns hold copies.
// CHECK-NEXT: %[[M:.*]] = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, -1], extents = [8, 8, 16], thread_strides = [0, 16, 1], slot_strides = [1, 0, 0]>} : memref<64xf32, #tile.scope<fragment>>
// The copy of m shares m's layout.
// CHECK-NEXT: %[[MOLD:.*]] = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, -1], extents = [8, 8, 16], thread_strides = [0, 16, 1], slot_strides = [1, 0, 0]>} : memref<64xf32, #tile.scope<fragment>>
// A column reduction: the 8 thread digits that held the rows (stride 16)
// hold copies.
// CHECK-NEXT: %[[COLS:.*]] = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, -1], extents = [16, 8, 8], thread_strides = [1, 0, 16], slot_strides = [0, 1, 0]>} : memref<128xf32, #tile.scope<fragment>>
// A 1-D fragment on its own: 8 lanes x 8 registers, the other threads
// (16 groups of 8) hold copies. Compare with m above.
// CHECK-NEXT: %[[V:.*]] = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, -1], extents = [8, 8, 16], thread_strides = [1, 0, 8], slot_strides = [0, 1, 0]>} : memref<64xf32, #tile.scope<fragment>>
// A tile smaller than the block: a row of 8 registers in each of 4 threads,
// 32 copies.
// CHECK-NEXT: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 1, -1], extents = [4, 8, 32], thread_strides = [1, 0, 4], slot_strides = [0, 1, 0]>} : memref<4x8xf32, #tile.scope<fragment>>
// CHECK: tile.copy %[[M]] to %[[MOLD]]
// CHECK: tile.reduce <max> %[[S]] to %[[M]]
// CHECK: tile.reduce <sum> %[[S]] to %[[COLS]]
func.func @reduce(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %i: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %s = tile.alloc : memref<64x128xf32, #tile.scope<fragment>>
  %m = tile.alloc : memref<64xf32, #tile.scope<fragment>>
  %m_old = tile.alloc : memref<64xf32, #tile.scope<fragment>>
  %cols = tile.alloc : memref<128xf32, #tile.scope<fragment>>
  %v = tile.alloc : memref<64xf32, #tile.scope<fragment>>
  %small = tile.alloc : memref<4x8xf32, #tile.scope<fragment>>
  tile.copy %X[%i, %i] to %s : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<64x128xf32, #tile.scope<fragment>>
  tile.copy %m to %m_old : memref<64xf32, #tile.scope<fragment>>, memref<64xf32, #tile.scope<fragment>>
  tile.reduce <max> %s to %m {dim = 1 : i64} : memref<64x128xf32, #tile.scope<fragment>>, memref<64xf32, #tile.scope<fragment>>
  tile.reduce <sum> %s to %cols {dim = 0 : i64, clear} : memref<64x128xf32, #tile.scope<fragment>>, memref<128xf32, #tile.scope<fragment>>
  tile.copy %X[%i, %i] to %v : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<64xf32, #tile.scope<fragment>>
  tile.copy %v to %X[%i, %i] : memref<64xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %X[%i, %i] to %small : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<4x8xf32, #tile.scope<fragment>>
  tile.copy %small to %X[%i, %i] : memref<4x8xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// Demotions: the fragment becomes a shared tile (its uses follow) and
// tile.demoted says why; the others keep their layouts.
// CHECK-LABEL: func.func @demote(
// A gemm operand of the FMA path is read by every thread.
// CHECK-NEXT: %[[A:.*]] = tile.alloc {tile.demoted = "gemm operands of the FMA path are read by every thread"} : memref<16x16xf32, #tile.scope<shared>>
// CHECK-NEXT: tile.alloc : memref<16x16xf32, #tile.scope<shared>>
// CHECK-NEXT: %[[ACC:.*]] = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, 1], extents = [2, 8, 16], thread_strides = [0, 16, 1], slot_strides = [1, 0, 0]>} : memref<16x16xf32, #tile.scope<fragment>>
// Element access outside parallel.
// CHECK-NEXT: %[[E:.*]] = tile.alloc {tile.demoted = "its elements are accessed outside parallel, by every thread"} : memref<16xf32, #tile.scope<shared>>
// Access at an index computed from the loop index (rev[15 - k]) or at the
// loop indices out of order (t[q, p]).
// CHECK-NEXT: %[[REV:.*]] = tile.alloc {tile.demoted = "it is accessed at indices other than the parallel loop indices"} : memref<16xf32, #tile.scope<shared>>
// CHECK-NEXT: %[[T:.*]] = tile.alloc {tile.demoted = "it is accessed at indices other than the parallel loop indices"} : memref<16x16xf32, #tile.scope<shared>>
// w (row-major, the larger) then out: 2 lanes x 8 registers per row.
// CHECK-NEXT: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, -1], extents = [2, 8, 64], thread_strides = [1, 0, 2], slot_strides = [0, 1, 0]>} : memref<16xf32, #tile.scope<fragment>>
// CHECK-NEXT: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 1, 1, -1], extents = [16, 2, 8, 4], thread_strides = [2, 1, 0, 32], slot_strides = [0, 0, 1, 0]>} : memref<16x16xf32, #tile.scope<fragment>>
// A parallel loop that writes a local tile runs every iteration in every
// thread, so what it reads must be in memory.
// CHECK-NEXT: %[[SRC:.*]] = tile.alloc {tile.demoted = "a parallel loop that writes a local tile reads it in every thread"} : memref<16xf32, #tile.scope<shared>>
// CHECK-NEXT: tile.alloc : memref<16xf32, #tile.scope<local>>
// CHECK: tile.gemm %[[A]], %{{.*}}, %[[ACC]] {clear} : memref<16x16xf32, #tile.scope<shared>>
// CHECK: memref.load %[[E]][%{{.*}}] : memref<16xf32, #tile.scope<shared>>
// CHECK: memref.load %[[REV]][%{{.*}}] : memref<16xf32, #tile.scope<shared>>
// CHECK: memref.load %[[T]][%{{.*}}, %{{.*}}] : memref<16x16xf32, #tile.scope<shared>>
// CHECK: memref.load %[[SRC]][%{{.*}}] : memref<16xf32, #tile.scope<shared>>
func.func @demote(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %i: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %a = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %b = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %acc = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %e = tile.alloc : memref<16xf32, #tile.scope<fragment>>
  %rev = tile.alloc : memref<16xf32, #tile.scope<fragment>>
  %t = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %out = tile.alloc : memref<16xf32, #tile.scope<fragment>>
  %w = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %src = tile.alloc : memref<16xf32, #tile.scope<fragment>>
  %loc = tile.alloc : memref<16xf32, #tile.scope<local>>
  %c0 = arith.constant 0 : index
  %c15 = arith.constant 15 : index
  tile.copy %X[%i, %i] to %a : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %acc {clear} : memref<16x16xf32, #tile.scope<fragment>>, memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  tile.copy %X[%i, %i] to %e : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16xf32, #tile.scope<fragment>>
  %x = memref.load %e[%c0] : memref<16xf32, #tile.scope<fragment>>
  tile.copy %X[%i, %i] to %rev : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16xf32, #tile.scope<fragment>>
  tile.copy %X[%i, %i] to %t : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<fragment>>
  tile.parallel [16] {
  ^bb0(%k: index):
    %j = arith.subi %c15, %k : index
    %y = memref.load %rev[%j] : memref<16xf32, #tile.scope<fragment>>
    memref.store %y, %out[%k] : memref<16xf32, #tile.scope<fragment>>
  }
  tile.parallel [16, 16] {
  ^bb0(%p: index, %q: index):
    %y = memref.load %t[%q, %p] : memref<16x16xf32, #tile.scope<fragment>>
    memref.store %y, %w[%p, %q] : memref<16x16xf32, #tile.scope<fragment>>
  }
  tile.copy %X[%i, %i] to %src : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16xf32, #tile.scope<fragment>>
  tile.parallel [16] {
  ^bb0(%k: index):
    %y = memref.load %src[%k] : memref<16xf32, #tile.scope<fragment>>
    %z = arith.addf %y, %x : f32
    memref.store %z, %loc[%k] : memref<16xf32, #tile.scope<local>>
  }
  tile.copy %acc to %X[%i, %i] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %out to %X[%i, %i] : memref<16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %w to %X[%i, %i] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %loc to %X[%i, %i] : memref<16xf32, #tile.scope<local>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// More demotions: into local tiles (every thread needs all of it), a
// parallel loop with no fragment at its loop indices (iterations are dealt
// round-robin), a fragment written at a subset of the loop indices, and a
// fragment whose extent differs from the loop's.
// CHECK-LABEL: func.func @more_demotions(
// CHECK-NEXT: tile.alloc {tile.demoted = "every thread needs its reduction in a local tile"} : memref<16x32xf32, #tile.scope<shared>>
// CHECK-NEXT: tile.alloc : memref<16xf32, #tile.scope<local>>
// CHECK-NEXT: tile.alloc {tile.demoted = "every thread needs all of it in a local tile"} : memref<16x32xf32, #tile.scope<shared>>
// CHECK-NEXT: tile.alloc : memref<16x32xf32, #tile.scope<local>>
// CHECK-NEXT: tile.alloc {tile.demoted = "a parallel loop that writes no fragment at its loop indices reads it"} : memref<16xf32, #tile.scope<shared>>
// CHECK-NEXT: tile.alloc : memref<16x32xf32, #tile.scope<shared>>
// CHECK-NEXT: tile.alloc {tile.demoted = "it is written at a subset of the loop indices"} : memref<16xf32, #tile.scope<shared>>
// CHECK-NEXT: tile.alloc {tile.layout = #tile.layout<{{.*}}>} : memref<16x16xf32, #tile.scope<fragment>>
// CHECK-NEXT: tile.alloc {tile.demoted = "its shape differs from the parallel loop's"} : memref<32xf32, #tile.scope<shared>>
func.func @more_demotions(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %i: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %a = tile.alloc : memref<16x32xf32, #tile.scope<fragment>>
  %ra = tile.alloc : memref<16xf32, #tile.scope<local>>
  %b = tile.alloc : memref<16x32xf32, #tile.scope<fragment>>
  %lb = tile.alloc : memref<16x32xf32, #tile.scope<local>>
  %c = tile.alloc : memref<16xf32, #tile.scope<fragment>>
  %sh = tile.alloc : memref<16x32xf32, #tile.scope<shared>>
  %d = tile.alloc : memref<16xf32, #tile.scope<fragment>>
  %w = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %e = tile.alloc : memref<32xf32, #tile.scope<fragment>>
  tile.copy %X[%i, %i] to %a : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x32xf32, #tile.scope<fragment>>
  tile.reduce <sum> %a to %ra {dim = 1 : i64, clear} : memref<16x32xf32, #tile.scope<fragment>>, memref<16xf32, #tile.scope<local>>
  tile.copy %X[%i, %i] to %b : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x32xf32, #tile.scope<fragment>>
  tile.copy %b to %lb : memref<16x32xf32, #tile.scope<fragment>>, memref<16x32xf32, #tile.scope<local>>
  tile.copy %X[%i, %i] to %c : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16xf32, #tile.scope<fragment>>
  tile.parallel [16, 32] {
  ^bb0(%p: index, %q: index):
    %y = memref.load %c[%p] : memref<16xf32, #tile.scope<fragment>>
    memref.store %y, %sh[%p, %q] : memref<16x32xf32, #tile.scope<shared>>
  }
  tile.parallel [16, 32] {
  ^bb0(%p: index, %q: index):
    %y = memref.load %a[%p, %q] : memref<16x32xf32, #tile.scope<fragment>>
    memref.store %y, %d[%p] : memref<16xf32, #tile.scope<fragment>>
  }
  tile.copy %X[%i, %i] to %e : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<32xf32, #tile.scope<fragment>>
  tile.parallel [16, 16] {
  ^bb0(%p: index, %q: index):
    %y = memref.load %e[%q] : memref<32xf32, #tile.scope<fragment>>
    memref.store %y, %w[%p, %q] : memref<16x16xf32, #tile.scope<fragment>>
  }
  tile.copy %w to %X[%i, %i] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// Uses that cannot agree. r is read as r[i] by two loops anchored on
// fragments of different layouts (the gemm accumulator and a row-major x).
// CHECK-LABEL: func.func @parallel_conflict(
// CHECK: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, 1, 1], extents = [4, 8, 2, 16], thread_strides = [0, 16, 0, 1], slot_strides = [2, 0, 1, 0]>} : memref<32x32xf32, #tile.scope<fragment>>
// CHECK-NEXT: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 1, 1], extents = [32, 4, 8], thread_strides = [4, 1, 0], slot_strides = [0, 0, 1]>} : memref<32x32xf32, #tile.scope<fragment>>
// CHECK-NEXT: tile.alloc {tile.demoted = "parallel loops need it in another layout"} : memref<32xf32, #tile.scope<shared>>
func.func @parallel_conflict(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %i: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %as = tile.alloc : memref<32x8xf32, #tile.scope<shared>>
  %bs = tile.alloc : memref<8x32xf32, #tile.scope<shared>>
  %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
  %x = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
  %r = tile.alloc : memref<32xf32, #tile.scope<fragment>>
  tile.copy %X[%i, %i] to %x : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<32x32xf32, #tile.scope<fragment>>
  tile.gemm %as, %bs, %acc {clear} : memref<32x8xf32, #tile.scope<shared>>, memref<8x32xf32, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  tile.copy %X[%i, %i] to %r : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<32xf32, #tile.scope<fragment>>
  tile.parallel [32, 32] {
  ^bb0(%p: index, %q: index):
    %v = memref.load %acc[%p, %q] : memref<32x32xf32, #tile.scope<fragment>>
    %s = memref.load %r[%p] : memref<32xf32, #tile.scope<fragment>>
    %m = arith.mulf %v, %s : f32
    memref.store %m, %acc[%p, %q] : memref<32x32xf32, #tile.scope<fragment>>
  }
  tile.parallel [32, 32] {
  ^bb0(%p: index, %q: index):
    %v = memref.load %x[%p, %q] : memref<32x32xf32, #tile.scope<fragment>>
    %s = memref.load %r[%p] : memref<32xf32, #tile.scope<fragment>>
    %m = arith.mulf %v, %s : f32
    memref.store %m, %x[%p, %q] : memref<32x32xf32, #tile.scope<fragment>>
  }
  tile.copy %acc to %X[%i, %i] : memref<32x32xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %x to %X[%i, %i] : memref<32x32xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// rows and cols get different projections (of two accumulators of
// different shapes) before the copy between them is seen.
// CHECK-LABEL: func.func @copy_conflict(
// CHECK: tile.alloc {tile.demoted = "copied between fragments of different layouts"} : memref<32xf32, #tile.scope<shared>>
// CHECK-NEXT: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, -1], extents = [2, 16, 8], thread_strides = [0, 1, 16], slot_strides = [1, 0, 0]>} : memref<32xf32, #tile.scope<fragment>>
func.func @copy_conflict() attributes {tile.kernel, tile.threads = 128 : i64} {
  %as = tile.alloc : memref<32x8xf32, #tile.scope<shared>>
  %bs = tile.alloc : memref<8x64xf32, #tile.scope<shared>>
  %cs = tile.alloc : memref<64x8xf32, #tile.scope<shared>>
  %ds = tile.alloc : memref<8x32xf32, #tile.scope<shared>>
  %acc1 = tile.alloc : memref<32x64xf32, #tile.scope<fragment>>
  %acc2 = tile.alloc : memref<64x32xf32, #tile.scope<fragment>>
  %rows = tile.alloc : memref<32xf32, #tile.scope<fragment>>
  %cols = tile.alloc : memref<32xf32, #tile.scope<fragment>>
  tile.gemm %as, %bs, %acc1 {clear} : memref<32x8xf32, #tile.scope<shared>>, memref<8x64xf32, #tile.scope<shared>>, memref<32x64xf32, #tile.scope<fragment>>
  tile.gemm %cs, %ds, %acc2 {clear} : memref<64x8xf32, #tile.scope<shared>>, memref<8x32xf32, #tile.scope<shared>>, memref<64x32xf32, #tile.scope<fragment>>
  tile.parallel [32, 64] {
  ^bb0(%p: index, %q: index):
    %v = memref.load %acc1[%p, %q] : memref<32x64xf32, #tile.scope<fragment>>
    %s = memref.load %rows[%p] : memref<32xf32, #tile.scope<fragment>>
    %m = arith.mulf %v, %s : f32
    memref.store %m, %acc1[%p, %q] : memref<32x64xf32, #tile.scope<fragment>>
  }
  tile.parallel [64, 32] {
  ^bb0(%p: index, %q: index):
    %v = memref.load %acc2[%p, %q] : memref<64x32xf32, #tile.scope<fragment>>
    %s = memref.load %cols[%q] : memref<32xf32, #tile.scope<fragment>>
    %m = arith.mulf %v, %s : f32
    memref.store %m, %acc2[%p, %q] : memref<64x32xf32, #tile.scope<fragment>>
  }
  tile.copy %cols to %rows : memref<32xf32, #tile.scope<fragment>>, memref<32xf32, #tile.scope<fragment>>
  return
}

// -----

// x already has the accumulator's layout (copied from it) when the
// row-major default of w reaches it through the reduction.
// CHECK-LABEL: func.func @reduce_conflict(
// CHECK: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 1, 2, 2], extents = [4, 32, 4, 8], thread_strides = [0, 4, 1, 0], slot_strides = [8, 0, 0, 1]>} : memref<4x32x32xf32, #tile.scope<fragment>>
// CHECK-NEXT: tile.alloc {tile.demoted = "the reduction result layout differs from its other uses"} : memref<32x32xf32, #tile.scope<shared>>
func.func @reduce_conflict(%X: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %i: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %as = tile.alloc : memref<32x8xf32, #tile.scope<shared>>
  %bs = tile.alloc : memref<8x32xf32, #tile.scope<shared>>
  %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
  %w = tile.alloc : memref<4x32x32xf32, #tile.scope<fragment>>
  %x = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
  tile.gemm %as, %bs, %acc {clear} : memref<32x8xf32, #tile.scope<shared>>, memref<8x32xf32, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  tile.copy %acc to %x : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32, #tile.scope<fragment>>
  tile.copy %X[%i, %i, %i] to %w : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, memref<4x32x32xf32, #tile.scope<fragment>>
  tile.reduce <sum> %w to %x {dim = 0 : i64} : memref<4x32x32xf32, #tile.scope<fragment>>, memref<32x32xf32, #tile.scope<fragment>>
  return
}

// -----

// Any other use of the fragment value needs it in memory.
// CHECK-LABEL: func.func @other_use(
// CHECK-NEXT: %[[F:.*]] = tile.alloc {tile.demoted = "it is used by an op that needs it in memory"} : memref<16xf32, #tile.scope<shared>>
// CHECK-NEXT: memref.dim %[[F]], %{{.*}} : memref<16xf32, #tile.scope<shared>>
func.func @other_use(%c0: index) -> index attributes {tile.kernel, tile.threads = 128 : i64} {
  %f = tile.alloc : memref<16xf32, #tile.scope<fragment>>
  %d = memref.dim %f, %c0 : memref<16xf32, #tile.scope<fragment>>
  return %d : index
}

// -----

// A fragment copied through a window (indices on its side of the copy) moves
// to shared memory: a thread's registers cannot serve an arbitrary window.
// Its tile-shaped partner keeps a register layout (row-major, 16x16: 2 lanes
// x 8 registers per row, 16 rows over thread digit (tid / 2) % 16, 4 copies).
// Indices on the global or shared side demote nothing.
// CHECK-LABEL: func.func @window(
// CHECK-NEXT: %[[BIG:.*]] = tile.alloc {tile.demoted = "a window of it is copied"} : memref<32x32xf32, #tile.scope<shared>>
// CHECK-NEXT: %[[SMALL:.*]] = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 1, 1, -1], extents = [16, 2, 8, 4], thread_strides = [2, 1, 0, 32], slot_strides = [0, 0, 1, 0]>} : memref<16x16xf32, #tile.scope<fragment>>
// CHECK-NEXT: %[[DST:.*]] = tile.alloc {tile.demoted = "a window of it is copied"} : memref<32x32xf32, #tile.scope<shared>>
// CHECK-NEXT: %[[SH:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<shared>>
// CHECK-NEXT: %[[PART:.*]] = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 1, 1, -1], extents = [16, 2, 8, 4], thread_strides = [2, 1, 0, 32], slot_strides = [0, 0, 1, 0]>} : memref<16x16xf32, #tile.scope<fragment>>
// CHECK: tile.copy %[[BIG]][%{{.*}}, %{{.*}}] to %[[SMALL]] : memref<32x32xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
// CHECK: tile.copy %[[SMALL]] to %[[DST]][%{{.*}}, %{{.*}}] : memref<16x16xf32, #tile.scope<fragment>>, memref<32x32xf32, #tile.scope<shared>>
// CHECK: tile.copy %[[SH]][%{{.*}}, %{{.*}}] to %[[PART]] : memref<32x32xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
func.func @window(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %i: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %big = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
  %small = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %dst = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
  %sh = tile.alloc : memref<32x32xf32, #tile.scope<shared>>
  %part = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  tile.copy %X[%i, %i] to %big : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<32x32xf32, #tile.scope<fragment>>
  tile.copy %big[%i, %i] to %small : memref<32x32xf32, #tile.scope<fragment>>, memref<16x16xf32, #tile.scope<fragment>>
  tile.copy %small to %dst[%i, %i] : memref<16x16xf32, #tile.scope<fragment>>, memref<32x32xf32, #tile.scope<fragment>>
  tile.copy %dst to %X[%i, %i] : memref<32x32xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %X[%i, %i] to %sh : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<32x32xf32, #tile.scope<shared>>
  tile.copy %sh[%i, %i] to %part : memref<32x32xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  tile.copy %part to %X[%i, %i] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// With mma, a gemm of f16/bf16 operands in shared memory into f32 gets the
// m16n8k16 accumulator layout. 32x32 over 4 warps: a 2x2 warp grid (the
// smallest warp tile perimeter), each warp 16 rows (warp row tid/64; h: rows
// g and g+8; g = lane/4) by 16 columns (warp column (tid/32)%2; 2 MMA tiles
// of 8; q = lane%4; e: columns 2q, 2q+1).
// MMA-LABEL: func.func @mma(
// MMA: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, 0, 1, 1, 1, 1], extents = [2, 2, 8, 2, 2, 4, 2], thread_strides = [64, 0, 4, 32, 0, 1, 0], slot_strides = [0, 4, 0, 0, 2, 0, 1]>} : memref<32x32xf32, #tile.scope<fragment>>
// Without mma, the SIMT layout.
// CHECK-LABEL: func.func @mma(
// CHECK: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, 1, 1], extents = [4, 8, 2, 16], thread_strides = [0, 16, 0, 1], slot_strides = [2, 0, 1, 0]>} : memref<32x32xf32, #tile.scope<fragment>>
// A fragment operand moves to shared memory; then the MMA layout applies.
// MMA-LABEL: func.func @mma_fragment_operand(
// MMA: tile.alloc {tile.demoted = "{{.*}}"} : memref<32x16xf16, #tile.scope<shared>>
// MMA: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, 0, 1, 1, 1, 1], extents = [2, 2, 8, 2, 2, 4, 2], {{.*}}>} : memref<32x32xf32, #tile.scope<fragment>>
// f32 operands, or K = 8 (not a multiple of 16): the SIMT layout.
// MMA-LABEL: func.func @no_mma_f32(
// MMA: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, 1, 1], extents = [4, 8, 2, 16], thread_strides = [0, 16, 0, 1], slot_strides = [2, 0, 1, 0]>} : memref<32x32xf32, #tile.scope<fragment>>
// MMA-LABEL: func.func @no_mma_k8(
// MMA: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, 1, 1], extents = [4, 8, 2, 16], thread_strides = [0, 16, 0, 1], slot_strides = [2, 0, 1, 0]>} : memref<32x32xf32, #tile.scope<fragment>>
func.func @mma() attributes {tile.kernel, tile.threads = 128 : i64} {
  %a = tile.alloc : memref<32x16xbf16, #tile.scope<shared>>
  %b = tile.alloc : memref<16x32xbf16, #tile.scope<shared>>
  %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %acc {clear} : memref<32x16xbf16, #tile.scope<shared>>, memref<16x32xbf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  return
}
func.func @mma_fragment_operand(%X: memref<?x?xf16, strided<[?, 1], offset: ?>>, %i: index) attributes {tile.kernel, tile.threads = 128 : i64} {
  %a = tile.alloc : memref<32x16xf16, #tile.scope<fragment>>
  %b = tile.alloc : memref<16x32xf16, #tile.scope<shared>>
  %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
  tile.copy %X[%i, %i] to %a : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<32x16xf16, #tile.scope<fragment>>
  tile.gemm %a, %b, %acc {clear} : memref<32x16xf16, #tile.scope<fragment>>, memref<16x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  return
}
func.func @no_mma_f32() attributes {tile.kernel, tile.threads = 128 : i64} {
  %a = tile.alloc : memref<32x16xf32, #tile.scope<shared>>
  %b = tile.alloc : memref<16x32xf32, #tile.scope<shared>>
  %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %acc {clear} : memref<32x16xf32, #tile.scope<shared>>, memref<16x32xf32, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  return
}
func.func @no_mma_k8() attributes {tile.kernel, tile.threads = 128 : i64} {
  %a = tile.alloc : memref<32x8xbf16, #tile.scope<shared>>
  %b = tile.alloc : memref<8x32xbf16, #tile.scope<shared>>
  %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %acc {clear} : memref<32x8xbf16, #tile.scope<shared>>, memref<8x32xbf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  return
}

// -----

// Functions that are not kernels are left alone.
// CHECK-LABEL: func.func @not_a_kernel(
// CHECK-NEXT: tile.alloc : memref<16xf32, #tile.scope<fragment>>
func.func @not_a_kernel() {
  %f = tile.alloc : memref<16xf32, #tile.scope<fragment>>
  return
}

// -----

// warps_m fixes the MMA warp grid: 32x32 over 4 warps with 1 warp along M
// is a 1x4 grid (each warp all 32 rows, 8 columns; the compiler's own
// choice is 2x2, above). Without MMA instructions the hint has no effect.
// MMA-LABEL: func.func @mma_warps_m(
// MMA: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, 0, 1, 1, 1], extents = [2, 2, 8, 4, 4, 2], thread_strides = [0, 0, 4, 32, 1, 0], slot_strides = [4, 2, 0, 0, 0, 1]>} : memref<32x32xf32, #tile.scope<fragment>>
// CHECK-LABEL: func.func @mma_warps_m(
// CHECK: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 0, 1, 1], extents = [4, 8, 2, 16], thread_strides = [0, 16, 0, 1], slot_strides = [2, 0, 1, 0]>} : memref<32x32xf32, #tile.scope<fragment>>
func.func @mma_warps_m() attributes {tile.kernel, tile.threads = 128 : i64} {
  %a = tile.alloc : memref<32x16xbf16, #tile.scope<shared>>
  %b = tile.alloc : memref<16x32xbf16, #tile.scope<shared>>
  %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %acc {clear, warps_m = 1 : i64} : memref<32x16xbf16, #tile.scope<shared>>, memref<16x32xbf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  return
}
