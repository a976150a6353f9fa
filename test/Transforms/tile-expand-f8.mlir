// RUN: tlc-opt %s --tile-expand-f8 --split-input-file --verify-diagnostics | FileCheck %s
// RUN: tlc-opt %s --tile-expand-f8 --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=E5M2
// tile-expand-f8 turns conversions from and to the 8-bit floats into
// integer operations on their bits and f8 constants into i8 ones; loads,
// stores, selects and bitcasts of f8 stay. Other arithmetic on f8 is an
// error.

// Decode: the byte widened, the exponent rebiased (+120 << 23 for E4M3),
// subnormals scaled by 2^-9, S.1111.111 NaN; then f32 -> f16 exactly.
// CHECK-LABEL: func.func @decode
// CHECK-NOT: arith.extf %{{.*}} : f8
// CHECK: arith.bitcast %{{.*}} : {{.*}} to i8
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.constant 1006632960 : i32
// CHECK: arith.constant 0.001953125 : f32
// CHECK: arith.constant 2143289344 : i32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @decode(%x: f8E4M3FN) -> f16 {
  %y = arith.extf %x : f8E4M3FN to f16
  return %y : f16
}

// Encode (vectors too): round to nearest even, the subnormal shift clamped
// to [1, 31], saturate at 0x7e, NaN 0x7f, then the sign.
// CHECK-LABEL: func.func @encode
// CHECK: arith.bitcast %{{.*}} : vector<4xf32> to vector<4xi32>
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: arith.minui %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: arith.trunci %{{.*}} : vector<4xi32> to vector<4xi8>
func.func @encode(%x: vector<4xf32>) -> vector<4xf8E4M3FN> {
  %y = arith.truncf %x : vector<4xf32> to vector<4xf8E4M3FN>
  return %y : vector<4xf8E4M3FN>
}

// E5M2 from bf16: first to f32; its largest finite code is 0x7b.
// E5M2-LABEL: func.func @encode_e5m2
// E5M2: arith.extf %{{.*}} : bf16 to f32
// E5M2: arith.constant 123 : i32
// E5M2: arith.bitcast %{{.*}} : i8 to f8E5M2
func.func @encode_e5m2(%x: bf16) -> f8E5M2 {
  %y = arith.truncf %x : bf16 to f8E5M2
  return %y : f8E5M2
}

// Constants: the bits of 1.5 (0x3c) and a splat of 448 (0x7e).
// CHECK-LABEL: func.func @constants
// CHECK: arith.constant 60 : i8
// CHECK: arith.constant dense<126> : vector<8xi8>
func.func @constants() -> (f8E4M3FN, vector<8xf8E4M3FN>) {
  %a = arith.constant 1.5 : f8E4M3FN
  %b = arith.constant dense<448.0> : vector<8xf8E4M3FN>
  return %a, %b : f8E4M3FN, vector<8xf8E4M3FN>
}

// -----

func.func @arith(%x: f8E4M3FN) -> f8E4M3FN {
  // expected-error @+1 {{'arith.addf' op on 8-bit floats: tlc computes in f32 and only converts, moves and selects f8 values}}
  %y = arith.addf %x, %x : f8E4M3FN
  return %y : f8E4M3FN
}
