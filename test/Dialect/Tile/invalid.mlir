// RUN: tlc-opt %s -split-input-file -verify-diagnostics
// One case per verifier error of the tile ops (TileOps.cpp), plus the ODS
// constraints that guard them.

func.func @alloc_no_scope() {
  // expected-error @+1 {{'tile.alloc' op result must be in a #tile.scope memory space}}
  %t = tile.alloc : memref<4x4xf32>
  return
}

// -----

func.func @alloc_layout() {
  // expected-error @+1 {{'tile.alloc' op result must have the identity layout}}
  %t = tile.alloc : memref<4x4xf32, strided<[8, 1]>, #tile.scope<shared>>
  return
}

// -----

func.func @alloc_dynamic() {
  // expected-error @+1 {{'tile.alloc' op result #0 must be statically shaped memref of any type values}}
  %t = tile.alloc : memref<?x4xf32, #tile.scope<shared>>
  return
}

// -----

func.func @block_id_dim() {
  // expected-error @+1 {{'tile.block_id' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %x = tile.block_id 3
  return
}

// -----

func.func @copy_both_indexed(%i: index) {
  %a = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  %b = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
  // expected-error @+1 {{'tile.copy' op at most one side of a copy can be indexed}}
  tile.copy %a[%i, %i] to %b[%i, %i] : memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @copy_dynamic_dest(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %i: index) {
  // expected-error @+1 {{'tile.copy' op destination tile must have a static shape}}
  tile.copy %A[%i, %i] to %B : memref<?x?xf32>, memref<?x?xf32>
  return
}

// -----

func.func @copy_dynamic_source(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %i: index) {
  // expected-error @+1 {{'tile.copy' op source tile must have a static shape}}
  tile.copy %A to %B[%i, %i] : memref<?x?xf32>, memref<?x?xf32>
  return
}

// -----

func.func @copy_source_index_count(%A: memref<?x?xf32>, %i: index) {
  %t = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  // expected-error @+1 {{'tile.copy' op source takes 2 indices, got 1}}
  tile.copy %A[%i] to %t : memref<?x?xf32>, memref<8x8xf32, #tile.scope<shared>>
  return
}

// -----

func.func @copy_dest_index_count(%C: memref<?x?xf32>, %i: index) {
  %t = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  // expected-error @+1 {{'tile.copy' op destination takes 2 indices, got 3}}
  tile.copy %t to %C[%i, %i, %i] : memref<8x8xf32, #tile.scope<shared>>, memref<?x?xf32>
  return
}

// -----

func.func @copy_window_rank(%A: memref<?xf32>, %i: index) {
  %t = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  // expected-error @+1 {{'tile.copy' op tile of rank 2 does not fit in source of rank 1}}
  tile.copy %A[%i] to %t : memref<?xf32>, memref<8x8xf32, #tile.scope<shared>>
  return
}

// -----

func.func @copy_unindexed_dynamic(%A: memref<?x8xf32>) {
  %t = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  // expected-error @+1 {{'tile.copy' op an un-indexed copy needs static shapes on both sides}}
  tile.copy %A to %t : memref<?x8xf32>, memref<8x8xf32, #tile.scope<shared>>
  return
}

// -----

func.func @copy_shape_mismatch() {
  %a = tile.alloc : memref<4x4xf32, #tile.scope<shared>>
  %b = tile.alloc : memref<4x8xf16, #tile.scope<fragment>>
  // expected-error @+1 {{'tile.copy' op shape mismatch: [4, 4] vs [4, 8]}}
  tile.copy %a to %b : memref<4x4xf32, #tile.scope<shared>>, memref<4x8xf16, #tile.scope<fragment>>
  return
}

// -----

func.func @fill_type(%v: f16) {
  %t = tile.alloc : memref<4x4xf32, #tile.scope<fragment>>
  // expected-error @+1 {{'tile.fill' op value type must match the tile's element type}}
  tile.fill %t, %v : memref<4x4xf32, #tile.scope<fragment>>, f16
  return
}

// -----

func.func @gemm_rank() {
  %a = tile.alloc : memref<4x4xf32, #tile.scope<shared>>
  %b = tile.alloc : memref<4xf32, #tile.scope<shared>>
  %c = tile.alloc : memref<4x4xf32, #tile.scope<fragment>>
  // expected-error @+1 {{'tile.gemm' op operands must be rank-2 tiles}}
  tile.gemm %a, %b, %c : memref<4x4xf32, #tile.scope<shared>>, memref<4xf32, #tile.scope<shared>>, memref<4x4xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @gemm_k() {
  %a = tile.alloc : memref<64x32xf32, #tile.scope<shared>>
  %b = tile.alloc : memref<16x64xf32, #tile.scope<shared>>
  %c = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
  // expected-error @+1 {{'tile.gemm' op reduction dimensions differ: 32 vs 16}}
  tile.gemm %a, %b, %c : memref<64x32xf32, #tile.scope<shared>>, memref<16x64xf32, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @gemm_k_transposed() {
  %a = tile.alloc : memref<64x32xf32, #tile.scope<shared>>
  %b = tile.alloc : memref<32x64xf32, #tile.scope<shared>>
  %c = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
  // With transpose_b, B is 64x32: K is 64 on the B side.
  // expected-error @+1 {{'tile.gemm' op reduction dimensions differ: 32 vs 64}}
  tile.gemm %a, %b, %c {transpose_b} : memref<64x32xf32, #tile.scope<shared>>, memref<32x64xf32, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @gemm_accumulator() {
  %a = tile.alloc : memref<64x32xf32, #tile.scope<shared>>
  %b = tile.alloc : memref<32x16xf32, #tile.scope<shared>>
  %c = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
  // expected-error @+1 {{'tile.gemm' op accumulator shape [64, 64] does not match the product shape [64, 16]}}
  tile.gemm %a, %b, %c : memref<64x32xf32, #tile.scope<shared>>, memref<32x16xf32, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @gemm_element_types() {
  %a = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
  %b = tile.alloc : memref<32x16xbf16, #tile.scope<shared>>
  %c = tile.alloc : memref<64x16xf32, #tile.scope<fragment>>
  // expected-error @+1 {{'tile.gemm' op A and B must have the same element type}}
  tile.gemm %a, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<32x16xbf16, #tile.scope<shared>>, memref<64x16xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @reduce_dim() {
  %s = tile.alloc : memref<16x32xf32, #tile.scope<fragment>>
  %d = tile.alloc : memref<16xf32, #tile.scope<fragment>>
  // expected-error @+1 {{'tile.reduce' op dim 2 out of range for rank 2}}
  tile.reduce <sum> %s to %d {dim = 2 : i64} : memref<16x32xf32, #tile.scope<fragment>>, memref<16xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @reduce_negative_dim() {
  %s = tile.alloc : memref<16x32xf32, #tile.scope<fragment>>
  %d = tile.alloc : memref<16xf32, #tile.scope<fragment>>
  // expected-error @+1 {{'tile.reduce' op dim -1 out of range for rank 2}}
  tile.reduce <max> %s to %d {dim = -1 : i64} : memref<16x32xf32, #tile.scope<fragment>>, memref<16xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @reduce_dest_shape() {
  %s = tile.alloc : memref<16x32xf32, #tile.scope<fragment>>
  %d = tile.alloc : memref<32xf32, #tile.scope<fragment>>
  // expected-error @+1 {{'tile.reduce' op destination shape [32] must be [16]}}
  tile.reduce <sum> %s to %d {dim = 1 : i64} : memref<16x32xf32, #tile.scope<fragment>>, memref<32xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @reduce_rank1_dest() {
  %s = tile.alloc : memref<8xf32, #tile.scope<local>>
  %d = tile.alloc : memref<8xf32, #tile.scope<local>>
  // expected-error @+1 {{'tile.reduce' op destination shape [8] must be [1]}}
  tile.reduce <min> %s to %d {dim = 0 : i64} : memref<8xf32, #tile.scope<local>>, memref<8xf32, #tile.scope<local>>
  return
}

// -----

func.func @reduce_kind() {
  %s = tile.alloc : memref<8xf32, #tile.scope<local>>
  %d = tile.alloc : memref<1xf32, #tile.scope<local>>
  // expected-error @+2 {{expected ::tlc::tile::ReduceKind to be one of: sum, max, min, absmax}}
  // expected-error @+1 {{failed to parse Tile_ReduceKindAttr parameter 'value'}}
  tile.reduce <prod> %s to %d {dim = 0 : i64} : memref<8xf32, #tile.scope<local>>, memref<1xf32, #tile.scope<local>>
  return
}

// -----

func.func @atomic_add_index_count(%C: memref<?x?xf32>, %i: index) {
  %t = tile.alloc : memref<4x4xf32, #tile.scope<fragment>>
  // expected-error @+1 {{'tile.atomic_add' op destination takes 2 indices, got 1}}
  tile.atomic_add %t to %C[%i] : memref<4x4xf32, #tile.scope<fragment>>, memref<?x?xf32>
  return
}

// -----

func.func @atomic_add_rank(%C: memref<?x?xf32>, %i: index) {
  %t = tile.alloc : memref<2x4x4xf32, #tile.scope<fragment>>
  // expected-error @+1 {{'tile.atomic_add' op tile of rank 3 does not fit in destination of rank 2}}
  tile.atomic_add %t to %C[%i, %i] : memref<2x4x4xf32, #tile.scope<fragment>>, memref<?x?xf32>
  return
}

// -----

func.func @parallel_arg_count() {
  // expected-error @+1 {{'tile.parallel' op needs one index argument per dimension}}
  tile.parallel [4, 4] {
  ^bb0(%i: index):
  }
  return
}

// -----

func.func @parallel_arg_type() {
  // expected-error @+1 {{'tile.parallel' op index arguments must have index type}}
  tile.parallel [4] {
  ^bb0(%i: i32):
  }
  return
}

// -----

func.func @parallel_extent() {
  // expected-error @+1 {{'tile.parallel' op extents must be positive}}
  tile.parallel [4, 0] {
  ^bb0(%i: index, %j: index):
  }
  return
}

// -----

func.func @yield_outside_parallel() {
  // expected-error @+1 {{'tile.yield' op expects parent op 'tile.parallel'}}
  tile.yield
}

// -----

func.func @load_tile(%t: memref<4xf32, #tile.scope<shared>>, %i: index) {
  // expected-error @+1 {{'tile.load' op needs a global tensor, not a tile}}
  %v = tile.load %t[%i] : memref<4xf32, #tile.scope<shared>>
  return
}

// -----

func.func @load_rank(%x: memref<?x?xf32>, %i: index) {
  // expected-error @+1 {{'tile.load' op tensor of rank 2 takes as many indices, got 1}}
  %v = tile.load %x[%i] : memref<?x?xf32>
  return
}

// -----

func.func @store_rank(%x: memref<?xf32>, %i: index, %v: f32) {
  // expected-error @+1 {{'tile.store' op tensor of rank 1 takes as many indices, got 2}}
  tile.store %v, %x[%i, %i] : memref<?xf32>
  return
}

// -----

func.func @atomic_absmax(%x: memref<?xf32>, %i: index, %v: f32) {
  // expected-error @+1 {{'tile.atomic' op absmax has no atomic form}}
  tile.atomic <absmax> %v, %x[%i] : memref<?xf32>
  return
}

// -----

func.func @atomic_i16(%x: memref<?xi16>, %i: index, %v: i16) {
  // expected-error @+1 {{'tile.atomic' op atomics need a float or a 32/64-bit integer element type, got 'i16'}}
  tile.atomic <sum> %v, %x[%i] : memref<?xi16>
  return
}

// -----

func.func @atomic_tile(%t: memref<4xi32, #tile.scope<shared>>, %i: index, %v: i32) {
  // expected-error @+1 {{'tile.atomic' op needs a global tensor, not a tile}}
  tile.atomic <max> %v, %t[%i] : memref<4xi32, #tile.scope<shared>>
  return
}

// -----

func.func @gather_no_window(%i: index) {
  %a = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  %b = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  %r = tile.alloc : memref<8xi32, #tile.scope<shared>>
  // expected-error @+1 {{'tile.copy' op a gather needs a window}}
  tile.copy %a gather(%r : memref<8xi32, #tile.scope<shared>>) to %b {gather_dims = array<i64: 0>} : memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<shared>>
  return
}

// -----

func.func @gather_dims_count(%A: memref<?x?xf32>, %i: index) {
  %t = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  %r = tile.alloc : memref<8xi32, #tile.scope<shared>>
  // expected-error @+1 {{'tile.copy' op needs one gather_dims entry per index tile}}
  tile.copy %A[%i, %i] gather(%r : memref<8xi32, #tile.scope<shared>>) to %t : memref<?x?xf32>, memref<8x8xf32, #tile.scope<shared>>
  return
}

// -----

func.func @gather_last_dim(%A: memref<?x?xf32>, %i: index) {
  %t = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  %r = tile.alloc : memref<8xi32, #tile.scope<shared>>
  // expected-error @+1 {{'tile.copy' op gather_dims must be increasing dimensions of the window before its last}}
  tile.copy %A[%i, %i] gather(%r : memref<8xi32, #tile.scope<shared>>) to %t {gather_dims = array<i64: 1>} : memref<?x?xf32>, memref<8x8xf32, #tile.scope<shared>>
  return
}

// -----

func.func @gather_tile_rank(%A: memref<?x?x?xf32>, %i: index) {
  %t = tile.alloc : memref<8x8x8xf32, #tile.scope<shared>>
  %r = tile.alloc : memref<8xi32, #tile.scope<shared>>
  // expected-error @+1 {{'tile.copy' op a gather window of rank 3 with 2 index tiles needs a tile of rank 2}}
  tile.copy %A[%i, %i, %i] gather(%r, %r : memref<8xi32, #tile.scope<shared>>, memref<8xi32, #tile.scope<shared>>) to %t {gather_dims = array<i64: 0, 1>} : memref<?x?x?xf32>, memref<8x8x8xf32, #tile.scope<shared>>
  return
}

// -----

func.func @gather_index_length(%A: memref<?x?xf32>, %i: index) {
  %t = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  %r = tile.alloc : memref<4xi32, #tile.scope<shared>>
  // expected-error @+1 {{'tile.copy' op index tile of dimension 0 must be a rank-1 integer tile of 8 elements}}
  tile.copy %A[%i, %i] gather(%r : memref<4xi32, #tile.scope<shared>>) to %t {gather_dims = array<i64: 0>} : memref<?x?xf32>, memref<8x8xf32, #tile.scope<shared>>
  return
}

// -----

func.func @gather_dims_without_tiles(%A: memref<?x?xf32>, %i: index) {
  %t = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  // expected-error @+1 {{'tile.copy' op gather_dims without index tiles}}
  tile.copy %A[%i, %i] to %t {gather_dims = array<i64: 0>} : memref<?x?xf32>, memref<8x8xf32, #tile.scope<shared>>
  return
}

// -----

func.func @gather_origin_count(%A: memref<?x?xf32>, %i: index) {
  %t = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  %r = tile.alloc : memref<8xi32, #tile.scope<shared>>
  // expected-error @+1 {{'tile.copy' op window takes 2 indices}}
  tile.copy %A[%i] gather(%r : memref<8xi32, #tile.scope<shared>>) to %t {gather_dims = array<i64: 0>} : memref<?x?xf32>, memref<8x8xf32, #tile.scope<shared>>
  return
}
