// RUN: tlc-opt %s | tlc-opt | FileCheck %s
// RUN: tlc-opt %s --mlir-print-op-generic | tlc-opt | FileCheck %s
// Every tile op prints in a form that parses back to the same op.

// CHECK-LABEL: func.func @alloc_and_block_id
func.func @alloc_and_block_id() -> (index, index, index) {
  // CHECK: tile.alloc : memref<128x32xf16, #tile.scope<shared>>
  %s = tile.alloc : memref<128x32xf16, #tile.scope<shared>>
  // CHECK: tile.alloc : memref<64xf32, #tile.scope<fragment>>
  %f = tile.alloc : memref<64xf32, #tile.scope<fragment>>
  // CHECK: tile.alloc : memref<2x3x4x5xi8, #tile.scope<local>>
  %l = tile.alloc : memref<2x3x4x5xi8, #tile.scope<local>>
  // CHECK: %[[X:.*]] = tile.block_id 0
  // CHECK: %[[Y:.*]] = tile.block_id 1
  // CHECK: %[[Z:.*]] = tile.block_id 2
  // CHECK: return %[[X]], %[[Y]], %[[Z]] : index, index, index
  %x = tile.block_id 0
  %y = tile.block_id 1
  %z = tile.block_id 2
  return %x, %y, %z : index, index, index
}

// CHECK-LABEL: func.func @copy
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf16, strided<[?, 1], offset: ?>>, %[[C:.*]]: memref<?x?xf32, strided<[?, 1], offset: ?>>, %[[I:.*]]: index, %[[J:.*]]: index)
func.func @copy(%A: memref<?x?xf16, strided<[?, 1], offset: ?>>,
                %C: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                %i: index, %j: index) {
  %s = tile.alloc : memref<128x32xf16, #tile.scope<shared>>
  %acc = tile.alloc : memref<128x32xf32, #tile.scope<fragment>>
  %row = tile.alloc : memref<32xf32, #tile.scope<local>>
  // A window as the source.
  // CHECK: tile.copy %[[A]][%[[I]], %[[J]]] to %[[S:.*]] : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<128x32xf16, #tile.scope<shared>>
  tile.copy %A[%i, %j] to %s : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<128x32xf16, #tile.scope<shared>>
  // No window: tile to tile, with a conversion.
  // CHECK: tile.copy %[[S]] to %[[ACC:.*]] : memref<128x32xf16, #tile.scope<shared>>, memref<128x32xf32, #tile.scope<fragment>>
  tile.copy %s to %acc : memref<128x32xf16, #tile.scope<shared>>, memref<128x32xf32, #tile.scope<fragment>>
  // A window as the destination.
  // CHECK: tile.copy %[[ACC]] to %[[C]][%[[J]], %[[I]]] : memref<128x32xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %acc to %C[%j, %i] : memref<128x32xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  // A lower-rank tile laid over the trailing dimensions of a window.
  // CHECK: tile.copy %[[ROW:.*]] to %[[ACC]][%[[I]], %[[J]]] : memref<32xf32, #tile.scope<local>>, memref<128x32xf32, #tile.scope<fragment>>
  tile.copy %row to %acc[%i, %j] : memref<32xf32, #tile.scope<local>>, memref<128x32xf32, #tile.scope<fragment>>
  // A gather: rows of A from an index tile.
  %rows = tile.alloc : memref<128xi32, #tile.scope<shared>>
  // CHECK: tile.copy %[[A]][%[[I]], %[[J]]] gather(%[[ROWS:.*]] : memref<128xi32, #tile.scope<shared>>) to %[[S]] {gather_dims = array<i64: 0>} : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<128x32xf16, #tile.scope<shared>>
  tile.copy %A[%i, %j] gather(%rows : memref<128xi32, #tile.scope<shared>>) to %s {gather_dims = array<i64: 0>} : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<128x32xf16, #tile.scope<shared>>
  return
}

// CHECK-LABEL: func.func @fill
func.func @fill(%v: f16) {
  %f = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %h = tile.alloc : memref<16xf16, #tile.scope<shared>>
  %i = tile.alloc : memref<4xi32, #tile.scope<local>>
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1 : i32
  // CHECK: tile.fill %{{.*}}, %{{.*}} : memref<16x16xf32, #tile.scope<fragment>>, f32
  tile.fill %f, %zero : memref<16x16xf32, #tile.scope<fragment>>, f32
  // CHECK: tile.fill %{{.*}}, %{{.*}} : memref<16xf16, #tile.scope<shared>>, f16
  tile.fill %h, %v : memref<16xf16, #tile.scope<shared>>, f16
  // CHECK: tile.fill %{{.*}}, %{{.*}} : memref<4xi32, #tile.scope<local>>, i32
  tile.fill %i, %one : memref<4xi32, #tile.scope<local>>, i32
  return
}

// CHECK-LABEL: func.func @gemm
func.func @gemm() {
  %a = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
  %at = tile.alloc : memref<32x64xf16, #tile.scope<shared>>
  %b = tile.alloc : memref<32x16xf16, #tile.scope<shared>>
  %bt = tile.alloc : memref<16x32xf16, #tile.scope<shared>>
  %c = tile.alloc : memref<64x16xf32, #tile.scope<fragment>>
  // CHECK: tile.gemm %[[GA:[^,]*]], %[[GB:[^,]*]], %[[GC:[^ ]*]] : memref<64x32xf16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<64x16xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<64x16xf32, #tile.scope<fragment>>
  // CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[GC]] {transpose_a} : memref<32x64xf16
  tile.gemm %at, %b, %c {transpose_a} : memref<32x64xf16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<64x16xf32, #tile.scope<fragment>>
  // CHECK: tile.gemm %[[GA]], %{{.*}}, %[[GC]] {clear, transpose_b} : memref<64x32xf16, #tile.scope<shared>>, memref<16x32xf16
  tile.gemm %a, %bt, %c {transpose_b, clear} : memref<64x32xf16, #tile.scope<shared>>, memref<16x32xf16, #tile.scope<shared>>, memref<64x16xf32, #tile.scope<fragment>>
  // CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[GC]] {clear, transpose_a, transpose_b} : memref<32x64xf16, #tile.scope<shared>>, memref<16x32xf16
  tile.gemm %at, %bt, %c {transpose_a, transpose_b, clear} : memref<32x64xf16, #tile.scope<shared>>, memref<16x32xf16, #tile.scope<shared>>, memref<64x16xf32, #tile.scope<fragment>>
  return
}

// CHECK-LABEL: func.func @reduce
func.func @reduce() {
  %s = tile.alloc : memref<16x32xf32, #tile.scope<fragment>>
  %rows = tile.alloc : memref<16xf32, #tile.scope<fragment>>
  %cols = tile.alloc : memref<32xf32, #tile.scope<fragment>>
  %v = tile.alloc : memref<8xf32, #tile.scope<local>>
  %one = tile.alloc : memref<1xf32, #tile.scope<local>>
  // CHECK: tile.reduce <sum> %{{.*}} to %{{.*}} {dim = 1 : i64} : memref<16x32xf32, #tile.scope<fragment>>, memref<16xf32, #tile.scope<fragment>>
  tile.reduce <sum> %s to %rows {dim = 1 : i64} : memref<16x32xf32, #tile.scope<fragment>>, memref<16xf32, #tile.scope<fragment>>
  // CHECK: tile.reduce <max> %{{.*}} to %{{.*}} {clear, dim = 0 : i64} : memref<16x32xf32, #tile.scope<fragment>>, memref<32xf32, #tile.scope<fragment>>
  tile.reduce <max> %s to %cols {dim = 0 : i64, clear} : memref<16x32xf32, #tile.scope<fragment>>, memref<32xf32, #tile.scope<fragment>>
  // CHECK: tile.reduce <min> %{{.*}} to %{{.*}} {dim = 1 : i64} : memref<16x32xf32
  tile.reduce <min> %s to %rows {dim = 1 : i64} : memref<16x32xf32, #tile.scope<fragment>>, memref<16xf32, #tile.scope<fragment>>
  // CHECK: tile.reduce <absmax> %{{.*}} to %{{.*}} {clear, dim = 0 : i64} : memref<8xf32, #tile.scope<local>>, memref<1xf32, #tile.scope<local>>
  tile.reduce <absmax> %v to %one {dim = 0 : i64, clear} : memref<8xf32, #tile.scope<local>>, memref<1xf32, #tile.scope<local>>
  return
}

// CHECK-LABEL: func.func @atomic_add
func.func @atomic_add(%out: memref<?x?xf32, strided<[?, 1], offset: ?>>, %i: index, %j: index) {
  %t = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  // CHECK: tile.atomic_add %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.atomic_add %t to %out[%i, %j] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// CHECK-LABEL: func.func @parallel
func.func @parallel(%s: f32) {
  %t = tile.alloc : memref<128x64xf32, #tile.scope<fragment>>
  // CHECK: tile.parallel [128, 64] {
  // CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[J:.*]]: index):
  // CHECK-NEXT: %[[V:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<128x64xf32, #tile.scope<fragment>>
  // CHECK-NEXT: %[[E:.*]] = math.exp %[[V]] : f32
  // CHECK-NEXT: memref.store %[[E]], %{{.*}}[%[[I]], %[[J]]]
  // CHECK-NEXT: }
  tile.parallel [128, 64] {
  ^bb0(%i: index, %j: index):
    %v = memref.load %t[%i, %j] : memref<128x64xf32, #tile.scope<fragment>>
    %e = math.exp %v : f32
    memref.store %e, %t[%i, %j] : memref<128x64xf32, #tile.scope<fragment>>
  }
  // The terminator may be written explicitly; attributes are kept.
  // CHECK: tile.parallel [8] {
  // CHECK-NEXT: ^bb0(%{{.*}}: index):
  // CHECK-NEXT: }  {tag = "x"}
  tile.parallel [8] {
  ^bb0(%k: index):
    tile.yield
  } {tag = "x"}
  return
}

// Element accesses of global tensors.
// CHECK-LABEL: func.func @elements
func.func @elements(%x: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                    %c: memref<?xi32>, %i: index, %j: index) {
  // CHECK: %[[V:.*]] = tile.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x?xf32, strided<[?, 1], offset: ?>>
  %v = tile.load %x[%i, %j] : memref<?x?xf32, strided<[?, 1], offset: ?>>
  // CHECK: tile.store %[[V]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.store %v, %x[%j, %i] : memref<?x?xf32, strided<[?, 1], offset: ?>>
  %one = arith.constant 1 : i32
  // CHECK: tile.atomic <sum> %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xi32>
  tile.atomic <sum> %one, %c[%i] : memref<?xi32>
  // CHECK: tile.atomic <max> %[[V]], %{{.*}}[%{{.*}}, %{{.*}}]
  tile.atomic <max> %v, %x[%i, %i] : memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}
