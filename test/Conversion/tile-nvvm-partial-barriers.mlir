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

// -----

// A barrier of all consumers while a warpgroup holds its turn (between its
// turn barrier and the arrival passing the turn on) would never complete:
// the next warpgroup waits for that arrival. (The turn ops in generic
// form: the custom one would take the attribute dictionary for its
// reduction.)
gpu.module @k {
  gpu.func @turn(%consumer: i1, %id: i32, %next: i32) kernel {
    %n = arith.constant 256 : i32
    scf.if %consumer {
      "nvvm.barrier"(%id, %n) <{operandSegmentSizes = array<i32: 1, 1, 0>}> {tile.warpgroup_turn} : (i32, i32) -> ()
      // expected-error @+1 {{a barrier of all consumers inside a warpgroup's turn would never complete}}
      gpu.barrier
      "nvvm.barrier.arrive"(%next, %n) {tile.warpgroup_turn} : (i32, i32) -> ()
    } {tile.consumer_threads = 256 : i64}
    gpu.return
  }
}

// -----

// After the turn is passed on, consumer barriers are fine.
// CHECK-LABEL: gpu.func @after_turn
// CHECK: nvvm.barrier.arrive
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
gpu.module @k {
  gpu.func @after_turn(%consumer: i1, %id: i32, %next: i32) kernel {
    %n = arith.constant 256 : i32
    scf.if %consumer {
      "nvvm.barrier"(%id, %n) <{operandSegmentSizes = array<i32: 1, 1, 0>}> {tile.warpgroup_turn} : (i32, i32) -> ()
      "nvvm.barrier.arrive"(%next, %n) {tile.warpgroup_turn} : (i32, i32) -> ()
      gpu.barrier
    } {tile.consumer_threads = 256 : i64}
    gpu.return
  }
}
