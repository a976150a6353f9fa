// RUN: tlc-opt %s --tile-attach-target | FileCheck %s --check-prefix=CUDA
// RUN: tlc-opt %s '--tile-attach-target=target=cuda arch=sm_75' | FileCheck %s --check-prefix=SM75
// RUN: not tlc-opt %s '--tile-attach-target=target=opencl' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tlc-opt %s '--tile-attach-target=target=cuda arch=gfx942' 2>&1 | FileCheck %s --check-prefix=BADARCH
// RUN: tlc-opt %s '--tile-attach-target=target=cpu' | FileCheck %s --check-prefix=CPU
// RUN: tlc-opt %s '--tile-attach-target=target=metal' | FileCheck %s --check-prefix=METAL
// tile-attach-target sets the description the driver sets from -target and
// -arch (the default arch when none is given); the CPU target needs none.
// sm_90a lists wgmma first, mma.sync for the gemms wgmma cannot take.

// CUDA: module attributes {tile.target = #tile.target<vendor = "cuda", arch = "sm_90a", warp_size = 32, max_shared_bytes = 232448, max_threads = 1024, max_registers = 255, vector_bytes = 16, async_copy = true, mma = "wgmma_m64nNk16,mma_sync_m16n8k16">}
// Before sm_80: no cp.async and no bf16 mma.sync.
// SM75: #tile.target<vendor = "cuda", arch = "sm_75", warp_size = 32, max_shared_bytes = 65536, max_threads = 1024, max_registers = 255, vector_bytes = 16, async_copy = false, mma = "">
// UNKNOWN: error: unknown target 'opencl'; available: cpu, cuda, rocm, vulkan, metal
// BADARCH: error: unknown CUDA architecture 'gfx942'
// METAL: #tile.target<vendor = "metal", arch = "apple", warp_size = 32, max_shared_bytes = 32768
// CPU: module {
// CPU-NOT: tile.target
module {
}
