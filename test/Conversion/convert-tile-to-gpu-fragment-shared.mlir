// RUN: tlc-opt %s --tile-attach-target --tile-gpu-kernel-abi --tile-plan-shared-memory --convert-tile-to-gpu | FileCheck %s
// (No tile-infer-layouts: the fragments keep the layouts written here.)

// A fragment copied into a shared tile: runs of consecutive elements a
// thread holds become vector stores (here pairs: slot factor of 2 along
// the columns); a layout whose columns are spread over threads only (no
// runs) stores element by element.
// CHECK-LABEL: gpu.func @tlc_fragment_to_shared
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {{.*}} : memref<64x4xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK-NOT: vector.store
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<2x128xf32, strided<[132, 1]>, #gpu.address_space<workgroup>>
// CHECK: gpu.return
func.func @fragment_to_shared(%Y: memref<?x?xf32, strided<[?, 1], offset: ?>>, %Z: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {tile.kernel, tile.threads = 128 : i64, tile.grid_rank = 1 : i64} {
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %pairs = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [0, 1, 1], extents = [64, 2, 2], thread_strides = [1, 64, 0], slot_strides = [0, 0, 1]>} : memref<64x4xf32, #tile.scope<fragment>>
  %spread = tile.alloc {tile.layout = #tile.layout<threads = 128, dims = [1, 0], extents = [128, 2], thread_strides = [1, 0], slot_strides = [0, 1]>} : memref<2x128xf32, #tile.scope<fragment>>
  %s = tile.alloc : memref<64x4xf32, #tile.scope<shared>>
  %t = tile.alloc : memref<2x128xf32, #tile.scope<shared>>
  tile.fill %pairs, %one : memref<64x4xf32, #tile.scope<fragment>>, f32
  tile.fill %spread, %one : memref<2x128xf32, #tile.scope<fragment>>, f32
  tile.copy %pairs to %s : memref<64x4xf32, #tile.scope<fragment>>, memref<64x4xf32, #tile.scope<shared>>
  tile.copy %spread to %t : memref<2x128xf32, #tile.scope<fragment>>, memref<2x128xf32, #tile.scope<shared>>
  tile.copy %s to %Y[%c0, %c0] : memref<64x4xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  tile.copy %t to %Z[%c0, %c0] : memref<2x128xf32, #tile.scope<shared>>, memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}
