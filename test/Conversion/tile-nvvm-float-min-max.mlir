// RUN: tlc-opt %s --tile-nvvm-float-min-max | FileCheck %s
// NaN-propagating float max/min become LLVM's maximum/minimum intrinsics
// (one max.NaN/min.NaN on sm_80+) instead of compares and selects; other
// ops, integer max included, are left alone.

// CHECK-LABEL: gpu.func @minmax
// CHECK: %[[MAX:.*]] = llvm.intr.maximum(%arg0, %arg1) : (f32, f32) -> f32
// CHECK: %[[MIN:.*]] = llvm.intr.minimum(%[[MAX]], %arg1) : (f32, f32) -> f32
// CHECK: llvm.intr.maximum(%arg2, %arg2) : (vector<2xf16>, vector<2xf16>) -> vector<2xf16>
// CHECK: arith.maxsi
// CHECK: arith.maxnumf
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.minimumf
gpu.module @k {
  gpu.func @minmax(%a: f32, %b: f32, %h: vector<2xf16>, %i: i32) -> f32 {
    %0 = arith.maximumf %a, %b : f32
    %1 = arith.minimumf %0, %b : f32
    %2 = arith.maximumf %h, %h : vector<2xf16>
    %3 = arith.maxsi %i, %i : i32
    %4 = arith.maxnumf %1, %a : f32
    gpu.return %4 : f32
  }
}
