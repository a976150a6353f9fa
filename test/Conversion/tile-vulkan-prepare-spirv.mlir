// RUN: tlc-opt %s --tile-vulkan-prepare-spirv | FileCheck %s
// RUN: tlc-opt %s --tile-vulkan-prepare-spirv | FileCheck %s --check-prefix=NO64
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
// CHECK-SAME: %[[PUSH:.*]]: memref<5xi32, #spirv.storage_class<PushConstant>> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 2)>}
// CHECK-SAME: %[[X:.*]]: memref<?xf32> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0)>}
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>
// CHECK-SAME: tile.vulkan_push_words = 5
// CHECK: %[[SHARED:.*]] = memref.alloc() : memref<64xf32, #spirv.storage_class<Workgroup>>
// CHECK: %[[W0:.*]] = memref.load %[[PUSH]][%c0] : memref<5xi32, #spirv.storage_class<PushConstant>>
// CHECK: %[[OFFSET:.*]] = arith.index_cast %[[W0]] : i32 to index
// CHECK: memref.alloca() : memref<4xf32, #spirv.storage_class<Function>>
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// The 2-lane vector load: two scalar loads; the lane extracted is the
// second load itself.
// CHECK: memref.load %[[X]][%{{.*}}] : memref<?xf32>
// CHECK: %[[LANE1:.*]] = memref.load %[[X]][%{{.*}}] : memref<?xf32>
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
