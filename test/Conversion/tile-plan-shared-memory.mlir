// RUN: tlc-opt %s -split-input-file --tile-attach-target --tile-gpu-kernel-abi --tile-plan-pipelines --tile-plan-shared-memory | FileCheck %s
// tile-plan-shared-memory gives every shared tile its offset in the
// block's dynamic shared memory (tile.shared_offset), the buffers of a
// pipelined producer's tile (tile.buffers) and the kernel the bytes of its
// tiles (tile.shared_bytes). Rows that are a multiple of 32 bytes get 16
// bytes of padding; the largest tile goes first; tiles live at the same
// time do not overlap, offsets are 128-byte aligned.

// acc: 64 x 64 f32, rows of 256 + 16 bytes: 17408 bytes at 0. As: 64 x 32
// f16 (rows 64 + 16) x 3 buffers = 15360 at 17408; Bs: 32 x 64 f16 (rows
// 128 + 16) x 3 = 13824 at 32768. 46592 in all.
// CHECK-LABEL: gpu.func @tlc_gemm
// CHECK-SAME: tile.shared_bytes = 46592 : i64
// CHECK: tile.alloc {tile.buffers = 3 : i64, tile.shared_offset = 17408 : i64} : memref<64x32xf16
// CHECK: tile.alloc {tile.buffers = 3 : i64, tile.shared_offset = 32768 : i64} : memref<32x64xf16
// CHECK: tile.alloc {tile.shared_offset = 0 : i64} : memref<64x64xf32
func.func @gemm(%A: memref<?x?xf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xf16, strided<[?, 1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %As = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
  %Bs = tile.alloc : memref<32x64xf16, #tile.scope<shared>>
  %acc = tile.alloc : memref<64x64xf32, #tile.scope<shared>>
  scf.for %k = %c0 to %n step %c1 {
    %k0 = arith.muli %k, %c32 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<64x32xf16, #tile.scope<shared>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<32x64xf16, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<shared>>
  } {tile.stages = 3 : i64}
  return
}

// -----

// %a is dead once %b is written: they share offset 0. %c (100 f32, 1-D: no
// padding) lives with both: behind the larger, %a (32 rows of 128 + 16
// bytes = 4608), at 4608; 5008 bytes in all.
// CHECK-LABEL: gpu.func @tlc_reuse
// CHECK-SAME: tile.shared_bytes = 5008 : i64
// CHECK: tile.alloc {tile.shared_offset = 0 : i64} : memref<32x32xf32
// CHECK: tile.alloc {tile.shared_offset = 0 : i64} : memref<16x32xf32
// CHECK: tile.alloc {tile.shared_offset = 4608 : i64} : memref<100xf32
func.func @reuse(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %Y: memref<?xf32, strided<[1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : memref<32x32xf32, #tile.scope<shared>>
  %b = tile.alloc : memref<16x32xf32, #tile.scope<shared>>
  %c = tile.alloc : memref<100xf32, #tile.scope<shared>>
  tile.copy %Y[%c0] to %c : memref<?xf32, strided<[1], offset: ?>>, memref<100xf32, #tile.scope<shared>>
  tile.copy %X[%c0, %c0] to %a : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<32x32xf32, #tile.scope<shared>>
  tile.copy %a to %X[%c0, %c0] : memref<32x32xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %X[%c0, %c0] to %b : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<16x32xf32, #tile.scope<shared>>
  tile.copy %b to %X[%c0, %c0] : memref<16x32xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %c to %Y[%c0] : memref<100xf32, #tile.scope<shared>>, memref<?xf32, strided<[1], offset: ?>>
  return
}
