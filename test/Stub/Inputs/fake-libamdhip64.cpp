// A stand-in libamdhip64.so that prints the HIP calls a ROCm stub makes
// (decoding the parameters of scale_rows in cuda-stub.tl), so the launch path
// can be tested without a GPU. Environment switches: FAKE_HIP_NO_DEVICE
// (hipInit fails), FAKE_HIP_EXPECT_ELF (images must be ELF code objects),
// FAKE_HIP_NO_FUNCTION (no entry in the module), FAKE_HIP_LDS_LIMIT (LDS
// bytes per workgroup, default 65536), FAKE_HIP_LAUNCH_FAIL (launch fails).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static int currentDevice = 0;

static const char *errorName(int e) {
  switch (e) {
  case 0:
    return "hipSuccess";
  case 100:
    return "hipErrorNoDevice";
  case 200:
    return "hipErrorInvalidImage";
  case 500:
    return "hipErrorNotFound";
  case 719:
    return "hipErrorLaunchFailure";
  default:
    return "hipErrorUnknown";
  }
}

/// The size of an ELF64 file from its header: the end of the section or
/// program header table, whichever comes last (code objects end with the
/// section headers), since hipModuleLoadData gets no size.
static uint64_t elfSize(const unsigned char *image) {
  uint64_t phoff, shoff;
  uint16_t phentsize, phnum, shentsize, shnum;
  std::memcpy(&phoff, image + 32, 8);
  std::memcpy(&shoff, image + 40, 8);
  std::memcpy(&phentsize, image + 54, 2);
  std::memcpy(&phnum, image + 56, 2);
  std::memcpy(&shentsize, image + 58, 2);
  std::memcpy(&shnum, image + 60, 2);
  uint64_t programEnd = phoff + uint64_t(phentsize) * phnum;
  uint64_t sectionEnd = shoff + uint64_t(shentsize) * shnum;
  return programEnd > sectionEnd ? programEnd : sectionEnd;
}

extern "C" {
int hipInit(unsigned flags) {
  return getenv("FAKE_HIP_NO_DEVICE") || flags != 0 ? 100 : 0;
}
const char *hipGetErrorName(int e) { return errorName(e); }
const char *hipGetErrorString(int e) {
  switch (e) {
  case 100:
    return "no ROCm-capable device is detected";
  case 200:
    return "device kernel image is invalid";
  case 500:
    return "named symbol not found";
  case 719:
    return "unspecified launch failure";
  default:
    return errorName(e);
  }
}
int hipGetDevice(int *device) {
  *device = currentDevice;
  return 0;
}
// Not used by the stub; the test driver calls it to switch devices.
int hipSetDevice(int device) {
  std::printf("fake: hipSetDevice(%d)\n", device);
  currentDevice = device;
  return 0;
}
int hipDeviceGetAttribute(int *value, int attr, int device) {
  // 74: LDS bytes per workgroup; 63: compute units (FAKE_HIP_CUS, 0 by
  // default: the fill heuristic then keeps a kernel's defaults).
  const char *limit = getenv("FAKE_HIP_LDS_LIMIT");
  const char *units = getenv("FAKE_HIP_CUS");
  *value = attr == 74   ? (limit ? atoi(limit) : 65536)
           : attr == 63 ? (units ? atoi(units) : 0)
                        : 0;
  std::printf("fake: hipDeviceGetAttribute(%d, device %d) = %d\n", attr, device,
              *value);
  return 0;
}
int hipFuncGetAttribute(int *value, int attr, void *function) {
  *value = 0; // no static LDS
  std::printf("fake: hipFuncGetAttribute(%d) = %d\n", attr, *value);
  return 0;
}
int hipModuleLoadData(void **module, const void *image) {
  const unsigned char *bytes = static_cast<const unsigned char *>(image);
  int aligned = int(reinterpret_cast<uintptr_t>(image) % 64 == 0);
  static const unsigned char elfMagic[4] = {0x7f, 'E', 'L', 'F'};
  if (std::memcmp(bytes, elfMagic, 4) == 0) {
    std::printf("fake: hipModuleLoadData(ELF, %llu bytes, aligned %d, device "
                "%d)\n",
                (unsigned long long)elfSize(bytes), aligned, currentDevice);
  } else if (getenv("FAKE_HIP_EXPECT_ELF")) {
    std::printf("fake: hipModuleLoadData: not an ELF image\n");
    return 200;
  } else {
    std::printf("fake: hipModuleLoadData(\"%s\", aligned %d, device %d)\n",
                static_cast<const char *>(image), aligned, currentDevice);
  }
  *module = reinterpret_cast<void *>(0x1000);
  return 0;
}
int hipModuleGetFunction(void **function, void *module, const char *name) {
  std::printf("fake: hipModuleGetFunction(%s)\n", name);
  if (getenv("FAKE_HIP_NO_FUNCTION"))
    return 500;
  *function = reinterpret_cast<void *>(0x2000);
  return 0;
}
int hipModuleLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                          unsigned bx, unsigned by, unsigned bz,
                          unsigned sharedBytes, void *stream, void **p,
                          void **extra) {
  auto i64 = [&](int i) { return (long long)*static_cast<int64_t *>(p[i]); };
  std::printf("fake: hipModuleLaunchKernel(grid %u %u %u, block %u %u %u, "
              "LDS %u, stream %p%s)\n",
              gx, gy, gz, bx, by, bz, sharedBytes, stream,
              extra ? ", extra" : "");
  std::printf("fake:   X %s [%lld, %lld] strides [%lld, %lld]; S [%lld] "
              "strides [%lld]; Y [%lld, %lld] strides [%lld, %lld]; alpha %g\n",
              *static_cast<void **>(p[0]) ? "data" : "NULL", i64(1), i64(2),
              i64(3), i64(4), i64(6), i64(7), i64(9), i64(10), i64(11), i64(12),
              *static_cast<float *>(p[13]));
  return getenv("FAKE_HIP_LAUNCH_FAIL") ? 719 : 0;
}
}
