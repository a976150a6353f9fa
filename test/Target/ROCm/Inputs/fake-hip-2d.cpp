// test/Stub/Inputs/fake-libamdhip64.cpp (all its HIP calls and environment
// switches) with hipModuleLaunchKernel replaced: that one decodes the
// parameters of cuda-stub.tl's scale_rows (14 of them) and would read past
// the parameter array of other kernels. This one decodes kernels whose
// arguments are FAKE_HIP_TENSORS (default 1) 2-D tensors: per tensor the data
// pointer, the two sizes, the row stride and the unit column stride.
#define hipModuleLaunchKernel fake_hip_scale_rows_launch
#include "fake-libamdhip64.cpp"
#undef hipModuleLaunchKernel

extern "C" int hipModuleLaunchKernel(void *function, unsigned gx, unsigned gy,
                                     unsigned gz, unsigned bx, unsigned by,
                                     unsigned bz, unsigned sharedBytes,
                                     void *stream, void **p, void **extra) {
  std::printf("fake: hipModuleLaunchKernel(grid %u %u %u, block %u %u %u, "
              "LDS %u, stream %p%s)\n",
              gx, gy, gz, bx, by, bz, sharedBytes, stream,
              extra ? ", extra" : "");
  const char *count = getenv("FAKE_HIP_TENSORS");
  int tensors = count ? atoi(count) : 1;
  std::printf("fake:  ");
  for (int t = 0; t < tensors; ++t) {
    auto i64 = [&](int i) {
      return (long long)*static_cast<int64_t *>(p[5 * t + i]);
    };
    std::printf(" %s [%lld, %lld] strides [%lld, %lld];",
                *static_cast<void **>(p[5 * t]) ? "data" : "NULL", i64(1),
                i64(2), i64(3), i64(4));
  }
  std::printf("\n");
  return getenv("FAKE_HIP_LAUNCH_FAIL") ? 719 : 0;
}
