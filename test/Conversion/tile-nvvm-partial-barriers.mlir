// RUN: tlc-opt %s -split-input-file -verify-diagnostics --tile-nvvm-partial-barriers | FileCheck %s
// In a warp-specialized kernel the barriers of the consumers' region (the
// op with tile.consumer_threads = N) wait for those N threads alone: named
// barrier 1; barrier 0 outside stays the whole block's.

// CHECK-LABEL: gpu.func @roles
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-DAG: %[[ID:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 256 : i32
// CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %[[N]]
// CHECK-NOT: gpu.barrier
// CHECK: } else {
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
gpu.module @k {
  gpu.func @roles(%consumer: i1) kernel {
    gpu.barrier
    scf.if %consumer {
      gpu.barrier
    } else {
    } {tile.consumer_threads = 256 : i64}
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @ragged(%consumer: i1) kernel {
    scf.if %consumer {
      // expected-error @+1 {{consumer threads (100) are not whole warps}}
      gpu.barrier
    } {tile.consumer_threads = 100 : i64}
    gpu.return
  }
}
