// RUN: tlc-opt %s -split-input-file -verify-diagnostics --tile-specialize-dims=dims=M=64
// A tile.dims entry that does not name a dimension of a memref argument is
// an error, not a crash or a silent out-of-bounds write. A dimension out of
// range is a malformed entry; only a non-memref argument is reported as
// such.

// expected-error @+1 {{malformed tile.dims entry}}
func.func @not_a_list(%A: memref<?xf32>) attributes {tile.dims = {M = 3 : i64}} {
  return
}

// -----

// expected-error @+1 {{malformed tile.dims entry}}
func.func @not_a_pair(%A: memref<?xf32>) attributes {tile.dims = {M = [array<i64: 0>]}} {
  return
}

// -----

// expected-error @+1 {{malformed tile.dims entry}}
func.func @arg_out_of_range(%A: memref<?xf32>) attributes {tile.dims = {M = [array<i64: 1, 0>]}} {
  return
}

// -----

// expected-error @+1 {{malformed tile.dims entry}}
func.func @negative_arg(%A: memref<?xf32>) attributes {tile.dims = {M = [array<i64: -1, 0>]}} {
  return
}

// -----

// expected-error @+1 {{malformed tile.dims entry}}
func.func @dim_out_of_range(%A: memref<?xf32>) attributes {tile.dims = {M = [array<i64: 0, 1>]}} {
  return
}

// -----

// expected-error @+1 {{malformed tile.dims entry}}
func.func @negative_dim(%A: memref<?xf32>) attributes {tile.dims = {M = [array<i64: 0, -1>]}} {
  return
}

// -----

// expected-error @+1 {{tile.dims names a non-memref argument}}
func.func @scalar_arg(%s: f32) attributes {tile.dims = {M = [array<i64: 0, 0>]}} {
  return
}
