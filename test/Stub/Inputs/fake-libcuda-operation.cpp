// A stand-in libcuda.so.1 for the stub of an operation: prints the
// stream-ordered allocations and the data pointers of each launch of
// `scale` (test/Stub/Inputs/operation.tl), so the order of allocation,
// launches and release is checked without a GPU.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

static void *current = nullptr;
static int primary = 0;

extern "C" {
int cuInit(unsigned) { return 0; }
int cuGetErrorName(int e, const char **s) {
  *s = e == 2 ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_LAUNCH_FAILED";
  return 0;
}
int cuGetErrorString(int e, const char **s) {
  *s = e == 2 ? "out of memory" : "unspecified launch failure";
  return 0;
}
int cuDeviceGet(int *d, int ordinal) {
  *d = ordinal;
  return 0;
}
int cuCtxGetCurrent(void **c) {
  *c = current;
  return 0;
}
int cuCtxSetCurrent(void *c) {
  current = c;
  return 0;
}
int cuDevicePrimaryCtxRetain(void **c, int) {
  *c = &primary;
  return 0;
}
int cuModuleLoadData(void **m, const void *) {
  *m = reinterpret_cast<void *>(0x1000);
  return 0;
}
int cuModuleGetFunction(void **f, void *, const char *) {
  *f = reinterpret_cast<void *>(0x2000);
  return 0;
}
int cuFuncSetAttribute(void *, int, int) { return 0; }
int cuMemAllocAsync(unsigned long long *ptr, size_t bytes, void *stream) {
  std::printf("fake: cuMemAllocAsync(%zu bytes, stream %p)\n", bytes, stream);
  if (getenv("FAKE_CUDA_OUT_OF_MEMORY"))
    return 2;
  *ptr = 0x7000000;
  return 0;
}
int cuMemFreeAsync(unsigned long long ptr, void *stream) {
  std::printf("fake: cuMemFreeAsync(%#llx, stream %p)\n", ptr, stream);
  return 0;
}
// scale(X, Y, s): X is parameters 0-2 (data, size, stride), Y 3-5, s 6.
int cuLaunchKernel(void *, unsigned gx, unsigned, unsigned, unsigned, unsigned,
                   unsigned, unsigned, void *stream, void **p, void **) {
  static int launches = 0;
  std::printf("fake: cuLaunchKernel(grid %u, stream %p): X %p [%lld], Y %p, "
              "s %g\n",
              gx, stream, *static_cast<void **>(p[0]),
              (long long)*static_cast<int64_t *>(p[1]),
              *static_cast<void **>(p[3]), *static_cast<float *>(p[6]));
  const char *fail = getenv("FAKE_CUDA_FAIL_LAUNCH");
  return fail && atoi(fail) == ++launches ? 719 : 0;
}
}
