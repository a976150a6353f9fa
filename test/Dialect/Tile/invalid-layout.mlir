// RUN: tlc-opt %s -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=VALID
// One case per error of the #tile.layout verifier (LayoutAttr::verify in
// TileDialect.cpp): one entry per factor in each array, at least one thread,
// every factor either a thread factor (thread stride > 0) or a slot factor
// (slot stride > 0), and replications (dim -1) thread factors.

func.func @mismatched_lengths() {
  // expected-error @+1 {{dims, extents, thread_strides and slot_strides must have one entry per factor}}
  %f = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 1], extents = [4], thread_strides = [1, 0], slot_strides = [0, 1]>} : memref<4x4xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @mismatched_strides() {
  // expected-error @+1 {{dims, extents, thread_strides and slot_strides must have one entry per factor}}
  %f = tile.alloc {tile.layout = #tile.layout<threads = 4, dims = [0, 1], extents = [4, 4], thread_strides = [1, 0], slot_strides = [0]>} : memref<4x4xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @both_strides() {
  // expected-error @+1 {{factor 1 needs exactly one of a thread stride and a slot stride}}
  %f = tile.alloc {tile.layout = #tile.layout<threads = 4, dims = [0, 1], extents = [4, 4], thread_strides = [1, 4], slot_strides = [0, 1]>} : memref<4x4xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @neither_stride() {
  // expected-error @+1 {{factor 0 needs exactly one of a thread stride and a slot stride}}
  %f = tile.alloc {tile.layout = #tile.layout<threads = 4, dims = [0, 1], extents = [4, 4], thread_strides = [0, 1], slot_strides = [0, 0]>} : memref<4x4xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @no_threads() {
  // expected-error @+1 {{a layout needs at least one thread}}
  %f = tile.alloc {tile.layout = #tile.layout<threads = 0, dims = [0], extents = [4], thread_strides = [0], slot_strides = [1]>} : memref<4xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @bad_dim() {
  // expected-error @+1 {{factor 0: dims must be >= -1, extents >= 1, strides >= 0}}
  %f = tile.alloc {tile.layout = #tile.layout<threads = 4, dims = [-2], extents = [4], thread_strides = [1], slot_strides = [0]>} : memref<4xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @bad_extent() {
  // expected-error @+1 {{factor 1: dims must be >= -1, extents >= 1, strides >= 0}}
  %f = tile.alloc {tile.layout = #tile.layout<threads = 4, dims = [0, 0], extents = [4, 0], thread_strides = [1, 0], slot_strides = [0, 1]>} : memref<4xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @negative_stride() {
  // expected-error @+1 {{factor 0: dims must be >= -1, extents >= 1, strides >= 0}}
  %f = tile.alloc {tile.layout = #tile.layout<threads = 4, dims = [0], extents = [4], thread_strides = [-1], slot_strides = [1]>} : memref<4xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @slot_replication() {
  // expected-error @+1 {{factor 1: a replication (dim -1) is a thread factor}}
  %f = tile.alloc {tile.layout = #tile.layout<threads = 4, dims = [0, -1], extents = [4, 2], thread_strides = [1, 0], slot_strides = [0, 1]>} : memref<4xf32, #tile.scope<fragment>>
  return
}

// -----

// A valid layout (the row-major default of a 4x8 tile over 128 threads, see
// tile-infer-layouts.mlir) parses without a diagnostic and prints back.
// VALID-LABEL: func.func @valid(
// VALID-NEXT: tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 1, -1], extents = [4, 8, 32], thread_strides = [1, 0, 4], slot_strides = [0, 1, 0]>} : memref<4x8xf32, #tile.scope<fragment>>
func.func @valid() {
  %f = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 1, -1], extents = [4, 8, 32], thread_strides = [1, 0, 4], slot_strides = [0, 1, 0]>} : memref<4x8xf32, #tile.scope<fragment>>
  return
}
