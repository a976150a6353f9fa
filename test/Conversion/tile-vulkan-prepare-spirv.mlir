// RUN: tlc-opt %s --tile-vulkan-prepare-spirv --split-input-file | FileCheck %s
// RUN: tlc-opt %s --tile-vulkan-prepare-spirv --split-input-file | FileCheck %s --check-prefix=NO64
// tile-vulkan-prepare-spirv: the tensor becomes a runtime array at binding
// 0 (and the f16 one at 1), the scalars words of the push constants (word 0: the tensor's element
// offset), views of it and of the shared bytes linear indices into 1-D
// roots, vector loads scalar loads, register arrays Function storage,
// elementwise ops on vectors of more than 4 lanes one op per lane. No
// 64-bit integers remain: i64 sizes become indices straight from their
// 32-bit words, an index widened to i64 to become a float is cast to i32.

// CHECK: gpu.module @tlc_kernels attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.5
// CHECK-SAME: subgroup_size = 8
// CHECK-LABEL: gpu.func @tlc_k(
// The block keeps the words the kernel reads: not word 2 (%m, which only
// the flattened view used).
// CHECK-SAME: %[[PUSH:.*]]: memref<4xi32, #spirv.storage_class<PushConstant>> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 2)>}
// CHECK-SAME: %[[X:.*]]: memref<?xf32> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0)>}
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>
// CHECK-SAME: tile.vulkan_push_words = array<i32: 0, 1, 3, 4>
// CHECK: %[[SHARED:.*]] = memref.alloc() : memref<64xf32, #spirv.storage_class<Workgroup>>
// CHECK: %[[W0:.*]] = memref.load %[[PUSH]][%{{.*}}] : memref<4xi32, #spirv.storage_class<PushConstant>>
// CHECK: %[[OFFSET:.*]] = arith.index_cast %[[W0]] : i32 to index
// CHECK: memref.alloca() : memref<4xf32, #spirv.storage_class<Function>>
// Row 1 of the view: its offset plus one row stride (folded).
// CHECK: %[[ROW:.*]] = arith.addi %[[OFFSET]], %{{.*}} : index
// The 2-lane vector load: one scalar load per lane, and the lane extracted
// is its load itself (lane 0's, unused, is gone).
// CHECK: %[[AT:.*]] = arith.addi %[[ROW]], %{{.*}} : index
// CHECK-NEXT: %[[LANE1:.*]] = memref.load %[[X]][%[[AT]]] : memref<?xf32>
// CHECK: memref.store %[[LANE1]], %{{.*}} : memref<4xf32, #spirv.storage_class<Function>>
// CHECK: memref.store %{{.*}}, %[[SHARED]][%{{.*}}] : memref<64xf32, #spirv.storage_class<Workgroup>>
// The 8-wide extf becomes 8 scalar ones on the loaded elements.
// CHECK-COUNT-8: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[LEN:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: arith.sitofp %[[LEN]] : i32 to f32
// CHECK-NOT: vector<8x
// CHECK-NOT: memref.reinterpret_cast
// CHECK-NOT: memref.view
// CHECK-NOT: gpu.dynamic_shared_memory
// NO64-NOT: {{i64 to|to i64|extsi}}
module attributes {gpu.container_module, tile.target = #tile.target<vendor = "vulkan", arch = "lavapipe", warp_size = 8, max_shared_bytes = 32768, max_threads = 1024, max_registers = 255, vector_bytes = 4, async_copy = false, mma = "">} {
  gpu.module @tlc_kernels {
    gpu.func @tlc_k(%x: memref<1xf32>, %m: i64, %n: i64, %s: i64, %h: memref<1xf16>) kernel attributes {tile.threads = 64 : i64, tile.shared_bytes = 256 : i64} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %mi = arith.index_cast %m : i64 to index
      %ni = arith.index_cast %n : i64 to index
      %si = arith.index_cast %s : i64 to index
      %v = memref.reinterpret_cast %x to offset: [0], sizes: [%mi, %ni], strides: [%si, 1] : memref<1xf32> to memref<?x?xf32, strided<[?, 1]>>
      %regs = memref.alloca() : memref<2x2xf32>
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8x8xf32, #gpu.address_space<workgroup>>
      %pair = vector.load %v[%c1, %c0] : memref<?x?xf32, strided<[?, 1]>>, vector<2xf32>
      %e = vector.extract %pair[1] : f32 from vector<2xf32>
      memref.store %e, %regs[%c1, %c1] : memref<2x2xf32>
      %r = memref.load %regs[%c1, %c1] : memref<2x2xf32>
      memref.store %r, %tile[%c1, %c0] : memref<8x8xf32, #gpu.address_space<workgroup>>
      %hv = memref.reinterpret_cast %h to offset: [0], sizes: [%ni], strides: [1] : memref<1xf16> to memref<?xf16, strided<[1]>>
      %eight = vector.load %hv[%c0] : memref<?xf16, strided<[1]>>, vector<8xf16>
      %wide = arith.extf %eight : vector<8xf16> to vector<8xf32>
      vector.store %wide, %v[%c0, %c0] : memref<?x?xf32, strided<[?, 1]>>, vector<8xf32>
      %len = arith.index_cast %ni : index to i64
      %lenf = arith.sitofp %len : i64 to f32
      memref.store %lenf, %regs[%c0, %c0] : memref<2x2xf32>
      gpu.return
    }
  }
}

// -----

// More words than Vulkan's guaranteed 128 bytes of push constants: they come
// in a storage buffer at the binding after the tensors.
// CHECK-LABEL: gpu.func @tlc_many(
// CHECK-SAME: memref<35xi32, #spirv.storage_class<StorageBuffer>> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 1)>}
// CHECK-SAME: tile.vulkan_params_buffer
module attributes {gpu.container_module, tile.target = #tile.target<vendor = "vulkan", arch = "lavapipe", warp_size = 8, max_shared_bytes = 32768, max_threads = 1024, max_registers = 255, vector_bytes = 4, async_copy = false, mma = "">} {
  gpu.module @tlc_kernels {
    gpu.func @tlc_many(%x: memref<1xi32>, %len: i64, %stride: i64, %a0: i32, %a1: i32, %a2: i32, %a3: i32, %a4: i32, %a5: i32, %a6: i32, %a7: i32, %a8: i32, %a9: i32, %a10: i32, %a11: i32, %a12: i32, %a13: i32, %a14: i32, %a15: i32, %a16: i32, %a17: i32, %a18: i32, %a19: i32, %a20: i32, %a21: i32, %a22: i32, %a23: i32, %a24: i32, %a25: i32, %a26: i32, %a27: i32, %a28: i32, %a29: i32, %a30: i32, %a31: i32, %a32: i32, %a33: i32) kernel attributes {tile.threads = 32 : i64, tile.shared_bytes = 0 : i64} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %c8 = arith.constant 8 : index
      %c9 = arith.constant 9 : index
      %c10 = arith.constant 10 : index
      %c11 = arith.constant 11 : index
      %c12 = arith.constant 12 : index
      %c13 = arith.constant 13 : index
      %c14 = arith.constant 14 : index
      %c15 = arith.constant 15 : index
      %c16 = arith.constant 16 : index
      %c17 = arith.constant 17 : index
      %c18 = arith.constant 18 : index
      %c19 = arith.constant 19 : index
      %c20 = arith.constant 20 : index
      %c21 = arith.constant 21 : index
      %c22 = arith.constant 22 : index
      %c23 = arith.constant 23 : index
      %c24 = arith.constant 24 : index
      %c25 = arith.constant 25 : index
      %c26 = arith.constant 26 : index
      %c27 = arith.constant 27 : index
      %c28 = arith.constant 28 : index
      %c29 = arith.constant 29 : index
      %c30 = arith.constant 30 : index
      %c31 = arith.constant 31 : index
      %c32 = arith.constant 32 : index
      %c33 = arith.constant 33 : index
      %y = memref.reinterpret_cast %x to offset: [0], sizes: [34], strides: [1] : memref<1xi32> to memref<34xi32, strided<[1]>>
      memref.store %a0, %y[%c0] : memref<34xi32, strided<[1]>>
      memref.store %a1, %y[%c1] : memref<34xi32, strided<[1]>>
      memref.store %a2, %y[%c2] : memref<34xi32, strided<[1]>>
      memref.store %a3, %y[%c3] : memref<34xi32, strided<[1]>>
      memref.store %a4, %y[%c4] : memref<34xi32, strided<[1]>>
      memref.store %a5, %y[%c5] : memref<34xi32, strided<[1]>>
      memref.store %a6, %y[%c6] : memref<34xi32, strided<[1]>>
      memref.store %a7, %y[%c7] : memref<34xi32, strided<[1]>>
      memref.store %a8, %y[%c8] : memref<34xi32, strided<[1]>>
      memref.store %a9, %y[%c9] : memref<34xi32, strided<[1]>>
      memref.store %a10, %y[%c10] : memref<34xi32, strided<[1]>>
      memref.store %a11, %y[%c11] : memref<34xi32, strided<[1]>>
      memref.store %a12, %y[%c12] : memref<34xi32, strided<[1]>>
      memref.store %a13, %y[%c13] : memref<34xi32, strided<[1]>>
      memref.store %a14, %y[%c14] : memref<34xi32, strided<[1]>>
      memref.store %a15, %y[%c15] : memref<34xi32, strided<[1]>>
      memref.store %a16, %y[%c16] : memref<34xi32, strided<[1]>>
      memref.store %a17, %y[%c17] : memref<34xi32, strided<[1]>>
      memref.store %a18, %y[%c18] : memref<34xi32, strided<[1]>>
      memref.store %a19, %y[%c19] : memref<34xi32, strided<[1]>>
      memref.store %a20, %y[%c20] : memref<34xi32, strided<[1]>>
      memref.store %a21, %y[%c21] : memref<34xi32, strided<[1]>>
      memref.store %a22, %y[%c22] : memref<34xi32, strided<[1]>>
      memref.store %a23, %y[%c23] : memref<34xi32, strided<[1]>>
      memref.store %a24, %y[%c24] : memref<34xi32, strided<[1]>>
      memref.store %a25, %y[%c25] : memref<34xi32, strided<[1]>>
      memref.store %a26, %y[%c26] : memref<34xi32, strided<[1]>>
      memref.store %a27, %y[%c27] : memref<34xi32, strided<[1]>>
      memref.store %a28, %y[%c28] : memref<34xi32, strided<[1]>>
      memref.store %a29, %y[%c29] : memref<34xi32, strided<[1]>>
      memref.store %a30, %y[%c30] : memref<34xi32, strided<[1]>>
      memref.store %a31, %y[%c31] : memref<34xi32, strided<[1]>>
      memref.store %a32, %y[%c32] : memref<34xi32, strided<[1]>>
      memref.store %a33, %y[%c33] : memref<34xi32, strided<[1]>>
      gpu.return
    }
  }
}
