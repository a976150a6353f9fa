// RUN: tlc-opt %s --tile-nvvm-fast-exp2 | FileCheck %s
// f32 exp2 becomes the ex2.approx.ftz intrinsic (one MUFU.EX2); exp2 of
// other types and other math functions are left to convert-gpu-to-nvvm.

// CHECK-LABEL: gpu.func @exps
// CHECK: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%arg0) : (f32) -> f32
// CHECK: math.exp2 %arg1 : f64
// CHECK: math.exp2 %arg2 : f16
// CHECK: math.exp %[[E]] : f32
// CHECK-NOT: math.exp2 {{.*}} : f32
gpu.module @k {
  gpu.func @exps(%a: f32, %d: f64, %h: f16) -> f32 {
    %0 = math.exp2 %a : f32
    %1 = math.exp2 %d : f64
    %2 = math.exp2 %h : f16
    %3 = math.exp %0 : f32
    gpu.return %3 : f32
  }
}
