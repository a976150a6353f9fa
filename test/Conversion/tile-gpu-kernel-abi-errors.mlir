// RUN: tlc-opt %s -split-input-file -verify-diagnostics --tile-gpu-kernel-abi --convert-tile-to-gpu
// The GPU passes take every target fact from the module's #tile.target:
// tile-gpu-kernel-abi stops without one, and for a kernel whose thread
// count is missing or beyond the target's largest block; convert-tile-to-gpu
// stops for a vendor with no GPU lowering.

// expected-error @+1 {{tile-gpu-kernel-abi needs the target description (#tile.target) on the module}}
module {
func.func @k() attributes {tile.kernel, tile.threads = 128 : i64} {
  return
}
}

// -----

// expected-error @+1 {{no GPU lowering for target 'npu'}}
module attributes {tile.target = #tile.target<vendor = "npu", arch = "x1", warp_size = 32, max_shared_bytes = 1024, max_threads = 1024, max_registers = 255, vector_bytes = 16, async_copy = false, mma = "">} {
func.func @k() attributes {tile.kernel, tile.threads = 128 : i64} {
  return
}
}

// -----

module attributes {tile.target = #tile.target<vendor = "cuda", arch = "sm_90a", warp_size = 32, max_shared_bytes = 1024, max_threads = 1024, max_registers = 255, vector_bytes = 16, async_copy = false, mma = "">} {
// expected-error @+1 {{kernel needs tile.threads between 1 and 1024}}
func.func @no_threads() attributes {tile.kernel} {
  return
}
}

// -----

module attributes {tile.target = #tile.target<vendor = "rocm", arch = "gfx942", warp_size = 64, max_shared_bytes = 65536, max_threads = 1024, max_registers = 256, vector_bytes = 16, async_copy = false, mma = "">} {
// expected-error @+1 {{kernel needs tile.threads between 1 and 1024}}
func.func @too_many_threads() attributes {tile.kernel, tile.threads = 2048 : i64} {
  return
}
}

// -----

module attributes {tile.target = #tile.target<vendor = "cuda", arch = "sm_90a", warp_size = 32, max_shared_bytes = 1024, max_threads = 1024, max_registers = 255, vector_bytes = 16, async_copy = false, mma = "">} {
// expected-error @+1 {{kernel needs tile.threads between 1 and 1024}}
func.func @zero_threads() attributes {tile.kernel, tile.threads = 0 : i64} {
  return
}
}

// -----

// convert-tile-to-gpu alone (on kernels already in a gpu.module) also
// needs the description.
// expected-error @+1 {{convert-tile-to-gpu needs the target description (#tile.target) on the module}}
module attributes {gpu.container_module} {
gpu.module @tlc_kernels {
  gpu.func @tlc_k() kernel attributes {tile.threads = 128 : i64} {
    gpu.return
  }
}
}
