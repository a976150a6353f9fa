// RUN: tlc-opt %s --tile-expand-element-access | FileCheck %s --implicit-check-not=tile.load --implicit-check-not=tile.store --implicit-check-not=tile.atomic
// tile-expand-element-access puts every tensor element access under a check
// of each index against its dimension (unsigned: negative indices fail): a
// load reads zero outside, a store or an atomic does nothing.

// CHECK-LABEL: func.func @load
// CHECK-DAG: %[[M:.*]] = memref.dim %[[X:.*]], %c0
// CHECK-DAG: %[[IN0:.*]] = arith.cmpi ult, %[[I:.*]], %[[M]] : index
// CHECK-DAG: %[[N:.*]] = memref.dim %[[X]], %c1
// CHECK-DAG: %[[IN1:.*]] = arith.cmpi ult, %[[J:.*]], %[[N]] : index
// CHECK: %[[OK:.*]] = arith.andi %[[IN0]], %[[IN1]] : i1
// CHECK: %[[V:.*]] = scf.if %[[OK]] -> (f32) {
// CHECK-NEXT: %[[L:.*]] = memref.load %[[X]][%[[I]], %[[J]]]
// CHECK-NEXT: scf.yield %[[L]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: scf.yield %[[ZERO]] : f32
// CHECK: return %[[V]] : f32
func.func @load(%x: memref<?x?xf32, strided<[?, 1], offset: ?>>, %i: index,
                %j: index) -> f32 {
  %v = tile.load %x[%i, %j] : memref<?x?xf32, strided<[?, 1], offset: ?>>
  return %v : f32
}

// CHECK-LABEL: func.func @store
// CHECK: %[[OK:.*]] = arith.cmpi ult
// CHECK: scf.if %[[OK]] {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK-NEXT: }
func.func @store(%x: memref<?xi32>, %i: index, %v: i32) {
  tile.store %v, %x[%i] : memref<?xi32>
  return
}

// Each kind has its read-modify-write: add, max and min, float or integer.
// CHECK-LABEL: func.func @atomics
// CHECK: scf.if
// CHECK-NEXT: memref.atomic_rmw addf
// CHECK: scf.if
// CHECK-NEXT: memref.atomic_rmw maximumf
// CHECK: scf.if
// CHECK-NEXT: memref.atomic_rmw minimumf
// CHECK: scf.if
// CHECK-NEXT: memref.atomic_rmw addi
// CHECK: scf.if
// CHECK-NEXT: memref.atomic_rmw maxs
// CHECK: scf.if
// CHECK-NEXT: memref.atomic_rmw mins
func.func @atomics(%f: memref<?xf32>, %n: memref<?xi64>, %i: index, %x: f32,
                   %y: i64) {
  tile.atomic <sum> %x, %f[%i] : memref<?xf32>
  tile.atomic <max> %x, %f[%i] : memref<?xf32>
  tile.atomic <min> %x, %f[%i] : memref<?xf32>
  tile.atomic <sum> %y, %n[%i] : memref<?xi64>
  tile.atomic <max> %y, %n[%i] : memref<?xi64>
  tile.atomic <min> %y, %n[%i] : memref<?xi64>
  return
}

// Static sizes and constant indices: the check folds once canonicalized;
// here it is only built.
// CHECK-LABEL: func.func @static
// CHECK: memref.dim
// CHECK: scf.if
func.func @static(%x: memref<8xf32>) -> f32 {
  %c3 = arith.constant 3 : index
  %v = tile.load %x[%c3] : memref<8xf32>
  return %v : f32
}
