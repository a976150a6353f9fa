// driver.cpp: runs the axpy CUDA stub on the GPU and checks the result;
// also checks that a bad argument and a NULL stream behave. Exit 0 on success.
#include "axpy.h"

#include <cmath>
#include <cstdio>
#include <dlfcn.h>
#include <vector>

// The few runtime-free driver calls the check needs (memory, sync), loaded
// like the stub does.
using Fn = int (*)(...);
static Fn get(const char *name) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  return lib ? reinterpret_cast<Fn>(dlsym(lib, name)) : nullptr;
}

int main() {
  const int64_t n = 1000003; // ragged: not a multiple of 256
  std::vector<float> x(n), y(n), want(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = float(i % 17) - 8.0f;
    y[i] = float(i % 5);
    want[i] = y[i] + 1.5f * x[i];
  }
  char e[256];
  int rc = tlc_axpy(nullptr, nullptr, 0.0f, nullptr, e, sizeof e);
  std::printf("NULL tensor: %d %s\n", rc, e);
  // Device memory needs a context: the one the stub would pick (device 0's
  // primary context), made current here as the CUDA runtime would.
  Fn init = get("cuInit"), retain = get("cuDevicePrimaryCtxRetain"),
     setCtx = get("cuCtxSetCurrent"), memAlloc = get("cuMemAlloc_v2"),
     htod = get("cuMemcpyHtoD_v2"), dtoh = get("cuMemcpyDtoH_v2"),
     sync = get("cuCtxSynchronize");
  if (!init || !retain || !setCtx || !memAlloc || !htod || !dtoh || !sync) {
    std::printf("FAIL: cannot load the driver functions\n");
    return 1;
  }
  void *ctx = nullptr;
  if (init(0u) || retain(&ctx, 0) || setCtx(ctx)) {
    std::printf("FAIL: no CUDA context\n");
    return 1;
  }
  unsigned long long dx = 0, dy = 0;
  if (memAlloc(&dx, size_t(n) * 4) || memAlloc(&dy, size_t(n) * 4) ||
      htod(dx, x.data(), size_t(n) * 4) || htod(dy, y.data(), size_t(n) * 4)) {
    std::printf("FAIL: device memory\n");
    return 1;
  }
  tlc::TensorView X = tlc::makeTensor((void *)dx, TLC_F32, {n});
  tlc::TensorView Y = tlc::makeTensor((void *)dy, TLC_F32, {n});
  tlc::TensorView bad = tlc::makeTensor((void *)dy, TLC_F32, {n - 1});
  tlc::Status st = tlc::kernels::axpy(X, bad, 1.5f);
  std::printf("mismatch: %d %s\n", st.code, st.message.c_str());
  for (int rep = 0; rep < 2; ++rep) { // the second launch hits the cache
    if (rep == 1 && htod(dy, y.data(), size_t(n) * 4))
      return 1;
    st = tlc::kernels::axpy(X, Y, 1.5f);
    if (!st.ok()) {
      std::printf("FAIL: launch: %s\n", st.message.c_str());
      return 1;
    }
    int r = sync();
    std::vector<float> got(n);
    dtoh(got.data(), dy, size_t(n) * 4);
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i)
      wrong += std::fabs(got[i] - want[i]) > 1e-6f;
    std::printf("launch %d: sync %d, %lld of %lld wrong\n", rep, r,
                (long long)wrong, (long long)n);
    if (r || wrong)
      return 1;
  }
  std::printf("PASS\n");
  return 0;
}
