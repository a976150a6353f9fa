// RUN: tlc-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tile-to-cpu{vector-bits=256})' \
// RUN:   | FileCheck %s '--implicit-check-not={{^ *(%[^ ]+ = )?tile\.}}' --implicit-check-not='#tile.'
// RUN: tlc-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tile-to-cpu{vector-bits=128})' | FileCheck %s --check-prefix=V128
// RUN: not tlc-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tile-to-cpu{vector-bits=100})' 2>&1 | FileCheck %s --check-prefix=BITS
// RUN: not tlc-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tile-to-cpu{vector-registers=4})' 2>&1 | FileCheck %s --check-prefix=REGS
// Every tile op is lowered to scf/vector/memref and the kernel gets the CPU
// block ABI. No tile op or #tile.scope memory space is left.

// The kernel is renamed tlc_block_NAME, its block ids become three trailing
// index arguments, and it gets a C interface. Tiles live on the stack.
// CHECK-LABEL: func.func @tlc_block_k(
// CHECK-SAME: %[[A:[^:]*]]: memref<?x?xf32, strided<[?, 1], offset: ?>>, %[[C:[^:]*]]: memref<?x?xf32, strided<[?, 1], offset: ?>>,
// CHECK-SAME: %[[BX:[^:]*]]: index, %[[BY:[^:]*]]: index, %{{[^:]*}}: index)
// CHECK-SAME: llvm.emit_c_interface
// CHECK-DAG: %[[R:.*]] = memref.alloca() {{.*}} : memref<16xf32>
// CHECK-DAG: %[[ACC:.*]] = memref.alloca() {{.*}} : memref<16x16xf32>
// CHECK-DAG: %[[S:.*]] = memref.alloca() {{.*}} : memref<16x16xf32>
// CHECK-DAG: %[[I:.*]] = arith.muli %[[BY]], %c16
// CHECK-DAG: %[[J:.*]] = arith.muli %[[BX]], %c16
//
// fill: vector stores of a splat.
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[ACC]] {{\[\[}}0, 1]] : memref<16x16xf32> into memref<256xf32>
// CHECK: scf.for
// CHECK-NEXT: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-NEXT: vector.store %{{.*}}, %[[FLAT]][%{{.*}}] : memref<256xf32>, vector<8xf32>
//
// copy in: a loop over rows; rows outside A (past its end, or before its
// start: an unsigned compare) are zero-filled, the others read with masked
// transfers (ragged columns read zero) when the window starts at a column
// >= 0 (element by element otherwise).
// CHECK: } else {
// CHECK-NEXT: %{{.*}} = arith.constant 0 : index
// CHECK-NEXT: %{{.*}} = arith.cmpi sge, %[[J]], %{{.*}}
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[GROW:.*]] = arith.addi %[[I]], %[[ROW]]
// CHECK: %[[M:.*]] = memref.dim %[[A]], %{{.*}}
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[GROW]], %[[M]]
// CHECK: scf.if %[[IN]] {
// CHECK: %[[V:.*]] = vector.transfer_read %[[A]][%[[GROW]], %{{.*}}], %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<8xf32>
// CHECK: vector.store %[[V]], %[[S]][%[[ROW]], %{{.*}}] : memref<16x16xf32>, vector<8xf32>
// CHECK: } else {
// CHECK: vector.store %{{.*}}, %[[S]][%[[ROW]], %{{.*}}] : memref<16x16xf32>, vector<8xf32>
// CHECK: }
//
// parallel: vectorized along the inner dimension, math.exp included.
// CHECK: %[[PV:.*]] = vector.load %[[ACC]][%{{.*}}, %{{.*}}] : memref<16x16xf32>, vector<8xf32>
// CHECK-NEXT: %[[PE:.*]] = math.exp %[[PV]] : vector<8xf32>
// CHECK-NEXT: vector.store %[[PE]], %[[ACC]][%{{.*}}, %{{.*}}] : memref<16x16xf32>, vector<8xf32>
//
// gemm: a block of C in registers across the K loop (iter_args), updated by
// vector.fma of broadcast A elements and rows of B, then stored back. The
// C rows of the next row block (clamped to the last row, 15) are prefetched
// for writing before the K loop, B's row k + 8 for reading in its first
// K - 8 steps (inside B: no clamp), and the last 8 steps run without.
// CHECK: vector.load %[[ACC]]
// CHECK: %[[NEXT:.*]] = arith.minsi %{{.*}}, %c15{{.*}} : index
// CHECK-NEXT: memref.prefetch %[[ACC]][%[[NEXT]], %{{.*}}], write, locality<3>, data : memref<16x16xf32>
// CHECK: %[[P:.*]]:{{[0-9]+}} = scf.for %[[K:[^ ]*]] = %{{.*}} to %c8{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>
// CHECK: %[[KA:.*]] = arith.addi %[[K]], %c8{{.*}} : index
// CHECK-NEXT: memref.prefetch %[[S]][%[[KA]], %{{.*}}], read, locality<3>, data : memref<16x16xf32>
// CHECK: %[[BROW:.*]] = vector.load %[[S]][%[[K]], %{{.*}}] : memref<16x16xf32>, vector<8xf32>
// CHECK: %[[AEL:.*]] = memref.load %[[S]][%{{.*}}, %[[K]]] : memref<16x16xf32>
// CHECK: %[[ABC:.*]] = vector.broadcast %[[AEL]] : f32 to vector<8xf32>
// CHECK: vector.fma %[[ABC]], %[[BROW]], %{{.*}} : vector<8xf32>
// CHECK: scf.yield
// CHECK: scf.for %{{[^ ]*}} = %c8{{.*}} to %c16{{.*}} iter_args(%{{[^ ]*}} = %[[P]]#0
// CHECK-NOT: memref.prefetch
// CHECK: vector.fma
// CHECK: scf.yield
// CHECK: vector.store %{{.*}}, %[[ACC]]
//
// reduce <sum> with clear: vector accumulation, then vector.reduction; the
// result overwrites the destination.
// CHECK: scf.for {{.*}} iter_args(%{{.*}}) -> (vector<8xf32>) {
// CHECK: vector.load %[[ACC]]
// CHECK: arith.addf {{.*}} : vector<8xf32>
// CHECK: %[[SUM:.*]] = vector.reduction <add>, %{{.*}} : vector<8xf32> into f32
// CHECK-NEXT: memref.store %[[SUM]], %[[R]][%{{.*}}] : memref<16xf32>
//
// copy out: the same row guard; only rows inside C are written (the row
// guard has no else branch); a window that starts before C's first column
// is written element by element, each guarded.
// CHECK: memref.dim %[[C]]
// CHECK: scf.if
// CHECK: vector.transfer_write %{{.*}}, %[[C]][%{{.*}}, %{{.*}}] : vector<8xf32>, memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK: memref.store %{{.*}}, %[[C]][%{{.*}}, %{{.*}}] : memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK: return

// V128-LABEL: func.func @tlc_block_k(
// V128: math.exp {{.*}} : vector<4xf32>
// V128: vector.fma {{.*}} : vector<4xf32>
// V128-NOT: vector<8xf32>

// BITS: error: vector-bits must be a power of two in [64, 2048]
// REGS: error: vector-registers must be in [8, 64]
func.func @k(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>,
             %C: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel, tile.grid_rank = 2 : i64, tile.threads = 128 : i64} {
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %bx = tile.block_id 0
  %by = tile.block_id 1
  %i = arith.muli %by, %c16 : index
  %j = arith.muli %bx, %c16 : index
  %s = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %acc = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %r = tile.alloc : memref<16xf32, #tile.scope<local>>
  tile.fill %acc, %zero : memref<16x16xf32, #tile.scope<fragment>>, f32
  tile.copy %A[%i, %j] to %s : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
  tile.parallel [16, 16] {
  ^bb0(%ii: index, %jj: index):
    %v = memref.load %acc[%ii, %jj] : memref<16x16xf32, #tile.scope<fragment>>
    %e = math.exp %v : f32
    memref.store %e, %acc[%ii, %jj] : memref<16x16xf32, #tile.scope<fragment>>
  }
  tile.gemm %s, %s, %acc : memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  tile.reduce <sum> %acc to %r {dim = 1 : i64, clear} : memref<16x16xf32, #tile.scope<fragment>>, memref<16xf32, #tile.scope<local>>
  tile.copy %acc to %C[%i, %j] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// Without clear, reduce <max> folds the new maximum into the destination;
// a ragged row (12 = 8 + 4) gets a narrower vector for the rest. Uniform
// values (the scalar argument) are broadcast. atomic_add becomes guarded
// memref.atomic_rmw.
// CHECK-LABEL: func.func @tlc_block_r(
// CHECK-SAME: %[[OUT:[^:]*]]: memref<?x?xf32, strided<[?, 1], offset: ?>>, %[[X:[^:]*]]: f32, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index)
// CHECK-SAME: llvm.emit_c_interface
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf {{.*}} : vector<8xf32>
// CHECK: vector.reduction <maximumf>, %{{.*}} : vector<8xf32> into f32
// CHECK: vector.load {{.*}} : memref<4x12xf32>, vector<4xf32>
// CHECK: vector.reduction <maximumf>, %{{.*}} : vector<4xf32> into f32
// CHECK: %[[OLD:.*]] = memref.load
// CHECK: %[[NEW:.*]] = arith.maximumf %[[OLD]], %{{.*}} : f32
// CHECK: memref.store %[[NEW]]
// CHECK: %[[XV:.*]] = vector.broadcast %[[X]] : f32 to vector<8xf32>
// CHECK: arith.mulf %{{.*}}, %[[XV]] : vector<8xf32>
// CHECK: %[[XV4:.*]] = vector.broadcast %[[X]] : f32 to vector<4xf32>
// CHECK: arith.mulf %{{.*}}, %[[XV4]] : vector<4xf32>
// CHECK: scf.if
// CHECK: memref.atomic_rmw addf %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}]
// CHECK: return
func.func @r(%Out: memref<?x?xf32, strided<[?, 1], offset: ?>>, %x: f32)
    attributes {tile.kernel, tile.grid_rank = 1 : i64} {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : memref<4x12xf32, #tile.scope<fragment>>
  %m = tile.alloc : memref<4xf32, #tile.scope<fragment>>
  tile.reduce <max> %t to %m {dim = 1 : i64} : memref<4x12xf32, #tile.scope<fragment>>, memref<4xf32, #tile.scope<fragment>>
  tile.parallel [4, 12] {
  ^bb0(%i: index, %j: index):
    %v = memref.load %t[%i, %j] : memref<4x12xf32, #tile.scope<fragment>>
    %w = arith.mulf %v, %x : f32
    memref.store %w, %t[%i, %j] : memref<4x12xf32, #tile.scope<fragment>>
  }
  tile.atomic_add %t to %Out[%c0, %c0] : memref<4x12xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// tile.cluster_reduce in a kernel of clusters of 3 (the stub runs the three
// blocks a thread each): the tile goes to tlc_cpu_cluster_exchange, which
// returns the three blocks' copies (block 0's first); each element is
// combined from them in block order and stored back, then
// tlc_cpu_cluster_sync waits for the cluster before the copies may change.
// CHECK-LABEL: func.func @tlc_block_cluster_sum
// CHECK: %[[ADDR:.*]] = memref.extract_aligned_pointer_as_index %[[TILE:.*]] : memref<2x4xf32>
// CHECK: %[[PTR:.*]] = llvm.inttoptr
// CHECK: %[[COPIES:.*]] = call @tlc_cpu_cluster_exchange(%[[PTR]], %{{.*}}) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK: llvm.getelementptr %[[COPIES]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[A:.*]] = llvm.load
// CHECK: llvm.getelementptr %[[COPIES]]
// CHECK: %[[B:.*]] = llvm.load
// CHECK: %[[AB:.*]] = arith.addf %[[A]], %[[B]]
// CHECK: llvm.getelementptr %[[COPIES]]
// CHECK: %[[C:.*]] = llvm.load
// CHECK: %[[ABC:.*]] = arith.addf %[[AB]], %[[C]]
// CHECK: memref.store %[[ABC]], %[[TILE]]
// CHECK: call @tlc_cpu_cluster_sync() : () -> ()
// CHECK: func.func private @tlc_cpu_cluster_exchange(!llvm.ptr, i64) -> !llvm.ptr
// CHECK: func.func private @tlc_cpu_cluster_sync()
func.func @cluster_sum(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64, tile.cluster_blocks = 3 : i64} {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : memref<2x4xf32, #tile.scope<fragment>>
  tile.copy %X[%c0, %c0] to %t : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<2x4xf32, #tile.scope<fragment>>
  tile.cluster_reduce <sum> %t : memref<2x4xf32, #tile.scope<fragment>>
  tile.copy %t to %X[%c0, %c0] : memref<2x4xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}
