// RUN: tlc-opt %s --tile-vulkan-prepare-spirv | FileCheck %s
// tile-vulkan-prepare-spirv: the tensor becomes a runtime array at binding
// 0, the scalars words of the push constants (word 0: the tensor's element
// offset), views of it and of the shared bytes linear indices into 1-D
// roots, vector loads scalar loads, register arrays Function storage.

// CHECK: gpu.module @tlc_kernels attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.5
// CHECK-SAME: subgroup_size = 8
// CHECK-LABEL: gpu.func @tlc_k(
// CHECK-SAME: %[[PUSH:.*]]: memref<4xi32, #spirv.storage_class<PushConstant>> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 1)>}
// CHECK-SAME: %[[X:.*]]: memref<?xf32> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0)>}
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>
// CHECK-SAME: tile.vulkan_push_words = 4
// CHECK: %[[SHARED:.*]] = memref.alloc() : memref<64xf32, #spirv.storage_class<Workgroup>>
// CHECK: %[[W0:.*]] = memref.load %[[PUSH]][%c0] : memref<4xi32, #spirv.storage_class<PushConstant>>
// CHECK: %[[OFFSET:.*]] = arith.index_cast %[[W0]] : i32 to index
// CHECK: memref.alloca() : memref<4xf32, #spirv.storage_class<Function>>
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: memref.load %[[X]][%{{.*}}] : memref<?xf32>
// CHECK: memref.load %[[X]][%{{.*}}] : memref<?xf32>
// CHECK: vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK: memref.store %{{.*}}, %[[SHARED]][%{{.*}}] : memref<64xf32, #spirv.storage_class<Workgroup>>
// CHECK-NOT: memref.reinterpret_cast
// CHECK-NOT: memref.view
// CHECK-NOT: gpu.dynamic_shared_memory
module attributes {gpu.container_module, tile.target = #tile.target<vendor = "vulkan", arch = "lavapipe", warp_size = 8, max_shared_bytes = 32768, max_threads = 1024, max_registers = 255, vector_bytes = 4, async_copy = false, mma = "">} {
  gpu.module @tlc_kernels {
    gpu.func @tlc_k(%x: memref<1xf32>, %m: i64, %n: i64, %s: i64) kernel attributes {tile.threads = 64 : i64, tile.shared_bytes = 256 : i64} {
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
      gpu.return
    }
  }
}
