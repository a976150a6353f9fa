// RUN: tlc-opt %s --tile-vulkan-prepare-spirv --tile-vulkan-convert-to-spirv | FileCheck %s
// tile-vulkan-convert-to-spirv: the prepared gpu.module becomes a
// spirv.module; math.erf becomes its polynomial, math.exp2 GL Exp2, an
// atomic f32 add OpAtomicFAddEXT, the workgroup array a global variable;
// bf16 values are carried as i16, a select between them too; a barrier
// ordering global memory (tile.global_order) orders buffer memory too.

// CHECK: spirv.module @__spv__tlc_kernels Logical GLSL450
// CHECK: spirv.GlobalVariable @__workgroup_mem__0 : !spirv.ptr<!spirv.struct<(!spirv.array<64 x f32>)>, Workgroup>
// CHECK: spirv.func @tlc_k
// CHECK: spirv.GL.Exp2
// CHECK-NOT: math.erf
// CHECK: spirv.EXT.AtomicFAdd <Device> <None>
// CHECK: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|UniformMemory|WorkgroupMemory>
// CHECK: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>{{$}}
// CHECK: spirv.func @tlc_pick
// CHECK: spirv.Select %{{.*}}, %{{.*}}, %{{.*}} : i1, i16
// CHECK-NOT: gpu.module
module attributes {gpu.container_module, tile.target = #tile.target<vendor = "vulkan", arch = "lavapipe", warp_size = 8, max_shared_bytes = 32768, max_threads = 1024, max_registers = 255, vector_bytes = 4, async_copy = false, mma = "">} {
  gpu.module @tlc_kernels {
    gpu.func @tlc_k(%x: memref<1xf32>, %n: i64) kernel attributes {tile.threads = 64 : i64, tile.shared_bytes = 256 : i64} {
      %c0 = arith.constant 0 : index
      %ni = arith.index_cast %n : i64 to index
      %v = memref.reinterpret_cast %x to offset: [0], sizes: [%ni], strides: [1] : memref<1xf32> to memref<?xf32, strided<[1]>>
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
      %a = memref.load %v[%c0] : memref<?xf32, strided<[1]>>
      %b = math.exp2 %a : f32
      %c = math.erf %b : f32
      memref.store %c, %tile[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      %d = memref.load %tile[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      %old = memref.atomic_rmw addf %d, %v[%c0] : (f32, memref<?xf32, strided<[1]>>) -> f32
      gpu.barrier {tile.global_order}
      gpu.barrier
      gpu.return
    }
    gpu.func @tlc_pick(%x: memref<1xbf16>, %n: i64) kernel attributes {tile.threads = 64 : i64, tile.shared_bytes = 0 : i64} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0.0 : bf16
      %ni = arith.index_cast %n : i64 to index
      %v = memref.reinterpret_cast %x to offset: [0], sizes: [%ni], strides: [1] : memref<1xbf16> to memref<?xbf16, strided<[1]>>
      %a = memref.load %v[%c0] : memref<?xbf16, strided<[1]>>
      %big = arith.cmpi ugt, %ni, %c1 : index
      %p = arith.select %big, %a, %zero : bf16
      memref.store %p, %v[%c1] : memref<?xbf16, strided<[1]>>
      gpu.return
    }
  }
}
