// RUN: tlc-opt %s -split-input-file -verify-diagnostics --tile-nvvm-tensor-map-params | FileCheck %s
// After the lowering to the LLVM dialect, the trailing tile.tensor_maps
// parameters of a kernel become 128-byte, 64-byte aligned by-value
// __grid_constant__ parameters; the others are left alone.

// CHECK-LABEL: llvm.func @tlc_gemm(
// CHECK-SAME: %arg0: !llvm.ptr<1>, %arg1: i64,
// CHECK-SAME: %arg2: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// CHECK-SAME: %arg3: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-LABEL: llvm.func @plain(
// CHECK-SAME: %arg0: !llvm.ptr)
llvm.func @tlc_gemm(%a: !llvm.ptr<1>, %n: i64, %m0: !llvm.ptr, %m1: !llvm.ptr) attributes {nvvm.kernel, tile.tensor_maps = [{box = array<i64: 128, 64>, param = 0 : i64, swizzle = 128 : i64}, {box = array<i64: 64, 64>, param = 0 : i64, swizzle = 128 : i64}]} {
  llvm.return
}
llvm.func @plain(%p: !llvm.ptr) attributes {nvvm.kernel} {
  llvm.return
}

// -----

// expected-error @+1 {{more tensor maps than parameters}}
llvm.func @tlc_short(%m0: !llvm.ptr) attributes {nvvm.kernel, tile.tensor_maps = [{box = array<i64: 8, 8>, param = 0 : i64, swizzle = 32 : i64}, {box = array<i64: 8, 8>, param = 0 : i64, swizzle = 32 : i64}]} {
  llvm.return
}

// -----

// expected-error @+1 {{tensor map parameter 0 is not a pointer}}
llvm.func @tlc_not_pointer(%m0: i64) attributes {nvvm.kernel, tile.tensor_maps = [{box = array<i64: 8, 8>, param = 0 : i64, swizzle = 32 : i64}]} {
  llvm.return
}
