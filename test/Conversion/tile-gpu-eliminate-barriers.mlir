// RUN: tlc-opt %s --tile-gpu-eliminate-barriers | FileCheck %s
// tile-gpu-eliminate-barriers keeps a gpu.barrier only between a write to
// shared (workgroup) memory and a later access, or a read and a later
// write, with no barrier between them; global accesses order nothing. The
// end of a block counts as any access, except in a pipelined loop's body.

// CHECK-LABEL: gpu.func @k
gpu.module @m {
  gpu.func @k(%g: memref<128xf32>, %i: index, %n: index) kernel {
    %s = memref.alloca() : memref<128xf32, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %v = memref.load %g[%i] : memref<128xf32>
    // A write to shared memory, then a read of it: of the barriers between
    // them one stays, the last (the others have no shared access after
    // them before the next barrier).
    // CHECK: memref.store %{{.*}}, %[[S:.*]][%{{.*}}] : memref<128xf32, #gpu.address_space<workgroup>>
    // CHECK-NEXT: memref.load %{{.*}} : memref<128xf32>
    // CHECK-NEXT: gpu.barrier
    // CHECK-NEXT: memref.load %[[S]]
    memref.store %v, %s[%i] : memref<128xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %g[%c0] : memref<128xf32>
    gpu.barrier
    gpu.barrier
    %x = memref.load %s[%c0] : memref<128xf32, #gpu.address_space<workgroup>>
    // A read, then a read: removed.
    // CHECK-NEXT: memref.load %[[S]]
    gpu.barrier
    %y = memref.load %s[%c1] : memref<128xf32, #gpu.address_space<workgroup>>
    // Reads, then a write: kept.
    // CHECK-NEXT: gpu.barrier
    // CHECK-NEXT: memref.store {{.*}} %[[S]]
    gpu.barrier
    memref.store %x, %s[%c1] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %y, %g[%c0] : memref<128xf32>
    memref.store %w, %g[%c1] : memref<128xf32>
    // In a pipelined loop the body's end is followed by the next
    // iteration's leading barrier: the trailing one goes. In a plain loop it
    // stays (the end counts as any access).
    // CHECK: scf.for
    // CHECK-NEXT: gpu.barrier
    // CHECK-NEXT: memref.store
    // CHECK-NEXT: } {tile.pipelined}
    scf.for %k = %c0 to %n step %c1 {
      gpu.barrier
      memref.store %v, %s[%k] : memref<128xf32, #gpu.address_space<workgroup>>
      gpu.barrier
    } {tile.pipelined}
    // CHECK: scf.for
    // CHECK-NEXT: gpu.barrier
    // CHECK-NEXT: memref.store
    // CHECK-NEXT: gpu.barrier
    // CHECK-NEXT: }
    scf.for %k = %c0 to %n step %c1 {
      gpu.barrier
      memref.store %v, %s[%k] : memref<128xf32, #gpu.address_space<workgroup>>
      gpu.barrier
    }
    gpu.return
  }

  // A shared address taken (wgmma's matrix descriptors read through it)
  // counts as any access: the barrier between a write and it stays.
  // CHECK-LABEL: gpu.func @descriptor
  // CHECK: memref.store
  // CHECK-NEXT: gpu.barrier
  // CHECK-NEXT: memref.extract_aligned_pointer_as_index
  gpu.func @descriptor(%v: f32, %i: index) kernel {
    %s = memref.alloca() : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %v, %s[%i] : memref<128xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %p = memref.extract_aligned_pointer_as_index %s : memref<128xf32, #gpu.address_space<workgroup>> -> index
    %q = arith.index_cast %p : index to i64
    gpu.barrier
    gpu.return
  }

  // An address marked tile.read_only_address (a wgmma descriptor's) counts
  // as a read: the barrier between two of them goes, the one before a
  // later write stays.
  // CHECK-LABEL: gpu.func @read_only_descriptor
  // CHECK: gpu.barrier
  // CHECK-NEXT: memref.extract_aligned_pointer_as_index {{.*}} {tile.read_only_address}
  // CHECK-NEXT: memref.extract_aligned_pointer_as_index {{.*}} {tile.read_only_address}
  // CHECK-NEXT: gpu.barrier
  // CHECK-NEXT: memref.store
  gpu.func @read_only_descriptor(%v: f32, %i: index) kernel {
    %s = memref.alloca() : memref<128xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %p = memref.extract_aligned_pointer_as_index %s : memref<128xf32, #gpu.address_space<workgroup>> -> index {tile.read_only_address}
    gpu.barrier
    %q = memref.extract_aligned_pointer_as_index %s : memref<128xf32, #gpu.address_space<workgroup>> -> index {tile.read_only_address}
    gpu.barrier
    memref.store %v, %s[%i] : memref<128xf32, #gpu.address_space<workgroup>>
    gpu.return
  }

  // A barrier marked tile.mma_reads_done follows a wait for asynchronous
  // MMAs: their shared reads end there, so it counts a read before it and
  // stays before a write although a barrier that must stay (a global-order
  // one) lies between the descriptor and it. Unmarked, it goes.
  // CHECK-LABEL: gpu.func @mma_reads_done
  // CHECK: memref.extract_aligned_pointer_as_index {{.*}} {tile.read_only_address}
  // CHECK-NEXT: gpu.barrier {tile.global_order}
  // CHECK-NEXT: memref.store {{.*}} : memref<128xf32>
  // CHECK-NEXT: gpu.barrier {tile.mma_reads_done}
  // CHECK-NEXT: memref.store {{.*}}#gpu.address_space<workgroup>
  // CHECK-NEXT: memref.extract_aligned_pointer_as_index {{.*}} {tile.read_only_address}
  // CHECK-NEXT: gpu.barrier {tile.global_order}
  // CHECK-NEXT: memref.store {{.*}} : memref<128xf32>
  // CHECK-NEXT: memref.store {{.*}}#gpu.address_space<workgroup>
  gpu.func @mma_reads_done(%g: memref<128xf32>, %v: f32, %i: index) kernel {
    %s = memref.alloca() : memref<128xf32, #gpu.address_space<workgroup>>
    %p = memref.extract_aligned_pointer_as_index %s : memref<128xf32, #gpu.address_space<workgroup>> -> index {tile.read_only_address}
    gpu.barrier {tile.global_order}
    memref.store %v, %g[%i] : memref<128xf32>
    gpu.barrier {tile.mma_reads_done}
    memref.store %v, %s[%i] : memref<128xf32, #gpu.address_space<workgroup>>
    %q = memref.extract_aligned_pointer_as_index %s : memref<128xf32, #gpu.address_space<workgroup>> -> index {tile.read_only_address}
    gpu.barrier {tile.global_order}
    memref.store %v, %g[%i] : memref<128xf32>
    gpu.barrier
    memref.store %v, %s[%i] : memref<128xf32, #gpu.address_space<workgroup>>
    gpu.return
  }

  // A pipelined body without a leading barrier (a warp-specialized
  // consumer loop): its start follows the previous iteration's accesses
  // after its last barrier and, the first time, the loop's block after its
  // last barrier; its end runs on into the next iteration's start.
  // CHECK-LABEL: gpu.func @consumer_loops
  // CHECK: memref.store
  // CHECK-NEXT: gpu.barrier
  // CHECK-NEXT: scf.for
  // Only reads: the barrier goes.
  // CHECK-NEXT: memref.extract_aligned_pointer_as_index
  // CHECK-NEXT: memref.load
  // CHECK-NEXT: } {tile.pipelined}
  // The previous iteration's write, a read, then a write: kept.
  // CHECK: scf.for
  // CHECK-NEXT: memref.load
  // CHECK-NEXT: gpu.barrier
  // CHECK-NEXT: memref.store
  // CHECK-NEXT: } {tile.pipelined}
  // A write before the loop, then the loop's reads: the first iteration
  // needs the barrier (the loop's block has none between them).
  // CHECK: memref.store
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: gpu.barrier
  // CHECK-NEXT: memref.load
  // CHECK-NEXT: } {tile.pipelined}
  gpu.func @consumer_loops(%v: f32, %n: index) kernel {
    %s = memref.alloca() : memref<128xf32, #gpu.address_space<workgroup>>
    %t = memref.alloca() : memref<128xf32, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    memref.store %v, %s[%c0] : memref<128xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    scf.for %k = %c0 to %n step %c1 {
      %p = memref.extract_aligned_pointer_as_index %s : memref<128xf32, #gpu.address_space<workgroup>> -> index {tile.read_only_address}
      gpu.barrier
      %x = memref.load %s[%k] : memref<128xf32, #gpu.address_space<workgroup>>
    } {tile.pipelined}
    gpu.barrier
    scf.for %k = %c0 to %n step %c1 {
      %y = memref.load %t[%k] : memref<128xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      memref.store %v, %t[%k] : memref<128xf32, #gpu.address_space<workgroup>>
    } {tile.pipelined}
    gpu.barrier
    memref.store %v, %s[%c1] : memref<128xf32, #gpu.address_space<workgroup>>
    scf.for %k = %c0 to %n step %c1 {
      gpu.barrier
      %z = memref.load %s[%k] : memref<128xf32, #gpu.address_space<workgroup>>
    } {tile.pipelined}
    gpu.return
  }
}
