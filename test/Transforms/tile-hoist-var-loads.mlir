// RUN: tlc-opt %s --tile-hoist-var-loads | FileCheck %s
// tile-hoist-var-loads moves the reads of a var (a rank-0 alloca) that a
// loop never writes in front of the loop, out of nested loops and ifs too;
// a var the loop writes, or declares inside, keeps its reads.

// CHECK-LABEL: func.func @hoisted
// CHECK: %[[FIRST:.*]] = memref.alloca() : memref<index>
// CHECK: memref.store %{{.*}}, %[[FIRST]][]
// CHECK-NEXT: %[[ROW:.*]] = memref.load %[[FIRST]][] : memref<index>
// CHECK-NEXT: %[[ROW2:.*]] = memref.load %[[FIRST]][] : memref<index>
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
// CHECK-NOT: memref.load %[[FIRST]]
// CHECK: arith.addi %[[ROW]]
// CHECK: arith.addi %[[ROW2]]
func.func @hoisted(%n: index, %c: i1, %out: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %first = memref.alloca() : memref<index>
  memref.store %n, %first[] : memref<index>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %k = %c0 to %n step %c1 {
      %row = memref.load %first[] : memref<index>
      %a = arith.addi %row, %k : index
      memref.store %a, %out[%k] : memref<?xindex>
      scf.if %c {
        %row2 = memref.load %first[] : memref<index>
        %b = arith.addi %row2, %i : index
        memref.store %b, %out[%i] : memref<?xindex>
      }
    } {tile.stages = 3 : i64}
  }
  return
}

// A var written in the loop: its read stays, as does the read of a var
// declared in the loop body.
// CHECK-LABEL: func.func @kept
// CHECK: scf.for
// CHECK-NEXT: memref.load %[[ACC:.*]][] : memref<index>
// CHECK: memref.store %{{.*}}, %[[ACC]][]
// CHECK: %[[INNER:.*]] = memref.alloca() : memref<index>
// CHECK: memref.load %[[INNER]][]
func.func @kept(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %acc = memref.alloca() : memref<index>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %acc[] : memref<index>
    %w = arith.addi %v, %i : index
    memref.store %w, %acc[] : memref<index>
    %inner = memref.alloca() : memref<index>
    memref.store %i, %inner[] : memref<index>
    %x = memref.load %inner[] : memref<index>
    memref.store %x, %acc[] : memref<index>
  }
  return
}
