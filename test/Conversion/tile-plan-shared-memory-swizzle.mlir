// RUN: tlc-opt %s -split-input-file --tile-attach-target --tile-infer-layouts --tile-gpu-kernel-abi --tile-plan-pipelines --tile-plan-shared-memory | FileCheck %s
// RUN: tlc-opt %s -split-input-file '--tile-attach-target=target=cuda arch=sm_80' --tile-infer-layouts --tile-gpu-kernel-abi --tile-plan-pipelines --tile-plan-shared-memory | FileCheck %s --check-prefix=SM80
// On sm_90a, tile-plan-shared-memory (and tile-plan-pipelines, so that both
// count the same bytes) keeps the operand tiles of a wgmma gemm swizzled
// (tile.swizzle: the widest of 128, 64, 32 bytes that divides a row),
// unpadded, at 1024-byte aligned offsets, with 1024 bytes of slack for
// aligning the base at run time. The copies become TMA copies
// (tile.tensor_copy) with one 8-byte copy barrier per stage behind the tiles
// (tile.copy_barriers on the loop).

// As 128 x 64 bf16 (rows of 128 bytes) and Bs 64 x 128 (256 bytes: two
// 128-byte atoms), 16384 bytes each x 3 buffers: 0 and 49152, 98304 + 1024,
// then 3 barriers.
// CHECK-LABEL: gpu.func @tlc_gemm
// CHECK-SAME: tile.shared_bytes = 99352 : i64
// CHECK: tile.alloc {tile.buffers = 3 : i64, tile.shared_offset = 0 : i64, tile.swizzle = 128 : i64} : memref<128x64xbf16
// CHECK: tile.alloc {tile.buffers = 3 : i64, tile.shared_offset = 49152 : i64, tile.swizzle = 128 : i64} : memref<64x128xbf16
// CHECK: tile.copy {{.*}} {tile.async, tile.tensor_copy}
// CHECK: tile.copy {{.*}} {tile.async, tile.tensor_copy}
// CHECK: tile.copy_barriers = 99328 : i64
// sm_80 has no wgmma: padded rows (144 and 272 bytes), no swizzle.
// SM80-LABEL: gpu.func @tlc_gemm
// SM80-SAME: tile.shared_bytes = 107520 : i64
// SM80-NOT: tile.swizzle
// SM80: tile.alloc {tile.buffers = 3 : i64, tile.shared_offset = 0 : i64} : memref<128x64xbf16
// SM80: tile.alloc {tile.buffers = 3 : i64, tile.shared_offset = 55296 : i64} : memref<64x128xbf16
// SM80-NOT: tile.tensor_copy
// SM80-NOT: tile.copy_barriers
// SM80: return
func.func @gemm(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.000000e+00 : f32
  %acc = tile.alloc : memref<128x128xf32, #tile.scope<fragment>>
  %As = tile.alloc : memref<128x64xbf16, #tile.scope<shared>>
  %Bs = tile.alloc : memref<64x128xbf16, #tile.scope<shared>>
  tile.fill %acc, %cst : memref<128x128xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %n step %c1 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<128x64xbf16, #tile.scope<shared>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<64x128xbf16, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<128x64xbf16, #tile.scope<shared>>, memref<64x128xbf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
  } {tile.stages = 3 : i64}
  tile.copy %acc to %A[%c0, %c0] : memref<128x128xf32, #tile.scope<fragment>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  return
}

// -----

// Rows of 64 bytes (BK = 32) and of 192 bytes (three 64-byte atoms): 64-byte
// swizzles, 6144 + 6144 + 4096 bytes at 1024-aligned offsets. Ws is [N, K]
// (trans_b).
// CHECK-LABEL: gpu.func @tlc_narrow
// CHECK-SAME: tile.shared_bytes = 17408 : i64
// CHECK: tile.alloc {tile.shared_offset = 12288 : i64, tile.swizzle = 64 : i64} : memref<64x32xf16
// CHECK: tile.alloc {tile.shared_offset = 0 : i64, tile.swizzle = 64 : i64} : memref<96x32xf16
// CHECK: tile.alloc {tile.shared_offset = 6144 : i64, tile.swizzle = 64 : i64} : memref<32x96xf16
func.func @narrow(%A: memref<?x?xf16, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %acc = tile.alloc : memref<64x96xf32, #tile.scope<fragment>>
  %As = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
  %Ws = tile.alloc : memref<96x32xf16, #tile.scope<shared>>
  %Bs = tile.alloc : memref<32x96xf16, #tile.scope<shared>>
  tile.copy %A[%c0, %c0] to %As : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<64x32xf16, #tile.scope<shared>>
  tile.copy %A[%c0, %c0] to %Ws : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<96x32xf16, #tile.scope<shared>>
  tile.copy %A[%c0, %c0] to %Bs : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<32x96xf16, #tile.scope<shared>>
  tile.gemm %As, %Ws, %acc {clear, transpose_b} : memref<64x32xf16, #tile.scope<shared>>, memref<96x32xf16, #tile.scope<shared>>, memref<64x96xf32, #tile.scope<fragment>>
  tile.gemm %As, %Bs, %acc : memref<64x32xf16, #tile.scope<shared>>, memref<32x96xf16, #tile.scope<shared>>, memref<64x96xf32, #tile.scope<fragment>>
  tile.copy %acc to %A[%c0, %c0] : memref<64x96xf32, #tile.scope<fragment>>, memref<?x?xf16, strided<[?, 1], offset: ?>>
  return
}

// -----

// A tile that is also read by a copy out of it cannot be swizzled (only
// whole-tile copies in and gemms know the layout): that gemm stays on
// mma.sync, unswizzled and padded.
// CHECK-LABEL: gpu.func @tlc_read_back
// CHECK-NOT: tile.swizzle
// CHECK: return
func.func @read_back(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %acc = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
  %As = tile.alloc : memref<64x64xbf16, #tile.scope<shared>>
  %Bs = tile.alloc : memref<64x64xbf16, #tile.scope<shared>>
  tile.copy %A[%c0, %c0] to %As : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<64x64xbf16, #tile.scope<shared>>
  tile.copy %A[%c0, %c0] to %Bs : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<64x64xbf16, #tile.scope<shared>>
  tile.gemm %As, %Bs, %acc {clear} : memref<64x64xbf16, #tile.scope<shared>>, memref<64x64xbf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  tile.copy %As to %A[%c0, %c0] : memref<64x64xbf16, #tile.scope<shared>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  tile.copy %acc to %A[%c0, %c0] : memref<64x64xf32, #tile.scope<fragment>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  return
}

// -----

// Two warpgroups of 256 threads: warp-specialized (a producer warpgroup
// issues the TMA copies: tile.producer_threads), with a full and an empty
// barrier per stage. As 16384 bytes and Bs 32768, 4 buffers each: 0 and
// 65536, 196608 + 1024 bytes of slack, then 8 barriers. sm_80: neither.
// CHECK-LABEL: gpu.func @tlc_gemm_ws
// CHECK-SAME: tile.shared_bytes = 197696 : i64
// CHECK: tile.copy_barriers = 197632 : i64
// CHECK-SAME: tile.producer_threads = 128 : i64
// SM80-LABEL: gpu.func @tlc_gemm_ws
// SM80-NOT: tile.producer_threads
// SM80: return
func.func @gemm_ws(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index)
    attributes {tile.kernel, tile.threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.000000e+00 : f32
  %acc = tile.alloc : memref<128x256xf32, #tile.scope<fragment>>
  %As = tile.alloc : memref<128x64xbf16, #tile.scope<shared>>
  %Bs = tile.alloc : memref<64x256xbf16, #tile.scope<shared>>
  tile.fill %acc, %cst : memref<128x256xf32, #tile.scope<fragment>>, f32
  scf.for %k = %c0 to %n step %c1 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<128x64xbf16, #tile.scope<shared>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #tile.scope<shared>>
    tile.gemm %As, %Bs, %acc : memref<128x64xbf16, #tile.scope<shared>>, memref<64x256xbf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
  } {tile.stages = 4 : i64}
  tile.copy %acc to %A[%c0, %c0] : memref<128x256xf32, #tile.scope<fragment>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
  return
}
