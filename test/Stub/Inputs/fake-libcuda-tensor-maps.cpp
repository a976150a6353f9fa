// A stand-in libcuda.so.1 for kernels with tensor copies: prints every
// cuTensorMapEncodeTiled call and, per launch, the entry, the grid extents
// a persistent entry takes, its store flag (1: C is stored through its
// tensor map) and the tensor maps passed after them (their first byte
// numbers the encode that made them; 0: none), and the cluster shape of
// cuLaunchKernelEx, so the stub's choice between the TMA entry and its
// fallback, and of clusters, can be tested without a GPU. The device has 3
// SMs that hold one block each (the fill heuristic counts them too).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static void *current = nullptr;
static int primary = 0;
static int encodes = 0;

extern "C" {
int cuInit(unsigned) { return 0; }
int cuGetErrorName(int, const char **s) {
  *s = "CUDA_ERROR_UNKNOWN";
  return 0;
}
int cuGetErrorString(int, const char **s) {
  *s = "unknown error";
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
int cuModuleGetFunction(void **f, void *, const char *name) {
  *f = strdup(name);
  return 0;
}
int cuFuncSetAttribute(void *, int, int) { return 0; }
int cuCtxGetDevice(int *d) {
  *d = 0;
  return 0;
}
int cuDeviceGetAttribute(int *value, int attribute, int) {
  *value = attribute == 16 ? 3 : 0; // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
  return 0;
}
int cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *, int,
                                                size_t) {
  *blocks = 1;
  return 0;
}
int cuTensorMapEncodeTiled(void *map, int type, uint32_t rank, void *,
                           const uint64_t *dims, const uint64_t *strides,
                           const uint32_t *box, const uint32_t *elementStrides,
                           int interleave, int swizzle, int l2, int oob) {
  std::printf("fake: encode type %d rank %u dims [%llu, %llu] stride %llu box "
              "[%u, %u] element strides [%u, %u] interleave %d swizzle %d "
              "l2 %d oob %d\n",
              type, rank, (unsigned long long)dims[0],
              (unsigned long long)dims[1], (unsigned long long)strides[0],
              box[0], box[1], elementStrides[0], elementStrides[1], interleave,
              swizzle, l2, oob);
  if (getenv("FAKE_CUDA_ENCODE_FAIL"))
    return 1;
  std::memset(map, 0, 128);
  static_cast<unsigned char *>(map)[0] = static_cast<unsigned char>(++encodes);
  return 0;
}
static void printLaunch(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned shared, void **p) {
  const char *name = static_cast<const char *>(f);
  std::printf("fake: launch %s grid %u %u %u block %u shared %u", name, gx, gy,
              gz, bx, shared);
  // gemm's ABI: three rank-2 tensors, 5 parameters each; then the store
  // flag, the grid extents and the maps of the (persistent) TMA entry.
  // Other kernels (softmax for the fill heuristic) print only the grid.
  if (std::strstr(name, "gemm") && !std::strstr(name, "$fallback"))
    std::printf(" store %d tiles %lld x %lld maps %d %d %d %d",
                *static_cast<int32_t *>(p[15]),
                (long long)*static_cast<int64_t *>(p[16]),
                (long long)*static_cast<int64_t *>(p[17]),
                *static_cast<unsigned char *>(p[18]),
                *static_cast<unsigned char *>(p[19]),
                *static_cast<unsigned char *>(p[20]),
                *static_cast<unsigned char *>(p[21]));
}
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                   unsigned, unsigned, unsigned shared, void *, void **p,
                   void **) {
  printLaunch(f, gx, gy, gz, bx, shared, p);
  std::printf("\n");
  return 0;
}
// cuda.h's CUlaunchConfig and CUlaunchAttribute, as far as read here.
struct Attribute {
  int id;
  char pad[4];
  unsigned value[16];
};
struct Config {
  unsigned gx, gy, gz, bx, by, bz, shared;
  void *stream;
  Attribute *attrs;
  unsigned numAttrs;
};
// Clusters of two: the 3 SMs of one block each hold one.
int cuOccupancyMaxActiveClusters(int *clusters, void *, const Config *c) {
  *clusters =
      c->numAttrs == 1 && c->attrs[0].id == 4 ? 3 / c->attrs[0].value[0] : 0;
  return 0;
}
int cuLaunchKernelEx(const Config *c, void *f, void **p, void **) {
  printLaunch(f, c->gx, c->gy, c->gz, c->bx, c->shared, p);
  for (unsigned i = 0; i < c->numAttrs; ++i)
    if (c->attrs[i].id == 4) // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
      std::printf(" cluster %u %u %u", c->attrs[i].value[0],
                  c->attrs[i].value[1], c->attrs[i].value[2]);
  std::printf("\n");
  return 0;
}
}
