// RUN: tlc-opt %s -split-input-file -verify-diagnostics
// The #tile.target verifier: a vendor and an arch, a power-of-two warp
// size, positive limits.

// expected-error @+1 {{a target needs a vendor and an architecture}}
module attributes {tile.target = #tile.target<vendor = "", arch = "x", warp_size = 32, max_shared_bytes = 0, max_threads = 1, max_registers = 1, vector_bytes = 1, async_copy = false, mma = "">} {}

// -----

// expected-error @+1 {{warp_size must be a power of two}}
module attributes {tile.target = #tile.target<vendor = "cuda", arch = "sm_90a", warp_size = 48, max_shared_bytes = 0, max_threads = 1, max_registers = 1, vector_bytes = 1, async_copy = false, mma = "">} {}

// -----

// expected-error @+1 {{max_shared_bytes must be >= 0, max_threads, max_registers and vector_bytes >= 1}}
module attributes {tile.target = #tile.target<vendor = "cuda", arch = "sm_90a", warp_size = 32, max_shared_bytes = 0, max_threads = 0, max_registers = 1, vector_bytes = 1, async_copy = false, mma = "">} {}
