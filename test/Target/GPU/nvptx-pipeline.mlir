// REQUIRES: cuda-toolkit
// The upstream path the CUDA target builds on, through tlc-opt: a gpu.func
// lowered to NVVM, translated to PTX for sm_90a (PTX 8.0, libdevice linked
// for math) and assembled by ptxas into a cubin. Memref arguments expand to
// (allocated, aligned, offset, sizes..., strides...).
// RUN: tlc-opt %s --pass-pipeline='builtin.module(nvvm-attach-target{chip=sm_90a features=+ptx80 O=3},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm{index-bitwidth=64},canonicalize),reconcile-unrealized-casts,gpu-module-to-binary{format=isa toolkit=/usr/local/cuda})' | FileCheck %s --check-prefix=PTX
// RUN: tlc-opt %s --pass-pipeline='builtin.module(nvvm-attach-target{chip=sm_90a features=+ptx80 O=3},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm{index-bitwidth=64},canonicalize),reconcile-unrealized-casts,gpu-module-to-binary{format=bin toolkit=/usr/local/cuda})' | FileCheck %s --check-prefix=CUBIN

// PTX: gpu.binary @tlc_kernels
// PTX-SAME: .target sm_90a
// PTX-SAME: .visible .entry tlc_axpy(
// PTX-SAME: .param .u64 .ptr .align 1 tlc_axpy_param_0
// PTX-SAME: .param .f32 tlc_axpy_param_10
// PTX-SAME: ex2.approx
// PTX-NOT: __nv_expf
// CUBIN: gpu.binary @tlc_kernels {{.*}}bin = "\7FELF

module attributes {gpu.container_module} {
  gpu.module @tlc_kernels {
    gpu.func @tlc_axpy(%x: memref<?xf32, strided<[1], offset: ?>>,
                       %y: memref<?xf32, strided<[1], offset: ?>>,
                       %alpha: f32) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c128 = arith.constant 128 : index
      %base = arith.muli %bid, %c128 : index
      %i = arith.addi %base, %tid : index
      %c0 = arith.constant 0 : index
      %n = memref.dim %x, %c0 : memref<?xf32, strided<[1], offset: ?>>
      %in = arith.cmpi slt, %i, %n : index
      scf.if %in {
        %v = memref.load %x[%i] : memref<?xf32, strided<[1], offset: ?>>
        %w = memref.load %y[%i] : memref<?xf32, strided<[1], offset: ?>>
        %e = math.exp %v : f32
        %r = arith.mulf %e, %alpha : f32
        %s = arith.addf %r, %w : f32
        memref.store %s, %y[%i] : memref<?xf32, strided<[1], offset: ?>>
      }
      gpu.return
    }
  }
}
