// RUN: tlc-opt %s -split-input-file --tile-specialize-dims=dims=M=64 | FileCheck %s
// RUN: tlc-opt %s -split-input-file --tile-specialize-dims=dims=M=64,K=8 -canonicalize | FileCheck %s --check-prefix=FOLD
// RUN: tlc-opt %s -split-input-file --tile-specialize-dims | FileCheck %s --check-prefix=NONE
// RUN: not tlc-opt %s -split-input-file --tile-specialize-dims=dims=M=abc 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tlc-opt %s -split-input-file --tile-specialize-dims=dims=M 2>&1 | FileCheck %s --check-prefix=NOVALUE
// RUN: not tlc-opt %s -split-input-file --tile-specialize-dims=dims=M=-4 2>&1 | FileCheck %s --check-prefix=NEG
// Every argument dimension bound to a specialized symbolic dimension becomes
// static; the binding is recorded in tile.static_dims. Other dimensions,
// and functions without tile.dims, are left alone.

// CHECK-LABEL: func.func @k(
// CHECK-SAME: %{{[^:]*}}: memref<64x?xf32, strided<[?, 1], offset: ?>>,
// CHECK-SAME: %{{[^:]*}}: memref<?x64xf16, strided<[?, 1], offset: ?>>,
// CHECK-SAME: %{{[^:]*}}: f32) -> index
// CHECK-SAME: tile.static_dims = {M = 64 : i64}
// CHECK: memref.dim %{{.*}} : memref<64x?xf32, strided<[?, 1], offset: ?>>
// FOLD-LABEL: func.func @k(
// FOLD-SAME: memref<64x8xf32, strided<[?, 1], offset: ?>>
// FOLD-SAME: memref<?x64xf16, strided<[?, 1], offset: ?>>
// FOLD-SAME: tile.static_dims = {K = 8 : i64, M = 64 : i64}
// FOLD-NEXT: %[[C:.*]] = arith.constant 64 : index
// FOLD-NEXT: return %[[C]] : index
// NONE-LABEL: func.func @k(
// NONE-SAME: memref<?x?xf32, strided<[?, 1], offset: ?>>
// NONE-NOT: static_dims
func.func @k(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>,
             %B: memref<?x?xf16, strided<[?, 1], offset: ?>>, %s: f32) -> index
    attributes {tile.kernel, tile.dims = {M = [array<i64: 0, 0>, array<i64: 1, 1>], K = [array<i64: 0, 1>]}} {
  %c0 = arith.constant 0 : index
  %d = memref.dim %A, %c0 : memref<?x?xf32, strided<[?, 1], offset: ?>>
  return %d : index
}

// -----

// A kernel that does not use M is not marked.
// CHECK-LABEL: func.func @other(
// CHECK-SAME: memref<?xf32>
// CHECK-NOT: tile.static_dims
// CHECK: return
func.func @other(%A: memref<?xf32>) attributes {tile.kernel, tile.dims = {N = [array<i64: 0, 0>]}} {
  return
}

// -----

// No tile.dims: not a kernel, untouched.
// CHECK-LABEL: func.func @plain(
// CHECK-SAME: memref<?xf32>
// CHECK-NOT: tile.static_dims
func.func @plain(%A: memref<?xf32>) {
  return
}

// BAD: error: tile-specialize-dims: bad binding 'M=abc', expected NAME=VALUE
// NOVALUE: error: tile-specialize-dims: bad binding 'M', expected NAME=VALUE
// NEG: error: tile-specialize-dims: bad binding 'M=-4', expected NAME=VALUE
