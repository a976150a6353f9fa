// RUN: tlc-opt %s --tile-attach-target --tile-infer-layouts --tile-gpu-kernel-abi --tile-plan-pipelines --tile-gpu-tensor-copy-fallback | FileCheck %s
// RUN: tlc-opt %s '--tile-attach-target=target=cuda arch=sm_80' --tile-infer-layouts --tile-gpu-kernel-abi --tile-plan-pipelines --tile-gpu-tensor-copy-fallback | FileCheck %s --check-prefix=SM80
// A kernel whose pipelined copies run on the tensor-copy unit (TMA on
// sm_90a: tile.tensor_copy) gets a twin tlc_NAME$fallback without them,
// named in tile.fallback; the stub launches the twin when a tensor breaks
// TMA's rules. Kernels without tensor copies (sm_80) stay alone.

// CHECK-LABEL: gpu.func @tlc_gemm(
// CHECK-SAME: tile.fallback = "tlc_gemm$fallback"
// CHECK: tile.copy {{.*}} {tile.async, tile.tensor_copy}
// CHECK: tile.copy {{.*}} {tile.async, tile.tensor_copy}
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @tlc_gemm$fallback(
// CHECK-NOT: tile.fallback
// CHECK-NOT: tile.tensor_copy
// CHECK: tile.copy {{.*}} {tile.async}
// CHECK-NOT: tile.tensor_copy
// CHECK: gpu.return

// SM80-NOT: $fallback
// SM80-NOT: tile.tensor_copy
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
