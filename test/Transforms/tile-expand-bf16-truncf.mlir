// RUN: tlc-opt %s --tile-expand-bf16-truncf | FileCheck %s --implicit-check-not='arith.truncf %{{.*}} : {{.*}}f32{{.*}} to {{.*}}bf16'
// RUN: tlc-opt %s --tile-expand-bf16-truncf | FileCheck %s --check-prefix=KEEP
// tile-expand-bf16-truncf rounds f32 -> bf16 truncations (scalars and
// vectors) to nearest even in integer operations: a NaN gets its quiet bit
// (bit 22), then (bits + 0x7fff + ((bits >> 16) & 1)) >> 16. Other
// truncations stay.

// CHECK-LABEL: func.func @scalar
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[NAN:.*]] = arith.cmpf uno
// CHECK: arith.extui %[[NAN]] : i1 to i32
// CHECK: arith.shli %{{.*}}, %c22_i32
// CHECK: arith.shrui %{{.*}}, %c16_i32
// CHECK: arith.andi %{{.*}}, %c1_i32
// CHECK: arith.addi %{{.*}}, %c32767_i32
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
func.func @scalar(%x: f32) -> bf16 {
  %h = arith.truncf %x : f32 to bf16
  return %h : bf16
}

// CHECK-LABEL: func.func @vector
// CHECK: arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: arith.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
func.func @vector(%x: vector<8xf32>) -> vector<8xbf16> {
  %h = arith.truncf %x : vector<8xf32> to vector<8xbf16>
  return %h : vector<8xbf16>
}

// KEEP-LABEL: func.func @others
// KEEP: arith.truncf %{{.*}} : f32 to f16
// KEEP: arith.truncf %{{.*}} : f64 to f32
func.func @others(%x: f32, %y: f64) -> (f16, f32) {
  %a = arith.truncf %x : f32 to f16
  %b = arith.truncf %y : f64 to f32
  return %a, %b : f16, f32
}
