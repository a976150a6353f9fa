// axpy_kernel.cu: the device side of axpy.tl, written by hand after tlc's
// CUDA kernel parameter ABI (docs/abi.md): per tensor of rank R the data
// pointer, R sizes and R strides (int64, in elements); scalars by value.
// One block of blockDim.x threads handles BN = 256 elements; it also uses
// 64 KiB of dynamic shared memory (staging Y) to exercise the opt-in above
// 48 KiB.
#include <cstdint>

extern "C" __global__ void tlc_axpy(const float *x, int64_t xn, int64_t xs,
                                    float *y, int64_t yn, int64_t ys,
                                    float alpha) {
  extern __shared__ float stage[];
  int64_t i = int64_t(blockIdx.x) * 256 + threadIdx.x;
  if (xn != yn || xs != 1 || ys != 1)
    return; // the stub guarantees these; a wrong ABI leaves Y unchanged
  if (i < yn) {
    stage[threadIdx.x] = y[i];
    y[i] = stage[threadIdx.x] + alpha * x[i];
  }
}
