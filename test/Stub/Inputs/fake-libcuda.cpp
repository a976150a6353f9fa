// A stand-in libcuda.so.1 that prints the driver calls a CUDA stub makes
// (decoding the parameters of scale_rows in cuda-stub.tl), so the launch path
// can be tested without a GPU.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static void *current = nullptr;
static int primary = 0;

extern "C" {
int cuInit(unsigned flags) { return getenv("FAKE_CUDA_NO_DEVICE") ? 100 : 0; }
int cuGetErrorName(int e, const char **s) {
  *s = e == 100   ? "CUDA_ERROR_NO_DEVICE"
       : e == 719 ? "CUDA_ERROR_LAUNCH_FAILED"
                  : "CUDA_ERROR_UNKNOWN";
  return 0;
}
int cuGetErrorString(int e, const char **s) {
  *s = e == 100   ? "no CUDA-capable device is detected"
       : e == 719 ? "unspecified launch failure"
                  : "unknown error";
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
  std::printf("fake: cuCtxSetCurrent(%s)\n", c == &primary ? "primary" : "?");
  current = c;
  return 0;
}
int cuDevicePrimaryCtxRetain(void **c, int d) {
  std::printf("fake: cuDevicePrimaryCtxRetain(device %d)\n", d);
  *c = &primary;
  return 0;
}
int cuModuleLoadData(void **m, const void *image) {
  std::printf("fake: cuModuleLoadData(\"%s\", aligned %d)\n",
              static_cast<const char *>(image),
              int(reinterpret_cast<uintptr_t>(image) % 64 == 0));
  *m = reinterpret_cast<void *>(0x1000);
  return 0;
}
int cuModuleGetFunction(void **f, void *m, const char *name) {
  std::printf("fake: cuModuleGetFunction(%s)\n", name);
  *f = reinterpret_cast<void *>(0x2000);
  return 0;
}
int cuFuncSetAttribute(void *f, int attr, int value) {
  std::printf("fake: cuFuncSetAttribute(%d, %d)\n", attr, value);
  return 0;
}
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                   unsigned by, unsigned bz, unsigned shared, void *stream,
                   void **p, void **extra) {
  auto i64 = [&](int i) { return *static_cast<int64_t *>(p[i]); };
  std::printf("fake: cuLaunchKernel(grid %u %u %u, block %u %u %u, shared %u, "
              "stream %p)\n",
              gx, gy, gz, bx, by, bz, shared, stream);
  std::printf("fake:   X %s [%lld, %lld] strides [%lld, %lld]; S [%lld] "
              "strides [%lld]; Y [%lld, %lld] strides [%lld, %lld]; alpha %g\n",
              *static_cast<void **>(p[0]) ? "data" : "NULL", (long long)i64(1),
              (long long)i64(2), (long long)i64(3), (long long)i64(4),
              (long long)i64(6), (long long)i64(7), (long long)i64(9),
              (long long)i64(10), (long long)i64(11), (long long)i64(12),
              *static_cast<float *>(p[13]));
  return getenv("FAKE_CUDA_LAUNCH_ERROR") ? 719 : 0;
}
}
