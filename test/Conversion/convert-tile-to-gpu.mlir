// RUN: tlc-opt %s -split-input-file --tile-attach-target --tile-infer-layouts --tile-gpu-kernel-abi --tile-plan-pipelines --tile-plan-shared-memory --convert-tile-to-gpu --tile-gpu-eliminate-barriers \
// RUN:   | FileCheck %s '--implicit-check-not={{^ *(%[^ ]+ = )?tile\.}}' '--implicit-check-not={{#tile\.(scope|layout|reduce_kind)}}' --implicit-check-not='func.func'
// Kernels become gpu.func kernels in gpu.module @tlc_kernels with the launch
// ABI of docs/abi.md; tiles get storage (shared: views of the dynamic shared
// memory; local: per-thread allocas; fragments: per-thread register slots
// laid out by their #tile.layout) and every tile op becomes the loops of
// the elements each thread owns. No tile op, tile attribute or func.func is
// left.

// The ABI: per tensor a memref<1xT> data pointer, then R sizes and R
// strides as i64; scalars by value, bool as i8. The block size is known.
// CHECK: module attributes {gpu.container_module, tile.target = #tile.target<vendor = "cuda", arch = "sm_90a"
// CHECK: gpu.module @tlc_kernels {
// CHECK: gpu.func @tlc_abi(%[[X:[^:]*]]: memref<1xf32>, %[[XS0:[^:]*]]: i64, %[[XS1:[^:]*]]: i64, %[[XT0:[^:]*]]: i64, %{{[^:]*}}: i64,
// CHECK-SAME: %[[W:[^:]*]]: memref<1xf16>, %{{[^:]*}}: i64, %{{[^:]*}}: i64,
// CHECK-SAME: %[[Y:[^:]*]]: memref<1xbf16>, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64,
// CHECK-SAME: %[[ALPHA:[^:]*]]: f32, %[[FLAG:[^:]*]]: i8) kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// Shared tiles: 16 f32 at 0, 3 f16 at 128 (128-byte aligned): 134 bytes.
// CHECK-SAME: tile.shared_bytes = 134 : i64
// Storage first, then the thread id.
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[OFF0:.*]] = arith.constant 0 : index
// CHECK: %[[WS:.*]] = memref.view %[[SMEM]][%[[OFF0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
// CHECK: %[[OFF1:.*]] = arith.constant 128 : index
// CHECK: %[[VS:.*]] = memref.view %[[SMEM]][%[[OFF1]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3xf16, #gpu.address_space<workgroup>>
// Fragments: s (4x16 over 128 threads, row-major: rows over thread digit
// (tid / 2) % 4, 2 runs of 8 columns over tid % 2, 16 copies over tid / 8)
// holds 8 elements per thread, its row maximum m 1.
// CHECK: %[[S:.*]] = memref.alloca() : memref<8xf32>
// CHECK: %[[M:.*]] = memref.alloca() : memref<1xf32>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// Tensors are rebuilt from the pointer, sizes and strides.
// CHECK: %[[N0:.*]] = arith.index_cast %[[XS0]] : i64 to index
// CHECK: %[[N1:.*]] = arith.index_cast %[[XS1]] : i64 to index
// CHECK: %[[ST0:.*]] = arith.index_cast %[[XT0]] : i64 to index
// CHECK: %[[XM:.*]] = memref.reinterpret_cast %[[X]] to offset: [%{{.*}}], sizes: [%[[N0]], %[[N1]]], strides: [%[[ST0]], 1] : memref<1xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
// A static dimension stays static.
// CHECK: %[[WM:.*]] = memref.reinterpret_cast %[[W]] to offset: [%{{.*}}], sizes: [64], strides: [1] : memref<1xf16> to memref<64xf16, strided<[1], offset: ?>>
// CHECK: %[[YM:.*]] = memref.reinterpret_cast %[[Y]] to {{.*}} : memref<1xbf16> to memref<?x?xbf16, strided<[?, 1], offset: ?>>
// CHECK: %[[B:.*]] = arith.cmpi ne, %[[FLAG]], %{{.*}} : i8
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[BY:.*]] = gpu.block_id y
// Copy into shared memory: the elements (in chunks of 8 or one by one)
// dealt round-robin over the threads, round * 128 + tid, guarded when the
// threads do not divide them (2 chunks here); the window bounds-checked
// against the tensor's size (outside: 0), converted to f32, then a barrier.
// CHECK: %[[C:.*]] = arith.addi %{{.*}}, %[[TID]] : index
// CHECK: %[[CIN:.*]] = arith.cmpi ult, %[[C]], %c2{{[_0-9]*}} : index
// CHECK: scf.if %[[CIN]] {
// CHECK: memref.dim %[[WM]]
// CHECK: {{(memref|vector)}}.load %[[WM]]
// CHECK: arith.extf
// CHECK: {{(memref|vector)}}.store %{{.*}}, %[[WS]][%{{.*}}] : memref<16xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// The 3 f16: one per thread for threads 0-2, bounds-checked.
// CHECK: %[[E:.*]] = arith.addi %{{.*}}, %[[TID]] : index
// CHECK: %[[EIN:.*]] = arith.cmpi ult, %[[E]], %c3{{[_0-9]*}} : index
// CHECK: scf.if %[[EIN]] {
// CHECK: %[[WI:.*]] = arith.addi %{{.*}}, %[[E]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[WI]], %{{.*}} : index
// CHECK: scf.if %[[IN]] -> (f16) {
// CHECK: memref.store %{{.*}}, %[[VS]][%[[E]]] : memref<3xf16, #gpu.address_space<workgroup>>
// CHECK: }
// CHECK-NEXT: gpu.barrier
// Global to registers: each thread reads the 8 elements it holds (row
// (tid / 2) % 4, 8 consecutive columns from 8 * (tid % 2)) in two runs of 4:
// a 16-byte vector load when aligned and in bounds, else element by element,
// bounds-checked; no barrier, as no shared memory is involved.
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c2{{[_0-9]*}} : index
// CHECK: arith.remui %[[ROW]], %c4{{[_0-9]*}} : index
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c2{{[_0-9]*}} : index
// CHECK: arith.muli %[[LANE]], %c8{{[_0-9]*}} : index
// CHECK: vector.load %[[XM]]{{.*}} vector<4xf32>
// CHECK-COUNT-4: memref.store %{{.*}}, %[[S]][%{{.*}}] : memref<8xf32>
// CHECK: } else {
// CHECK: memref.load %[[XM]]
// CHECK: vector.load %[[XM]]{{.*}} vector<4xf32>
// CHECK-COUNT-4: memref.store %{{.*}}, %[[S]][%{{.*}}] : memref<8xf32>
// CHECK-NOT: gpu.barrier
// Row maximum: the 8 registers first, then the 2 lanes of a row (xor 1).
// CHECK: memref.load %[[S]]
// CHECK-COUNT-6: arith.maximumf
// CHECK: %[[R0:.*]] = arith.maximumf
// CHECK: %[[SH1:[^,]*]], %{{.*}} = gpu.shuffle xor %[[R0]], %c1_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}} : f32
// CHECK: %[[R1:.*]] = arith.maximumf %[[R0]], %[[SH1]] : f32
// CHECK-NOT: gpu.shuffle
// CHECK: memref.store %[[R1]], %[[M]][%{{.*}}] : memref<1xf32>
// The parallel loop: per register slot; m[i] is the thread's only m slot,
// w[j] a shared load; then a barrier (the loop read shared memory).
// CHECK: %[[V:.*]] = memref.load %[[S]][%{{.*}}] : memref<8xf32>
// CHECK: %[[MI:.*]] = memref.load %[[M]][%{{.*}}] : memref<1xf32>
// CHECK: %[[WJ:.*]] = memref.load %[[WS]][%{{.*}}] : memref<16xf32, #gpu.address_space<workgroup>>
// CHECK: %[[D:.*]] = arith.subf %[[V]], %[[MI]] : f32
// CHECK: %[[EX:.*]] = math.exp %[[D]] : f32
// CHECK: %[[F:.*]] = arith.mulf %[[EX]], %[[ALPHA]] : f32
// CHECK: %[[G:.*]] = arith.select %[[B]], %[[F]], %[[WJ]] : f32
// CHECK: memref.store %[[G]], %[[S]][%{{.*}}] : memref<8xf32>
// CHECK-COUNT-7: math.exp
// CHECK: memref.store %{{.*}}, %[[S]][%{{.*}}] : memref<8xf32>
// CHECK-NEXT: gpu.barrier
// Registers to global: only the first of the 16 copies of each element (the
// replication digit, tid / 8, is 0) writes, converting to bf16 (a truncf:
// targets without a native conversion expand it later): the 8
// elements as one 16-byte vector store when aligned and in bounds, else
// element by element.
// CHECK: %[[REP:.*]] = arith.divui %[[TID]], %c8{{[_0-9]*}} : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[REP]], %{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK: vector.store %{{.*}}, %[[YM]][%{{.*}}, %{{.*}}] {{.*}} vector<8xbf16>
// CHECK: } else {
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.store %{{.*}}, %[[YM]][%{{.*}}, %{{.*}}] : memref<?x?xbf16, strided<[?, 1], offset: ?>>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @abi(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %W: memref<64xf16, strided<[1], offset: ?>>,
               %Y: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %alpha: f32, %flag: i1)
    attributes {tile.kernel, tile.threads = 128 : i64, tile.grid_rank = 2 : i64} {
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %bx = tile.block_id 0
  %by = tile.block_id 1
  %i = arith.muli %by, %c4 : index
  %j = arith.muli %bx, %c16 : index
  %w = tile.alloc : memref<16xf32, #tile.scope<shared>>
  %v = tile.alloc : memref<3xf16, #tile.scope<shared>>
  %s = tile.alloc : memref<4x16xf32, #tile.scope<fragment>>
  %m = tile.alloc : memref<4xf32, #tile.scope<fragment>>
  tile.copy %W[%j] to %w : memref<64xf16, strided<[1], offset: ?>>, memref<16xf32, #tile.scope<shared>>
  tile.copy %W[%j] to %v : memref<64xf16, strided<[1], offset: ?>>, memref<3xf16, #tile.scope<shared>>
  tile.copy %X[%i, %j] to %s : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<4x16xf32, #tile.scope<fragment>>
  tile.reduce <max> %s to %m {dim = 1 : i64, clear} : memref<4x16xf32, #tile.scope<fragment>>, memref<4xf32, #tile.scope<fragment>>
  tile.parallel [4, 16] {
  ^bb0(%p: index, %q: index):
    %x = memref.load %s[%p, %q] : memref<4x16xf32, #tile.scope<fragment>>
    %r = memref.load %m[%p] : memref<4xf32, #tile.scope<fragment>>
    %b = memref.load %w[%q] : memref<16xf32, #tile.scope<shared>>
    %d = arith.subf %x, %r : f32
    %e = math.exp %d : f32
    %f = arith.mulf %e, %alpha : f32
    %g = arith.select %flag, %f, %b : f32
    memref.store %g, %s[%p, %q] : memref<4x16xf32, #tile.scope<fragment>>
  }
  tile.copy %s to %Y[%i, %j] : memref<4x16xf32, #tile.scope<fragment>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  return
}

// -----

// A column reduction whose rows are spread over thread digit tid / 16 (8
// rows, one per thread; the columns are 16 lanes x 8 registers): no
// register step; the row digit's lane bit (tid & 16) by one shuffle (xor 16)
// per column; its 4 warp digits ((tid / 16) / 2) through a 4 x 128 f32
// scratch in shared memory (2048 bytes, behind the tiles), between
// barriers. Every thread keeps the 8 column sums it holds. atomic_add from a
// replicated fragment: only the first replica (tid / 16 == 0) adds.
// CHECK: gpu.func @tlc_colsum(
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: tile.shared_bytes = 2048 : i64
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[X:.*]] = memref.alloca() : memref<8xf32>
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<8xf32>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK-COUNT-8: memref.store %{{.*}}, %[[X]][%{{.*}}] : memref<8xf32>
// CHECK-COUNT-8: gpu.shuffle xor %{{.*}}, %c16_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c16{{[_0-9]*}} : index
// CHECK: arith.divui %[[ROW]], %c2{{[_0-9]*}} : index
// CHECK: %[[SCRATCH:.*]] = memref.view %[[SMEM]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<512xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-8: memref.store %{{.*}}, %[[SCRATCH]][%{{.*}}] : memref<512xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-32: memref.load %[[SCRATCH]][%{{.*}}] : memref<512xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: arith.addf
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-8: memref.store %{{.*}}, %[[ACC]][%{{.*}}] : memref<8xf32>
// CHECK: %[[REP:.*]] = arith.divui %[[TID]], %c16{{[_0-9]*}} : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[REP]], %{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK-COUNT-8: memref.atomic_rmw addf
// CHECK-NOT: memref.atomic_rmw
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
func.func @colsum(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %Out: memref<?xf32, strided<[1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64, tile.grid_rank = 1 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<8x128xf32, #tile.scope<fragment>>
  %acc = tile.alloc : memref<128xf32, #tile.scope<fragment>>
  tile.copy %X[%c0, %c0] to %x : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<8x128xf32, #tile.scope<fragment>>
  tile.reduce <sum> %x to %acc {dim = 0 : i64, clear} : memref<8x128xf32, #tile.scope<fragment>>, memref<128xf32, #tile.scope<fragment>>
  tile.atomic_add %acc to %Out[%c0] : memref<128xf32, #tile.scope<fragment>>, memref<?xf32, strided<[1], offset: ?>>
  return
}

// -----

// A row reduction over all 128 threads (one row of 1024: 8 registers x 128
// lanes along it): registers, then the 32 lanes of each warp by shuffles
// (xor 1, 2, 4, 8, 16), then the 4 warps through a 4-float scratch: each
// thread reads 4 partials, not 128.
// CHECK: gpu.func @tlc_rowmax(
// CHECK-SAME: tile.shared_bytes = 16 : i64
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32{{[_0-9]*}}, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32{{[_0-9]*}}, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32{{[_0-9]*}}, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32{{[_0-9]*}}, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32{{[_0-9]*}}, %c32_i32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[SCRATCH:.*]] = memref.view %{{.*}} to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: memref.load %[[SCRATCH]]
// CHECK-NOT: memref.load %[[SCRATCH]]
// CHECK: gpu.barrier
// CHECK: gpu.return
func.func @rowmax(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %Out: memref<?xf32, strided<[1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64, tile.grid_rank = 1 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<1x1024xf32, #tile.scope<fragment>>
  %m = tile.alloc : memref<1xf32, #tile.scope<fragment>>
  tile.copy %X[%c0, %c0] to %x : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<1x1024xf32, #tile.scope<fragment>>
  tile.reduce <max> %x to %m {dim = 1 : i64, clear} : memref<1x1024xf32, #tile.scope<fragment>>, memref<1xf32, #tile.scope<fragment>>
  tile.copy %m to %Out[%c0] : memref<1xf32, #tile.scope<fragment>>, memref<?xf32, strided<[1], offset: ?>>
  return
}

// -----

// The SIMT gemm with 64 threads: the 16x16 accumulator is 4 registers per
// thread (rows tid/16 + 4r, column tid%16), kept in iter_args across the K
// loop and updated with FMAs of A and B (transposed: B[j, k]) read from
// shared memory. A local tile is a per-thread alloca that every thread
// fills.
// CHECK: gpu.func @tlc_gemm(
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK-SAME: tile.shared_bytes = 512 : i64
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[AS:.*]] = memref.view %[[SMEM]]{{.*}} to memref<16x4xf32, #gpu.address_space<workgroup>>
// CHECK: %[[BS:.*]] = memref.view %[[SMEM]]{{.*}} to memref<16x4xf32, #gpu.address_space<workgroup>>
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<4xf32>
// CHECK: %[[LOC:.*]] = memref.alloca() : memref<4xf32>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// fill
// CHECK-COUNT-4: memref.store %{{.*}}, %[[ACC]]
// The two copies into shared tiles are asynchronous copies (sm_90a has
// them), waited for once after the second (tile.async_once).
// CHECK: nvgpu.device_async_copy {{.*}}, %[[AS]]
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: nvvm.cp.async.wait.group
// CHECK: nvgpu.device_async_copy {{.*}}, %[[BS]]
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c16{{[_0-9]*}} : index
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %c16{{[_0-9]*}} : index
// CHECK: %[[C0:.*]] = memref.load %[[ACC]]
// CHECK: %[[C1:.*]] = memref.load %[[ACC]]
// CHECK: %[[C2:.*]] = memref.load %[[ACC]]
// CHECK: %[[C3:.*]] = memref.load %[[ACC]]
// CHECK: %[[SUMS:.*]]:4 = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S0:.*]] = %[[C0]], %[[S1:.*]] = %[[C1]], %[[S2:.*]] = %[[C2]], %[[S3:.*]] = %[[C3]]) -> (f32, f32, f32, f32) {
// CHECK: %[[A0:.*]] = memref.load %[[AS]][%[[ROW]], %[[K]]]
// CHECK: %[[B0:.*]] = memref.load %[[BS]][%[[COL]], %[[K]]]
// CHECK: %[[F0:.*]] = math.fma %[[A0]], %[[B0]], %[[S0]] : f32
// CHECK: math.fma %{{.*}}, %[[B0]], %[[S1]] : f32
// CHECK: math.fma %{{.*}}, %[[B0]], %[[S2]] : f32
// CHECK: math.fma %{{.*}}, %[[B0]], %[[S3]] : f32
// CHECK: scf.yield %[[F0]],
// CHECK: memref.store %[[SUMS]]#0, %[[ACC]]
// CHECK: memref.store %[[SUMS]]#3, %[[ACC]]
// CHECK-NEXT: gpu.barrier
// The local tile: every thread reads every element.
// CHECK: scf.for %[[L:.*]] = %c0{{[_0-9]*}} to %c4{{[_0-9]*}} step %c1{{[_0-9]*}} {
// CHECK: memref.store %{{.*}}, %[[LOC]][%[[L]]] : memref<4xf32>
// CHECK: gpu.return
func.func @gemm(%A: memref<?x?xf32, strided<[?, 1], offset: ?>>, %C: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 64 : i64, tile.grid_rank = 1 : i64} {
  %c0 = arith.constant 0 : index
  %as = tile.alloc : memref<16x4xf32, #tile.scope<shared>>
  %bs = tile.alloc : memref<16x4xf32, #tile.scope<shared>>
  %acc = tile.alloc : memref<16x16xf32, #tile.scope<fragment>>
  %loc = tile.alloc : memref<4xf32, #tile.scope<local>>
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : memref<16x16xf32, #tile.scope<fragment>>, f32
  tile.copy %A[%c0, %c0] to %as : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x4xf32, #tile.scope<shared>>
  tile.copy %A[%c0, %c0] to %bs : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x4xf32, #tile.scope<shared>>
  tile.gemm %as, %bs, %acc {transpose_b} : memref<16x4xf32, #tile.scope<shared>>, memref<16x4xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  tile.copy %A[%c0, %c0] to %loc : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<4xf32, #tile.scope<local>>
  tile.copy %loc to %C[%c0, %c0] : memref<4xf32, #tile.scope<local>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %acc to %C[%c0, %c0] : memref<16x16xf32, #tile.scope<fragment>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// A fragment demoted to shared memory (read outside parallel) is a shared
// view like the others; the element access outside parallel is followed by
// a barrier too. (Its copy from X is a shared tile's now: asynchronous.)
// CHECK: gpu.func @tlc_demoted(
// CHECK-SAME: tile.shared_bytes = 64 : i64
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[F:.*]] = memref.view %[[SMEM]]{{.*}} to memref<16xf32, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy {{.*}}, %[[F]]
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
// CHECK: memref.load %[[F]]
// CHECK-NEXT: gpu.barrier
// CHECK: gpu.return
func.func @demoted(%X: memref<?xf32, strided<[1], offset: ?>>, %i: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c3 = arith.constant 3 : index
  %f = tile.alloc : memref<16xf32, #tile.scope<fragment>>
  tile.copy %X[%i] to %f : memref<?xf32, strided<[1], offset: ?>>, memref<16xf32, #tile.scope<fragment>>
  %v = memref.load %f[%c3] : memref<16xf32, #tile.scope<fragment>>
  tile.fill %f, %v : memref<16xf32, #tile.scope<fragment>>, f32
  tile.copy %f to %X[%i] : memref<16xf32, #tile.scope<fragment>>, memref<?xf32, strided<[1], offset: ?>>
  return
}

// -----

// A row reduction (accumulating, no clear) from registers into a shared
// tile. x (4x16, row-major over 128 threads) is rows (tid / 2) % 4, 8
// columns from 8 * (tid % 2), 16 copies over tid / 8; the row sums are
// replicated over tid % 2 and tid / 8. Registers, one shuffle (xor 1), then
// only the first replica of each row (tid % 2 == 0 and tid / 8 == 0:
// threads 0, 2, 4, 6) reads, adds and writes the shared element, once; a
// barrier follows.
// CHECK: gpu.func @tlc_rowsum_shared(
// CHECK-SAME: tile.shared_bytes = 16 : i64
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[SUM:.*]] = memref.view %[[SMEM]]{{.*}} to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK-COUNT-7: arith.addf
// CHECK: %[[SH:[^,]*]], %{{.*}} = gpu.shuffle xor %[[R:[^,]*]], %c1_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}} : f32
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[R]], %[[SH]] : f32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c2{{[_0-9]*}} : index
// CHECK-NEXT: %[[Z0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[L0:.*]] = arith.cmpi eq, %[[LANE]], %[[Z0]] : index
// CHECK: %[[REP:.*]] = arith.divui %[[TID]], %c8{{[_0-9]*}} : index
// CHECK-NEXT: %[[Z1:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[R0:.*]] = arith.cmpi eq, %[[REP]], %[[Z1]] : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.andi %[[L0]], %[[R0]] : i1
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: %[[OLD:.*]] = memref.load %[[SUM]][%[[ROW:.*]]] : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]], %[[T]] : f32
// CHECK-NEXT: memref.store %[[NEW]], %[[SUM]][%[[ROW]]] : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: memref.store %{{.*}}, %[[SUM]]
// CHECK: gpu.return
func.func @rowsum_shared(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %Out: memref<?xf32, strided<[1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64, tile.grid_rank = 1 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<4x16xf32, #tile.scope<fragment>>
  %sum = tile.alloc : memref<4xf32, #tile.scope<shared>>
  tile.copy %X[%c0, %c0] to %x : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<4x16xf32, #tile.scope<fragment>>
  tile.reduce <sum> %x to %sum {dim = 1 : i64} : memref<4x16xf32, #tile.scope<fragment>>, memref<4xf32, #tile.scope<shared>>
  tile.copy %sum to %Out[%c0] : memref<4xf32, #tile.scope<shared>>, memref<?xf32, strided<[1], offset: ?>>
  return
}

// -----

// With 48 threads (not whole warps) a reduction uses no shuffles, even over
// lanes of one warp: x (4x16 over 48 threads: rows (tid / 2) % 4, 8 columns
// from 8 * (tid % 2), 6 copies over tid / 8) combines the 2 lanes of a row
// through a 2 x 4 f32 scratch (32 bytes) between barriers.
// CHECK: gpu.func @tlc_rowmax_48(
// CHECK-SAME: known_block_size = array<i32: 48, 1, 1>
// CHECK-SAME: tile.shared_bytes = 32 : i64
// CHECK-NOT: gpu.shuffle
// CHECK: %[[SCRATCH:.*]] = memref.view %{{.*}} to memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[SCRATCH]][%{{.*}}] : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK: %[[A:.*]] = memref.load %[[SCRATCH]][%{{.*}}] : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %[[B:.*]] = memref.load %[[SCRATCH]][%{{.*}}] : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: arith.maximumf %[[A]], %[[B]] : f32
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
func.func @rowmax_48(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %Out: memref<?xf32, strided<[1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 48 : i64, tile.grid_rank = 1 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<4x16xf32, #tile.scope<fragment>>
  %m = tile.alloc : memref<4xf32, #tile.scope<fragment>>
  tile.copy %X[%c0, %c0] to %x : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<4x16xf32, #tile.scope<fragment>>
  tile.reduce <max> %x to %m {dim = 1 : i64, clear} : memref<4x16xf32, #tile.scope<fragment>>, memref<4xf32, #tile.scope<fragment>>
  tile.copy %m to %Out[%c0] : memref<4xf32, #tile.scope<fragment>>, memref<?xf32, strided<[1], offset: ?>>
  return
}

// -----

// Writes and atomics on tensor elements (memref.store / memref.atomic_rmw on
// a global memref, as tile-expand-element-access leaves them) happen once:
// in scalar code under tid == 0; in a parallel anchored on a fragment that
// every thread holds in full (4 elements, 128 copies), under the first
// copy's condition (here tid == 0 too); in a strided parallel (each
// iteration on one thread) without a guard.
// CHECK: gpu.func @tlc_element_writes(
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<4xf32>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[X:.*]] = memref.reinterpret_cast %{{.*}} to memref<?xf32, strided<[1], offset: ?>>
// CHECK: %[[C:.*]] = memref.reinterpret_cast %{{.*}} to memref<?xi32, strided<[1], offset: ?>>
// CHECK: %[[T0:.*]] = arith.cmpi eq, %[[TID]], %c0{{[_0-9]*}} : index
// CHECK: scf.if %[[T0]] {
// CHECK-NEXT: memref.atomic_rmw addi %{{.*}}, %[[C]]
// CHECK-NEXT: }
// CHECK-COUNT-4: memref.store %{{.*}}, %[[ACC]]
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c0{{[_0-9]*}} : index
// CHECK-COUNT-4: scf.if %[[FIRST]] {
// CHECK-NOT: scf.if
// CHECK: %[[E:.*]] = arith.addi %{{.*}}, %[[TID]] : index
// CHECK-NOT: scf.if
// CHECK: memref.store %{{.*}}, %[[X]][%[[E]]]
// CHECK: gpu.return
func.func @element_writes(%X: memref<?xf32, strided<[1], offset: ?>>, %C: memref<?xi32, strided<[1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64, tile.grid_rank = 1 : i64} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %m = tile.alloc : memref<4xf32, #tile.scope<fragment>>
  %r = memref.atomic_rmw addi %one, %C[%c0] : (i32, memref<?xi32, strided<[1], offset: ?>>) -> i32
  tile.fill %m, %zero : memref<4xf32, #tile.scope<fragment>>, f32
  tile.parallel [4] {
  ^bb0(%i: index):
    %v = memref.load %m[%i] : memref<4xf32, #tile.scope<fragment>>
    memref.store %v, %X[%i] : memref<?xf32, strided<[1], offset: ?>>
  }
  tile.parallel [256] {
  ^bb0(%i: index):
    memref.store %zero, %X[%i] : memref<?xf32, strided<[1], offset: ?>>
  }
  return
}

// -----

// A shared tile updated in a parallel whose iterations every thread runs
// (the anchor m: 4 elements in each of the 128 threads): s[i] += m[i] is
// stored by the first copy only (else it would add 128 times); the others
// use the sum they computed where the iteration reads s[i] back, and a
// barrier orders everyone's read of the old s[i] before the store.
// CHECK: gpu.func @tlc_shared_rmw(
// CHECK: %[[S:.*]] = memref.view {{.*}} to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: %[[M:.*]] = memref.alloca() : memref<4xf32>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c0{{[_0-9]*}} : index
// CHECK: %[[V:.*]] = memref.load %[[M]]
// CHECK: %[[OLD:.*]] = memref.load %[[S]]
// CHECK: %[[SUM:.*]] = arith.addf %[[OLD]], %[[V]] : f32
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store %[[SUM]], %[[S]]
// CHECK-NEXT: }
// CHECK: %[[SQ:.*]] = arith.mulf %[[SUM]], %[[SUM]] : f32
// CHECK: memref.store %[[SQ]], %[[M]]
// CHECK: gpu.return
func.func @shared_rmw(%X: memref<?xf32, strided<[1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64, tile.grid_rank = 1 : i64} {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %s = tile.alloc : memref<4xf32, #tile.scope<shared>>
  %m = tile.alloc : memref<4xf32, #tile.scope<fragment>>
  tile.fill %s, %zero : memref<4xf32, #tile.scope<shared>>, f32
  tile.fill %m, %zero : memref<4xf32, #tile.scope<fragment>>, f32
  tile.parallel [4] {
  ^bb0(%i: index):
    %v = memref.load %m[%i] : memref<4xf32, #tile.scope<fragment>>
    %o = memref.load %s[%i] : memref<4xf32, #tile.scope<shared>>
    %n = arith.addf %o, %v : f32
    memref.store %n, %s[%i] : memref<4xf32, #tile.scope<shared>>
    %r = memref.load %s[%i] : memref<4xf32, #tile.scope<shared>>
    %d = arith.mulf %r, %r : f32
    memref.store %d, %m[%i] : memref<4xf32, #tile.scope<fragment>>
  }
  tile.copy %m to %X[%c0] : memref<4xf32, #tile.scope<fragment>>, memref<?xf32, strided<[1], offset: ?>>
  return
}
