// RUN: tlc-opt %s --split-input-file --verify-diagnostics --tile-gpu-merge-kernels | FileCheck %s
// tile-gpu-merge-kernels moves a split module's symbols back into the module
// it came from, in order: a symbol that module has as the same operation is
// dropped (uses keep the name), a different one renamed with its uses.

// CHECK-LABEL: gpu.module @tlc_kernels {
// CHECK-NEXT: llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-NEXT: llvm.func @__nv_expf(f32) -> f32
// CHECK-NEXT: llvm.mlir.global internal constant @table(dense<1.000000e+00> : tensor<4xf32>) {addr_space = 0 : i32} : !llvm.array<4 x f32>
// CHECK-NEXT: llvm.func @a(
// CHECK: llvm.mlir.addressof @table
// CHECK: llvm.mlir.global internal constant @table_0(dense<2.000000e+00> : tensor<4xf32>) {addr_space = 0 : i32} : !llvm.array<4 x f32>
// CHECK-NEXT: llvm.func @b(
// CHECK: llvm.mlir.addressof @__dynamic_shmem__0
// CHECK: llvm.call @__nv_expf
// CHECK: llvm.mlir.addressof @table_0
// CHECK-NOT: gpu.module
gpu.module @tlc_kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.func @__nv_expf(f32) -> f32
  llvm.mlir.global internal constant @table(dense<1.0> : tensor<4xf32>) : !llvm.array<4 x f32>
  llvm.func @a(%x: f32) -> !llvm.ptr {
    %0 = llvm.call @__nv_expf(%x) : (f32) -> f32
    %1 = llvm.mlir.addressof @table : !llvm.ptr
    llvm.return %1 : !llvm.ptr
  }
}
gpu.module @tlc_kernels_1 attributes {tile.split_from = "tlc_kernels"} {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.func @__nv_expf(f32) -> f32
  llvm.mlir.global internal constant @table(dense<2.0> : tensor<4xf32>) : !llvm.array<4 x f32>
  llvm.func @b(%x: f32) -> !llvm.ptr {
    %0 = llvm.mlir.addressof @__dynamic_shmem__0 : !llvm.ptr<3>
    %1 = llvm.call @__nv_expf(%x) : (f32) -> f32
    %2 = llvm.mlir.addressof @table : !llvm.ptr
    llvm.return %2 : !llvm.ptr
  }
}

// -----

// expected-error @below {{is split from "gone", which is not a gpu.module here}}
gpu.module @orphan attributes {tile.split_from = "gone"} {
}
