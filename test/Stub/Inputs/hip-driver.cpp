// Calls the ROCm stub of cuda-stub.tl's scale_rows (C++ and C API) and
// prints the statuses; runs without a GPU.
#include "scale_rows.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>

/// Makes `device` current through the HIP runtime the stub loaded, as an
/// application would with hipSetDevice; does nothing when none is loaded.
static void setDevice(int device) {
  for (const char *name :
       {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"})
    if (void *lib = dlopen(name, RTLD_NOW | RTLD_NOLOAD)) {
      using SetDevice = int (*)(int);
      if (auto fn = reinterpret_cast<SetDevice>(dlsym(lib, "hipSetDevice")))
        fn(device);
      return;
    }
}

int main() {
  static float x[4 * 8], s[4], y[4 * 8];
  tlc::TensorView X = tlc::makeTensor(x, TLC_F32, {4, 8});
  tlc::TensorView S = tlc::makeTensor(s, TLC_F32, {4});
  tlc::TensorView Y = tlc::makeTensor(y, TLC_F32, {4, 8}, {16, 1});
  // Argument checks come first, whatever the runtime can do.
  tlc::TensorView bad = tlc::makeTensor(s, TLC_F32, {3});
  tlc::Status st = tlc::kernels::scale_rows(X, bad, Y, 2.0f);
  std::printf("bad: %d %s\n", st.code, st.message.c_str());
  for (int i = 0; i < 2; ++i) {
    st = tlc::kernels::scale_rows(X, S, Y, 2.0f,
                                  tlc::LaunchOptions(0, (void *)0x5EA));
    std::printf("cxx: %d %s\n", st.code, st.message.c_str());
  }
  // A grid HIP cannot launch (x * threads >= 2^32): refused before any HIP
  // call. No element is touched, so the wide views need no memory (the
  // output right behind the input: outputs must not overlap inputs).
  tlc::TensorView wide = tlc::makeTensor(x, TLC_F32, {4, int64_t(1) << 40});
  tlc::TensorView wideOut =
      tlc::makeTensor(reinterpret_cast<float *>(reinterpret_cast<uintptr_t>(x) +
                                                (uintptr_t(1) << 44)),
                      TLC_F32, {4, int64_t(1) << 40});
  st = tlc::kernels::scale_rows(wide, S, wideOut, 1.0f);
  std::printf("huge: %d %s\n", st.code, st.message.c_str());
  // Another device gets its own module.
  setDevice(1);
  char error[256];
  int rc = tlc_scale_rows(&X, &S, &Y, 0.5f, nullptr, error, sizeof error);
  std::printf("c: %d %s\n", rc, error);
  return 0;
}
