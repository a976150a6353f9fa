// RUN: tlc-opt %s --tile-pack-sub-byte --split-input-file --verify-diagnostics | FileCheck %s
// tile-pack-sub-byte stores u4/i4 (i4 memrefs) two per byte: arguments and
// tiles become i8 memrefs of half the innermost size, copies move whole
// bytes (the innermost origin halved), element reads shift the nibble down,
// element writes in a parallel are paired into byte stores, and 4-bit
// values become bytes.

// Arguments and tiles; the innermost size doubled back; the packed
// argument's innermost size no longer a use of K; the copy origin halved in
// its product form; element reads of tensors and tiles.
// CHECK-LABEL: func.func @reads
// CHECK-SAME: (%[[Q:.*]]: memref<?x?xi8, strided<[?, 1], offset: ?>>, %[[Y:.*]]: memref<?x?xi32, {{.*}}>, %[[K:.*]]: index)
// CHECK-SAME: tile.dims = {K = [array<i64: 1, 1>], M = [array<i64: 0, 0>, array<i64: 1, 0>]}
// CHECK: %[[T:.*]] = tile.alloc {tile.packed = memref<16x64xi4, #tile.scope<shared>>} : memref<16x32xi8, #tile.scope<shared>>
// CHECK: %[[ROW:.*]] = arith.muli %[[K]], %c64
// CHECK: %[[COL:.*]] = arith.muli %[[K]], %c32
// CHECK: tile.copy %[[Q]][%[[ROW]], %[[COL]]] to %[[T]] {{.*}} : memref<?x?xi8, {{.*}}>, memref<16x32xi8, #tile.scope<shared>>
// CHECK: %[[BYTES:.*]] = memref.dim %[[Q]], %c1
// CHECK: %[[N:.*]] = arith.muli %[[BYTES]], %c2
// CHECK: %[[AT:.*]] = arith.shrsi %[[N]], %{{.*}} : index
// CHECK: %[[ODD:.*]] = arith.andi %[[N]], %{{.*}} : index
// CHECK: %[[ODD8:.*]] = arith.index_cast %[[ODD]] : index to i8
// CHECK: %[[SHIFT:.*]] = arith.shli %[[ODD8]], %c2_i8 : i8
// CHECK: %[[BYTE:.*]] = tile.load %[[Q]][%[[K]], %[[AT]]] : memref<?x?xi8
// CHECK: %[[DOWN:.*]] = arith.shrui %[[BYTE]], %[[SHIFT]] : i8
// CHECK: %[[U:.*]] = arith.andi %[[DOWN]], %c15_i8 : i8
// CHECK: memref.load %[[T]][%[[K]], %{{.*}}] : memref<16x32xi8, #tile.scope<shared>>
// CHECK: %[[S:.*]] = arith.andi %{{.*}}, %c15_i8
// CHECK: arith.extui %[[U]] : i8 to i32
// CHECK: %[[HI:.*]] = arith.shli %[[S]], %c4_i8 : i8
// CHECK: %[[SB:.*]] = arith.shrsi %[[HI]], %c4_i8 : i8
// CHECK: arith.extsi %[[SB]] : i8 to i32
// CHECK-NOT: i4
func.func @reads(%Q: memref<?x?xi4, strided<[?, 1], offset: ?>>, %Y: memref<?x?xi32, strided<[?, 1], offset: ?>>, %k: index) attributes {tile.kernel, tile.dims = {K = [array<i64: 0, 1>, array<i64: 1, 1>], M = [array<i64: 0, 0>, array<i64: 1, 0>]}} {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = tile.alloc : memref<16x64xi4, #tile.scope<shared>>
  %o = arith.muli %k, %c64 : index
  tile.copy %Q[%o, %o] to %t {dest_unsigned, source_unsigned} : memref<?x?xi4, strided<[?, 1], offset: ?>>, memref<16x64xi4, #tile.scope<shared>>
  %n = memref.dim %Q, %c1 : memref<?x?xi4, strided<[?, 1], offset: ?>>
  %v = tile.load %Q[%k, %n] : memref<?x?xi4, strided<[?, 1], offset: ?>>
  %w = memref.load %t[%k, %k] : memref<16x64xi4, #tile.scope<shared>>
  %a = arith.extui %v : i4 to i32
  %b = arith.extsi %w : i4 to i32
  %s = arith.addi %a, %b : i32
  memref.store %s, %Y[%k, %k] : memref<?x?xi32, strided<[?, 1], offset: ?>>
  return
}

// -----

// A parallel writing a packed tile at its own indices: one iteration per
// byte, the body for j = 2 jb and 2 jb + 1, one byte store; fill repeats
// the nibble in both halves; a slice's start and length halved.
// CHECK-LABEL: func.func @writes
// CHECK: tile.parallel [8, 16] {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[JB:.*]]: index):
// CHECK: %[[J0:.*]] = arith.muli %[[JB]], %c2
// CHECK: %[[J1:.*]] = arith.addi %[[J0]], %c1
// CHECK: %[[X0:.*]] = memref.load %{{.*}}[%[[I]], %[[J0]]] : memref<8x32xi32
// CHECK: %[[N0:.*]] = arith.andi %{{.*}}, %c15_i8
// CHECK: %[[X1:.*]] = memref.load %{{.*}}[%[[I]], %[[J1]]] : memref<8x32xi32
// CHECK: %[[N1:.*]] = arith.andi %{{.*}}, %c15_i8
// CHECK: %[[UP:.*]] = arith.shli %[[N1]], %c4_i8
// CHECK: %[[B:.*]] = arith.ori %[[N0]], %[[UP]] : i8
// CHECK: memref.store %[[B]], %{{.*}}[%[[I]], %[[JB]]] : memref<8x16xi8, #tile.scope<shared>>
// CHECK: %[[F:.*]] = arith.constant 9 : i8
// CHECK: %[[F4:.*]] = arith.shli %[[F]], %c4_i8
// CHECK: %[[FB:.*]] = arith.ori %[[F]], %[[F4]] : i8
// CHECK: tile.fill %{{.*}}, %[[FB]] : memref<8x16xi8, #tile.scope<shared>>, i8
// CHECK: memref.subview %{{.*}}[%{{.*}}, %[[HALF:.*]]] [8, 16] [1, 1] : memref<?x?xi8, {{.*}}> to memref<8x16xi8, {{.*}}>
// CHECK: tile.copy %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : memref<8x16xi8, #tile.scope<shared>>, memref<8x16xi8, strided<[?, 1], offset: ?>>
func.func @writes(%X: memref<8x32xi32>, %Q: memref<?x?xi4, strided<[?, 1], offset: ?>>, %k: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %t = tile.alloc : memref<8x32xi4, #tile.scope<shared>>
  tile.parallel [8, 32] {
  ^bb0(%i: index, %j: index):
    %x = memref.load %X[%i, %j] : memref<8x32xi32>
    %q = arith.trunci %x : i32 to i4
    memref.store %q, %t[%i, %j] : memref<8x32xi4, #tile.scope<shared>>
  }
  %nine = arith.constant 9 : i4
  tile.fill %t, %nine : memref<8x32xi4, #tile.scope<shared>>, i4
  %col = arith.muli %k, %c32 : index
  %s = memref.subview %Q[%k, %col] [8, 32] [1, 1] : memref<?x?xi4, strided<[?, 1], offset: ?>> to memref<8x32xi4, strided<[?, 1], offset: ?>>
  tile.copy %t to %s[%c0, %c0] : memref<8x32xi4, #tile.scope<shared>>, memref<8x32xi4, strided<[?, 1], offset: ?>>
  return
}

// -----

// Conversions of 4-bit values: constants and selects as bytes, floats,
// indices.
// CHECK-LABEL: func.func @conversions
// CHECK-NOT: i4
// CHECK: arith.constant 3 : i8
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i8
// CHECK: memref.store %{{.*}}, %{{.*}}[] : memref<i8>
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: arith.sitofp %{{.*}} : i8 to f32
// CHECK: arith.index_castui %{{.*}} : i8 to index
func.func @conversions(%c: i1, %f: f32, %v: memref<i4>) -> (f32, f32, index) {
  %a = arith.constant 3 : i4
  %b = arith.fptoui %f : f32 to i4
  %s = arith.select %c, %a, %b : i4
  memref.store %s, %v[] : memref<i4>
  %l = memref.load %v[] : memref<i4>
  %u = arith.uitofp %l : i4 to f32
  %g = arith.sitofp %s : i4 to f32
  %i = arith.index_castui %l : i4 to index
  return %u, %g, %i : f32, f32, index
}

// -----

func.func @unprovable(%Q: memref<?x?xi4, strided<[?, 1], offset: ?>>, %k: index) {
  %t = tile.alloc : memref<16x64xi4, #tile.scope<shared>>
  // expected-error @below {{the innermost window origin must be even, and tlc cannot prove it is}}
  tile.copy %Q[%k, %k] to %t : memref<?x?xi4, strided<[?, 1], offset: ?>>, memref<16x64xi4, #tile.scope<shared>>
  return
}

// -----

func.func @store_outside_parallel(%k: index, %v: i4) {
  %t = tile.alloc : memref<16x64xi4, #tile.scope<shared>>
  // expected-error @below {{an element of a 4-bit tile is written only in a parallel over that tile at its own indices}}
  memref.store %v, %t[%k, %k] : memref<16x64xi4, #tile.scope<shared>>
  return
}

// -----

func.func @store_elsewhere(%v: i4) {
  %t = tile.alloc : memref<16x64xi4, #tile.scope<shared>>
  tile.parallel [16, 64] {
  ^bb0(%i: index, %j: index):
    // expected-error @below {{written only in a parallel over that tile at its own indices, once}}
    memref.store %v, %t[%j, %i] : memref<16x64xi4, #tile.scope<shared>>
  }
  return
}

// -----

func.func @odd_extent(%v: i4) {
  %t = tile.alloc : memref<16x64xi4, #tile.scope<shared>>
  // expected-error @below {{a parallel that writes 4-bit elements needs an even innermost extent}}
  tile.parallel [16, 63] {
  ^bb0(%i: index, %j: index):
    memref.store %v, %t[%i, %j] : memref<16x64xi4, #tile.scope<shared>>
  }
  return
}

// -----

// expected-error @below {{argument 0 packs two 4-bit elements per byte: its innermost size must be even, got 7}}
func.func @odd_static(%Q: memref<?x7xi4, strided<[?, 1], offset: ?>>) {
  return
}

// -----

func.func @arithmetic(%v: memref<i4>) -> i32 {
  %a = memref.load %v[] : memref<i4>
  // expected-error @below {{this operation does not take 4-bit values (tlc computes them in i32)}}
  %s = arith.divui %a, %a : i4
  %w = arith.extui %s : i4 to i32
  return %w : i32
}

// -----

// 4-bit arithmetic (compound assignments) in bytes, masked; comparisons of
// sign-extended bytes for signed predicates.
// CHECK-LABEL: func.func @compound
// CHECK: %[[SUM:.*]] = arith.addi %{{.*}}, %{{.*}} : i8
// CHECK: arith.andi %[[SUM]], %{{.*}} : i8
// CHECK: arith.shli
// CHECK: arith.shrsi
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i8
func.func @compound(%v: memref<i4>) -> i1 {
  %a = memref.load %v[] : memref<i4>
  %s = arith.addi %a, %a : i4
  memref.store %s, %v[] : memref<i4>
  %z = arith.constant 0 : i4
  %n = arith.cmpi slt, %s, %z : i4
  return %n : i1
}

// -----

func.func @slice(%Q: memref<?x?xi4, strided<[?, 1], offset: ?>>, %k: index) {
  // expected-error @below {{a slice of 4-bit elements must start at an even position and have an even length}}
  %s = memref.subview %Q[0, %k] [8, 32] [1, 1] : memref<?x?xi4, strided<[?, 1], offset: ?>> to memref<8x32xi4, strided<[?, 1], offset: ?>>
  return
}
