// RUN: tlc-opt %s --cpu-approximate-math | FileCheck %s --implicit-check-not='math.exp' --implicit-check-not='math.tanh' --implicit-check-not='math.erf ' --implicit-check-not='math.log' --implicit-check-not='math.exp2' --implicit-check-not='math.rsqrt'
// RUN: tlc-opt %s --pass-pipeline='builtin.module(func.func(cpu-approximate-math))' | FileCheck %s --check-prefix=NESTED
// Vector (and scalar) transcendental functions become polynomial
// approximations built from arith/vector ops (and math.fma, math.floor,
// math.absf, which lower to instructions), so no libm call per lane is
// left. f16 computes in f32.

// CHECK-LABEL: func.func @transcendentals(
// CHECK-SAME: %[[X:[^:]*]]: vector<8xf32>
// CHECK: math.fma {{.*}} : vector<8xf32>
// CHECK: math.absf %[[X]] : vector<8xf32>
// CHECK: arith.select {{.*}} : vector<8xi1>, vector<8xf32>
// CHECK: return
// NESTED-LABEL: func.func @transcendentals(
// NESTED-NOT: math.exp
// NESTED: return
func.func @transcendentals(%x: vector<8xf32>) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
  %a = math.exp %x : vector<8xf32>
  %b = math.tanh %x : vector<8xf32>
  %c = math.erf %x : vector<8xf32>
  %d = math.log %x : vector<8xf32>
  return %a, %b, %c, %d : vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>
}

// CHECK-LABEL: func.func @expanded(
// CHECK: math.fma {{.*}} : vector<8xf32>
// CHECK: return
func.func @expanded(%x: vector<8xf32>) -> (vector<8xf32>, vector<8xf32>) {
  %a = math.exp2 %x : vector<8xf32>
  %b = math.rsqrt %x : vector<8xf32>
  return %a, %b : vector<8xf32>, vector<8xf32>
}

// CHECK-LABEL: func.func @scalar_and_f16(
// CHECK-SAME: %[[S:[^:]*]]: f32, %[[H:[^:]*]]: vector<8xf16>
// CHECK: math.fma {{.*}} : f32
// CHECK: arith.extf %[[H]] : vector<8xf16> to vector<8xf32>
// CHECK: %[[T:.*]] = arith.truncf %{{.*}} : vector<8xf32> to vector<8xf16>
// CHECK: return %{{.*}}, %[[T]] : f32, vector<8xf16>
func.func @scalar_and_f16(%s: f32, %h: vector<8xf16>) -> (f32, vector<8xf16>) {
  %a = math.exp %s : f32
  %b = math.tanh %h : vector<8xf16>
  return %a, %b : f32, vector<8xf16>
}
