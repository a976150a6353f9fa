// RUN: tlc-opt %s --tile-nvvm-f8-conversions | FileCheck %s
// f32 -> f8 truncations become cvt.rn.satfinite pairs (the first lane of a
// pair in the low byte: b of the op), f8 -> f32/f16 extensions
// cvt f8x2 -> f16x2 and an exact f16 -> f32; a scalar pairs with 0. f8 ->
// bf16 and truncations from other types are left to tile-expand-f8.

// CHECK-LABEL: gpu.func @trunc_vector
// CHECK: %[[L0:.*]] = vector.extract %arg0[0] : f32 from vector<4xf32>
// CHECK: %[[L1:.*]] = vector.extract %arg0[1] : f32 from vector<4xf32>
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[L1]], %[[L0]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E4M3FN)
// CHECK: nvvm.convert.f32x2.to.f8x2 {{.*}} : vector<2xi8>(f8E4M3FN)
// CHECK: vector.from_elements {{.*}} : vector<4xf8E4M3FN>
// CHECK-NOT: arith.truncf
gpu.module @k {
  gpu.func @trunc_vector(%x: vector<4xf32>) -> vector<4xf8E4M3FN> {
    %0 = arith.truncf %x : vector<4xf32> to vector<4xf8E4M3FN>
    gpu.return %0 : vector<4xf8E4M3FN>
  }

// CHECK-LABEL: gpu.func @trunc_scalar
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[ZERO]], %arg0 {{.*}} : vector<2xi8>(f8E5M2)
// CHECK: arith.bitcast %{{.*}} : i8 to f8E5M2
  gpu.func @trunc_scalar(%x: f32) -> f8E5M2 {
    %0 = arith.truncf %x : f32 to f8E5M2
    gpu.return %0 : f8E5M2
  }

// CHECK-LABEL: gpu.func @ext
// CHECK: nvvm.convert.f8x2.to.f16x2 %{{.*}} : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: nvvm.convert.f8x2.to.f16x2 %{{.*}} : vector<2xi8>(f8E5M2) -> vector<2xf16>
// CHECK: arith.extf %{{.*}} : f8E4M3FN to bf16
// CHECK: arith.truncf %{{.*}} : bf16 to f8E4M3FN
  gpu.func @ext(%x: f8E4M3FN, %y: vector<2xf8E5M2>, %z: bf16)
      -> (f32, vector<2xf16>, bf16, f8E4M3FN) {
    %0 = arith.extf %x : f8E4M3FN to f32
    %1 = arith.extf %y : vector<2xf8E5M2> to vector<2xf16>
    %2 = arith.extf %x : f8E4M3FN to bf16
    %3 = arith.truncf %z : bf16 to f8E4M3FN
    gpu.return %0, %1, %2, %3 : f32, vector<2xf16>, bf16, f8E4M3FN
  }
}
