// RUN: tlc-opt %s -split-input-file --pass-pipeline='builtin.module(tile-cpu-task-nest{vector-bits=256})' | FileCheck %s
// RUN: tlc-opt %s -split-input-file --pass-pipeline='builtin.module(tile-cpu-task-nest{vector-bits=256},convert-tile-to-cpu{vector-bits=256})' | FileCheck %s --check-prefix=LOWERED
// RUN: tlc-opt %s -split-input-file --pass-pipeline='builtin.module(tile-cpu-task-nest{vector-bits=256 panel-bytes=3000})' | FileCheck %s --check-prefix=SMALL
// A gemm-shaped kernel keeps its block entry and gains tlc_tasks_NAME, which
// runs a rectangle of blocks in the Goto order; other kernels are left
// alone.

// B tiles of 8 x 40 become strips of 16 columns (two vectors of f32 at 256
// bits): two full strips in a loop, then one of 8.
// CHECK-LABEL: func.func @gemm(
// CHECK: tile.gemm
// CHECK-LABEL: func.func @tlc_tasks_gemm(
// CHECK-SAME: %[[A:[^:]*]]: memref<?x?xf32, strided<[?, 1], offset: ?>>, %[[B:[^:]*]]: memref<?x?xf32, strided<[?, 1], offset: ?>>, %[[C:[^:]*]]: memref<?x?xf32, strided<[?, 1], offset: ?>>,
// CHECK-SAME: %[[BX0:[^:]*]]: index, %[[BX1:[^:]*]]: index, %[[BY0:[^:]*]]: index, %[[BY1:[^:]*]]: index, %[[GZ:[^:]*]]: index) -> i32
// CHECK-SAME: llvm.emit_c_interface, tile.cpu_task_entry = "gemm"
// CHECK-DAG: %[[ACC:.*]] = tile.alloc : memref<16x40xf32, #tile.scope<fragment>>
// CHECK-DAG: %[[AS:.*]] = tile.alloc : memref<16x8xf32, #tile.scope<shared>>
// CHECK-DAG: %[[COLS:.*]] = arith.subi %[[BX1]], %[[BX0]]
// CHECK-DAG: %[[ROWS:.*]] = arith.subi %[[BY1]], %[[BY0]]
// At most 16 MiB per panel: 1536 bytes of B strips per column block, 2560
// bytes of accumulator per block; wider or taller rectangles go in chunks.
// CHECK: %[[BFIT:.*]] = arith.divsi %c16777216{{[_0-9]*}}, %c1536
// CHECK: %[[BMIN:.*]] = arith.minsi %[[COLS]], %[[BFIT]]
// CHECK: %[[CCHUNK:.*]] = arith.maxsi %{{.*}}, %[[BMIN]]
// CHECK: %[[PERROW:.*]] = arith.muli %[[CCHUNK]], %c2560
// CHECK: %[[FIT:.*]] = arith.divsi %c16777216{{[_0-9]*}}, %[[PERROW]]
// CHECK: %[[MIN:.*]] = arith.minsi %[[ROWS]], %[[FIT]]
// CHECK: %[[CHUNK:.*]] = arith.maxsi %{{.*}}, %[[MIN]]
// CHECK: %[[PB:.*]] = memref.alloc(%[[CCHUNK]]) {alignment = 64 : i64} : memref<?x3x8x16xf32, #tile.scope<shared>>
// CHECK: %[[PACC:.*]] = memref.alloc(%[[CHUNK]], %[[CCHUNK]]) {alignment = 64 : i64} : memref<?x?x16x40xf32, #tile.scope<fragment>>
// A panel that malloc could not give: nothing runs, status 1 is returned.
// CHECK: %[[PBADDR:.*]] = memref.extract_aligned_pointer_as_index %[[PB]]
// CHECK: %[[PBOK:.*]] = arith.cmpi ne, %[[PBADDR]], %c0
// CHECK: %[[PACCADDR:.*]] = memref.extract_aligned_pointer_as_index %[[PACC]]
// CHECK: %[[PACCOK:.*]] = arith.cmpi ne, %[[PACCADDR]], %c0
// CHECK: %[[OK:.*]] = arith.andi %[[PBOK]], %[[PACCOK]]
// CHECK: scf.if %[[OK]] {
// CHECK: scf.for %[[BZ:.*]] = %{{.*}} to %[[GZ]]
// CHECK: scf.for %[[FIRSTC:[^ ]*]] = %{{.*}} to %[[COLS]] step %[[CCHUNK]]
// CHECK: %[[BXF:.*]] = arith.addi %[[BX0]], %[[FIRSTC]]
// CHECK: %[[CLEFT:.*]] = arith.subi %[[COLS]], %[[FIRSTC]]
// CHECK: %[[M:.*]] = arith.minsi %[[CCHUNK]], %[[CLEFT]]
// CHECK: scf.for %[[FIRST:[^ ]*]] = %{{.*}} to %[[ROWS]] step %[[CHUNK]]
// CHECK: %[[BYF:.*]] = arith.addi %[[BY0]], %[[FIRST]]
// CHECK: %[[LEFT:.*]] = arith.subi %[[ROWS]], %[[FIRST]]
// CHECK: %[[N:.*]] = arith.minsi %[[CHUNK]], %[[LEFT]]
//
// Every block's accumulator starts as the kernel's fill.
// CHECK: scf.for %[[R:[^ ]*]] = %{{.*}} to %[[N]]
// CHECK: scf.for %[[CC:[^ ]*]] = %{{.*}} to %[[M]]
// CHECK: %[[SLOT:.*]] = memref.subview %[[PACC]][%[[R]], %[[CC]], 0, 0] [1, 1, 16, 40]
// CHECK: tile.fill %[[SLOT]], %{{.*}} : memref<16x40xf32, strided<[40, 1], offset: ?>, #tile.scope<fragment>>
//
// The K loop keeps its attributes; per step the B tiles of the rectangle's
// columns are copied once, strip by strip, at their block's column.
// CHECK: scf.for %[[K:[^ ]*]] =
// CHECK: scf.for %[[CB:[^ ]*]] = %{{.*}} to %[[M]]
// CHECK: %[[BX:.*]] = arith.addi %[[BXF]], %[[CB]]
// CHECK: %[[KROW:.*]] = arith.muli %[[K]], %c8{{[_0-9]*}}
// CHECK: %[[BCOL:.*]] = arith.muli %[[BX]], %c40{{[_0-9]*}}
// CHECK: scf.for %[[S:[^ ]*]] = %{{.*}} to %c2{{[_0-9]*}}
// CHECK: %[[SCOL:.*]] = arith.muli %[[S]], %c16{{[_0-9]*}}
// CHECK: %[[COL:.*]] = arith.addi %[[BCOL]], %[[SCOL]]
// CHECK: %[[STRIP:.*]] = memref.subview %[[PB]][%[[CB]], %[[S]], 0, 0] [1, 1, 8, 16] [1, 1, 1, 1] : memref<?x3x8x16xf32, #tile.scope<shared>> to memref<8x16xf32, strided<[16, 1], offset: ?>, #tile.scope<shared>>
// CHECK: tile.copy %[[B]][%[[KROW]], %[[COL]]] to %[[STRIP]]
// The last strip: 8 columns, at column 32 of the tile.
// CHECK: %[[LCOL:.*]] = arith.addi %[[BCOL]], %c32{{[_0-9]*}}
// CHECK: %[[LAST:.*]] = memref.subview %[[PB]][%[[CB]], %c2{{[_0-9]*}}, 0, 0] [1, 1, 8, 8] [1, 1, 1, 1] : memref<?x3x8x16xf32, #tile.scope<shared>> to memref<8x8xf32, strided<[16, 1], offset: ?>, #tile.scope<shared>>
// CHECK: tile.copy %[[B]][%[[KROW]], %[[LCOL]]] to %[[LAST]]
//
// Per row block: A's tile once, then its product with every strip of every
// column into that block's accumulator.
// CHECK: scf.for %[[RA:[^ ]*]] = %{{.*}} to %[[N]]
// CHECK: %[[BY:.*]] = arith.addi %[[BYF]], %[[RA]]
// CHECK: %[[AROW:.*]] = arith.muli %[[BY]], %c16{{[_0-9]*}}
// CHECK: tile.copy %[[A]][%[[AROW]], %{{.*}}] to %[[AS]]
// CHECK: scf.for %[[CG:[^ ]*]] = %{{.*}} to %[[M]]
// CHECK: scf.for %[[SG:[^ ]*]] = %{{.*}} to %c2{{[_0-9]*}}
// CHECK: %[[GCOL:.*]] = arith.muli %[[SG]], %c16{{[_0-9]*}}
// CHECK: %[[BSTRIP:.*]] = memref.subview %[[PB]][%[[CG]], %[[SG]], 0, 0] [1, 1, 8, 16]
// CHECK-NEXT: %[[CSTRIP:.*]] = memref.subview %[[PACC]][%[[RA]], %[[CG]], 0, %[[GCOL]]] [1, 1, 16, 16] [1, 1, 1, 1] : memref<?x?x16x40xf32, #tile.scope<fragment>> to memref<16x16xf32, strided<[40, 1], offset: ?>, #tile.scope<fragment>>
// CHECK: tile.gemm %[[AS]], %[[BSTRIP]], %[[CSTRIP]]
// CHECK: memref.subview %[[PB]][%[[CG]], %c2{{[_0-9]*}}, 0, 0] [1, 1, 8, 8]
// CHECK-NEXT: memref.subview %[[PACC]][%[[RA]], %[[CG]], 0, %c32{{[_0-9]*}}] [1, 1, 16, 8]
// CHECK: tile.gemm
// CHECK: } {tile.stages = 3 : i64}
//
// After the loop, each block's epilogue as written, from its accumulator.
// CHECK: scf.for %[[RE:[^ ]*]] = %{{.*}} to %[[N]]
// CHECK: scf.for %[[CE:[^ ]*]] = %{{.*}} to %[[M]]
// CHECK: %[[EBX:.*]] = arith.addi %[[BXF]], %[[CE]]
// CHECK: %[[EBY:.*]] = arith.addi %[[BYF]], %[[RE]]
// CHECK: %[[MINE:.*]] = memref.subview %[[PACC]][%[[RE]], %[[CE]], 0, 0] [1, 1, 16, 40]
// CHECK: tile.copy %[[MINE]] to %[[ACC]]
// CHECK-DAG: %[[CROW:.*]] = arith.muli %[[EBY]], %c16{{[_0-9]*}}
// CHECK-DAG: %[[CCOL:.*]] = arith.muli %[[EBX]], %c40{{[_0-9]*}}
// CHECK: tile.copy %[[ACC]] to %[[C]][%[[CROW]], %[[CCOL]]]
// CHECK: memref.dealloc %[[PB]]
// CHECK: memref.dealloc %[[PACC]]
// CHECK-DAG: %[[OKSTATUS:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[OOMSTATUS:.*]] = arith.constant 1 : i32
// CHECK: %[[STATUS:.*]] = arith.select %[[OK]], %[[OKSTATUS]], %[[OOMSTATUS]] : i32
// CHECK-NOT: tile.block_id
// CHECK: return %[[STATUS]] : i32

// panel-bytes bounds both panels: here one column block of B strips at a
// time, and one block of accumulators.
// SMALL-LABEL: func.func @tlc_tasks_gemm(
// SMALL: arith.divsi %c3000{{[_0-9]*}}, %c1536
// SMALL: arith.divsi %c3000{{[_0-9]*}}, %{{.*}}

// Lowered, both entries are plain CPU code: the panels are heap memory.
// LOWERED-LABEL: func.func @tlc_block_gemm(
// LOWERED-LABEL: func.func @tlc_tasks_gemm(
// LOWERED: memref.alloc({{.*}}) {alignment = 64 : i64} : memref<?x3x8x16xf32>
// LOWERED: vector.fma
// LOWERED: memref.dealloc
func.func @gemm(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                %B: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                %C: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c40 = arith.constant 40 : index
  %zero = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<16x40xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<8x40xf32, #tile.scope<shared>>
  %As = tile.alloc : memref<16x8xf32, #tile.scope<shared>>
  %K = memref.dim %A, %c1 : memref<?x?xf32, strided<[?, 1], offset: ?>>
  %bx = tile.block_id 0
  %by = tile.block_id 1
  tile.fill %acc, %zero : memref<16x40xf32, #tile.scope<fragment>>, f32
  %steps = arith.ceildivsi %K, %c8 : index
  scf.for %k = %c0 to %steps step %c1 {
    %row = arith.muli %by, %c16 : index
    %kcol = arith.muli %k, %c8 : index
    tile.copy %A[%row, %kcol] to %As : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x8xf32, #tile.scope<shared>>
    %col = arith.muli %bx, %c40 : index
    tile.copy %B[%kcol, %col] to %Bs : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<8x40xf32, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<16x8xf32, #tile.scope<shared>>, memref<8x40xf32, #tile.scope<shared>>, memref<16x40xf32, #tile.scope<fragment>>
  } {tile.stages = 3 : i64}
  %crow = arith.muli %by, %c16 : index
  %ccol = arith.muli %bx, %c40 : index
  tile.copy %acc to %C[%crow, %ccol] : memref<16x40xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// Block ids inside the epilogue's regions become the block's, and values
// from before the loop are recomputed per block.
// CHECK-LABEL: func.func @tlc_tasks_nested(
// CHECK-SAME: %[[BX0:[^:]*]]: index, %{{[^:]*}}: index, %[[BY0:[^:]*]]: index
// CHECK: %[[BXF:.*]] = arith.addi %[[BX0]]
// CHECK: %[[BYF:.*]] = arith.addi %[[BY0]]
// CHECK: tile.gemm
// CHECK: %[[BX:.*]] = arith.addi %[[BXF]]
// CHECK-NEXT: %[[BY:.*]] = arith.addi %[[BYF]]
// CHECK-NEXT: memref.subview
// CHECK-NEXT: tile.copy %{{[a-z_0-9]+}} to %[[ACC:[0-9]+]] :
// CHECK: arith.cmpi eq, %[[BX]]
// CHECK: %[[COL:.*]] = arith.muli %[[BX]], %c16{{[_0-9]*}}
// CHECK: scf.if
// CHECK: %[[ROW:.*]] = arith.muli %[[BY]], %c16{{[_0-9]*}}
// CHECK: tile.copy %[[ACC]] to %{{.*}}[%[[ROW]], %[[COL]]]
// CHECK-NOT: tile.block_id
// CHECK: return
func.func @nested(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                  %B: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                  %C: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %As = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %bx = tile.block_id 0
  %col = arith.muli %bx, %c16 : index
  tile.fill %acc, %zero : memref<16x16xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %c4 step %c1 {
    %by = tile.block_id 1
    %row = arith.muli %by, %c16 : index
    %kk = arith.muli %k, %c16 : index
    tile.copy %A[%row, %kk] to %As : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
    tile.copy %B[%kk, %col] to %Bs : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  %first = arith.cmpi eq, %bx, %c0 : index
  scf.if %first {
    %by2 = tile.block_id 1
    %crow = arith.muli %by2, %c16 : index
    tile.copy %acc to %C[%crow, %col] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  }
  return
}

// -----

// Not gemm-shaped: A's window moves with block x (no A tile to share
// across the columns).
// CHECK-LABEL: func.func @a_moves_with_x(
// CHECK-NOT: tlc_tasks
func.func @a_moves_with_x(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                          %B: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                          %C: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %As = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %bx = tile.block_id 0
  %col = arith.muli %bx, %c16 : index
  tile.fill %acc, %zero : memref<16x16xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %c4 step %c1 {
    %kk = arith.muli %k, %c16 : index
    tile.copy %A[%col, %kk] to %As : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
    tile.copy %B[%kk, %col] to %Bs : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  tile.copy %acc to %C[%c0, %col] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// Not gemm-shaped: the loop's trip count differs between blocks.
// CHECK-LABEL: func.func @bounds_per_block(
// CHECK-NOT: tlc_tasks
func.func @bounds_per_block(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                            %B: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                            %C: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %As = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %bx = tile.block_id 0
  %by = tile.block_id 1
  tile.fill %acc, %zero : memref<16x16xf32, #tile.scope<fragment>>, f32
  %steps = arith.addi %by, %c1 : index
  scf.for %k = %c0 to %steps step %c1 {
    %kk = arith.muli %k, %c16 : index
    %row = arith.muli %by, %c16 : index
    %col = arith.muli %bx, %c16 : index
    tile.copy %A[%row, %kk] to %As : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
    tile.copy %B[%kk, %col] to %Bs : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  tile.copy %acc to %C[%c0, %c0] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// Not gemm-shaped: B is transposed; a tile is written before the loop.
// CHECK-LABEL: func.func @transposed(
// CHECK-NOT: tlc_tasks
// CHECK-LABEL: func.func @written_before(
// CHECK-NOT: tlc_tasks
func.func @transposed(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                      %B: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                      %C: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %As = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  tile.fill %acc, %zero : memref<16x16xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %c4 step %c1 {
    %kk = arith.muli %k, %c16 : index
    tile.copy %A[%c0, %kk] to %As : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
    tile.copy %B[%c0, %kk] to %Bs : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc {transpose_b} : memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  tile.copy %acc to %C[%c0, %c0] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

func.func @written_before(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                          %B: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                          %C: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %As = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  tile.fill %acc, %zero : memref<16x16xf32, #tile.scope<fragment>>, f32
  tile.copy %acc to %C[%c0, %c0] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  scf.for %k = %c0 to %c4 step %c1 {
    %kk = arith.muli %k, %c16 : index
    tile.copy %A[%c0, %kk] to %As : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
    tile.copy %B[%kk, %c0] to %Bs : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  tile.copy %acc to %C[%c0, %c0] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// A window's tensor is a slice built in the kernel: it is rebuilt in the
// task entry (from the entry's own arguments), and a slice that moves with
// block x rules A out. Grid z is looped over.
// CHECK-LABEL: func.func @sliced(
// CHECK-LABEL: func.func @tlc_tasks_sliced(
// CHECK-SAME: %[[A:[^:]*]]: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %[[B:[^:]*]]: memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK-SAME: %[[GZ:[^:]*]]: index)
// CHECK: scf.for %[[BZ:[^ ]*]] = %{{.*}} to %[[GZ]]
// CHECK: scf.for
// CHECK: %[[SLICE:.*]] = memref.subview %[[A]][%[[BZ]], 0, 0] [1, 16, 16] [1, 1, 1]
// CHECK: tile.copy %[[SLICE]][%{{.*}}, %{{.*}}] to
// CHECK-LABEL: func.func @moving_slice(
// CHECK-NOT: tlc_tasks
func.func @sliced(%A: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>,
                  %B: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                  %C: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %As = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %bx = tile.block_id 0
  %bz = tile.block_id 2
  tile.fill %acc, %zero : memref<16x16xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %c1 step %c1 {
    %slice = memref.subview %A[%bz, 0, 0] [1, 16, 16] [1, 1, 1] : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>> to memref<16x16xf32, strided<[?, 1], offset: ?>>
    tile.copy %slice[%c0, %c0] to %As : memref<16x16xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
    %col = arith.muli %bx, %c16 : index
    tile.copy %B[%c0, %col] to %Bs : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  %col2 = arith.muli %bx, %c16 : index
  tile.copy %acc to %C[%c0, %col2] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

func.func @moving_slice(%A: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>,
                        %B: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                        %C: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %acc = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %Bs = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %As = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  %bx = tile.block_id 0
  tile.fill %acc, %zero : memref<16x16xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %c1 step %c1 {
    %slice = memref.subview %A[%bx, 0, 0] [1, 16, 16] [1, 1, 1] : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>> to memref<16x16xf32, strided<[?, 1], offset: ?>>
    tile.copy %slice[%c0, %c0] to %As : memref<16x16xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
    %col = arith.muli %bx, %c16 : index
    tile.copy %B[%c0, %col] to %Bs : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x16xf32, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  tile.copy %acc to %C[%c0, %c0] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}
