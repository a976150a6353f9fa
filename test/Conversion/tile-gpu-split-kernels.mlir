// RUN: tlc-opt %s --tile-gpu-split-kernels | FileCheck %s
// RUN: tlc-opt %s --tile-gpu-split-kernels --tile-gpu-merge-kernels | FileCheck %s --check-prefix=ROUND
// tile-gpu-split-kernels gives each kernel of a gpu.module a module of its
// own, after the original, with its attributes; a module holding anything
// but kernels keeps them together. Split and merged again, the module is
// what it was.

// CHECK-LABEL: gpu.module @tlc_kernels [#nvvm.target<chip = "sm_90a">] {
// CHECK-NEXT: gpu.func @a() kernel
// CHECK: gpu.module @tlc_kernels_1 [#nvvm.target<chip = "sm_90a">] attributes {tile.split_from = "tlc_kernels"} {
// CHECK-NEXT: gpu.func @b() kernel
// CHECK: gpu.module @tlc_kernels_2 [#nvvm.target<chip = "sm_90a">] attributes {tile.split_from = "tlc_kernels"} {
// CHECK-NEXT: gpu.func @c() kernel
// ROUND-LABEL: gpu.module @tlc_kernels [#nvvm.target<chip = "sm_90a">] {
// ROUND-NEXT: gpu.func @a() kernel
// ROUND: gpu.func @b() kernel
// ROUND: gpu.func @c() kernel
// ROUND-NOT: gpu.module @tlc_kernels_
gpu.module @tlc_kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @a() kernel {
    gpu.return
  }
  gpu.func @b() kernel {
    gpu.return
  }
  gpu.func @c() kernel {
    gpu.return
  }
}

// A name that is taken: the next free one.
// CHECK-LABEL: gpu.module @m {
// CHECK-NEXT: gpu.func @d() kernel
// CHECK: gpu.module @m_1_0 attributes {tile.split_from = "m"} {
// CHECK-NEXT: gpu.func @e() kernel
// CHECK: gpu.module @m_1 {
gpu.module @m {
  gpu.func @d() kernel {
    gpu.return
  }
  gpu.func @e() kernel {
    gpu.return
  }
}
gpu.module @m_1 {
}

// A helper the kernels share: not split.
// CHECK-LABEL: gpu.module @shared {
// CHECK-NEXT: gpu.func @f() kernel
// CHECK: gpu.func @g() kernel
// CHECK: gpu.func @helper()
// CHECK-NOT: gpu.module @shared_
gpu.module @shared {
  gpu.func @f() kernel {
    gpu.return
  }
  gpu.func @g() kernel {
    gpu.return
  }
  gpu.func @helper() {
    gpu.return
  }
}
