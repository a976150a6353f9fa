/* tlc_cuda.h - Header-only CUDA driver loader for tlc-generated CUDA stubs. */
/*===----------------------------------------------------------------------===
 *
 * A CUDA launch stub embeds its device binary and launches it through the
 * CUDA driver API, which this header loads at run time: libcuda.so.1 is
 * opened with dlopen on the first launch (never before), so a program that
 * never launches a CUDA kernel needs no GPU library and links with nothing
 * but -ldl (and -pthread). The driver types used are declared here (in
 * namespace tlc::cuda), so neither cuda.h nor the CUDA toolkit is needed to
 * build a stub. Errors come back as a tlc::Status carrying the CUDA error
 * name and text; nothing calls exit() or throws out of the launch path.
 *
 * C++17, Linux (dlopen). Not part of the C ABI.
 *
 *===----------------------------------------------------------------------===*/
#ifndef TLC_RUNTIME_TLC_CUDA_H
#define TLC_RUNTIME_TLC_CUDA_H

#include "tlc/Runtime/tlc_runtime.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <string>

namespace tlc {
namespace cuda {

//===--- Driver API declarations (a subset of cuda.h) ---------------------===//

/// Opaque driver handles; the same layout as cuda.h's CUcontext, ...
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUdevice = int;

/// cuda.h's CUresult; the values tlc names itself.
enum CUresult : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_NOT_FOUND = 500,
};

/// cuda.h's CUfunction_attribute; only the value tlc uses.
enum CUfunction_attribute : int {
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

using PFN_cuInit = CUresult (*)(unsigned int flags);
using PFN_cuDeviceGet = CUresult (*)(CUdevice *device, int ordinal);
using PFN_cuCtxGetCurrent = CUresult (*)(CUcontext *ctx);
using PFN_cuCtxSetCurrent = CUresult (*)(CUcontext ctx);
using PFN_cuCtxGetId = CUresult (*)(CUcontext ctx, unsigned long long *id);
using PFN_cuDevicePrimaryCtxRetain = CUresult (*)(CUcontext *ctx, CUdevice dev);
using PFN_cuModuleLoadData = CUresult (*)(CUmodule *module, const void *image);
using PFN_cuModuleGetFunction = CUresult (*)(CUfunction *function,
                                             CUmodule module, const char *name);
using PFN_cuFuncSetAttribute = CUresult (*)(CUfunction function,
                                            CUfunction_attribute attribute,
                                            int value);
using PFN_cuLaunchKernel = CUresult (*)(
    CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
    unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
    unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream stream,
    void **kernelParams, void **extra);
/// cuTensorMapEncodeTiled with cuda.h's enums as int (the values tlc uses
/// are below).
using PFN_cuTensorMapEncodeTiled = CUresult (*)(
    void *tensorMap, int dataType, uint32_t rank, void *globalAddress,
    const uint64_t *globalDim, const uint64_t *globalStrides,
    const uint32_t *boxDim, const uint32_t *elementStrides, int interleave,
    int swizzle, int l2Promotion, int oobFill);
using PFN_cuCtxGetDevice = CUresult (*)(CUdevice *device);
using PFN_cuDeviceGetAttribute = CUresult (*)(int *value, int attribute,
                                              CUdevice device);
using PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor = CUresult (*)(
    int *blocks, CUfunction function, int blockSize, size_t dynamicSharedBytes);
/// CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
constexpr int kMultiprocessorCountAttribute = 16;
/// cuda.h's CUlaunchAttribute (an enum id, padding to 8 bytes, a 64-byte
/// union), for the one attribute tlc sets.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    struct {
      unsigned int x, y, z;
    } clusterDim;
  } value;
};
/// CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
constexpr int kLaunchAttributeClusterDimension = 4;
/// cuda.h's CUlaunchConfig.
struct LaunchConfig {
  unsigned int gridDimX, gridDimY, gridDimZ;
  unsigned int blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
  LaunchAttribute *attrs;
  unsigned int numAttrs;
};
using PFN_cuLaunchKernelEx = CUresult (*)(const LaunchConfig *config,
                                          CUfunction f, void **kernelParams,
                                          void **extra);
using PFN_cuOccupancyMaxActiveClusters = CUresult (*)(
    int *clusters, CUfunction function, const LaunchConfig *config);
/// Device memory, for programs that allocate through this loader (the runner
/// of a tuning bundle); stubs never allocate.
using CUdeviceptr = unsigned long long;
using PFN_cuMemAlloc = CUresult (*)(CUdeviceptr *ptr, size_t bytes);
using PFN_cuMemFree = CUresult (*)(CUdeviceptr ptr);
using PFN_cuMemcpyHtoD = CUresult (*)(CUdeviceptr dst, const void *src,
                                      size_t bytes);
using PFN_cuMemcpyDtoH = CUresult (*)(void *dst, CUdeviceptr src, size_t bytes);
using PFN_cuCtxSynchronize = CUresult (*)();
/// Stream-ordered memory (CUDA 11.2+), for the scratch of operations.
using PFN_cuMemAllocAsync = CUresult (*)(CUdeviceptr *ptr, size_t bytes,
                                         CUstream stream);
using PFN_cuMemFreeAsync = CUresult (*)(CUdeviceptr ptr, CUstream stream);
using PFN_cuGetErrorName = CUresult (*)(CUresult error, const char **name);
using PFN_cuGetErrorString = CUresult (*)(CUresult error, const char **text);

/// Dynamic shared memory a kernel may use without opting in.
constexpr int64_t kDefaultSharedBytes = 48 * 1024;

//===--- The driver
//--------------------------------------------------------===//

/// The driver library and the entry points tlc uses, loaded once.
struct Driver {
  std::string error; // why the driver cannot be used; empty when it can
  void *library = nullptr;
  PFN_cuInit cuInit = nullptr;
  PFN_cuDeviceGet cuDeviceGet = nullptr;
  PFN_cuCtxGetCurrent cuCtxGetCurrent = nullptr;
  PFN_cuCtxSetCurrent cuCtxSetCurrent = nullptr;
  PFN_cuCtxGetId cuCtxGetId = nullptr; // CUDA 12.0+; optional
  PFN_cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRetain = nullptr;
  PFN_cuModuleLoadData cuModuleLoadData = nullptr;
  PFN_cuModuleGetFunction cuModuleGetFunction = nullptr;
  PFN_cuFuncSetAttribute cuFuncSetAttribute = nullptr;
  PFN_cuLaunchKernel cuLaunchKernel = nullptr;
  PFN_cuGetErrorName cuGetErrorName = nullptr;
  PFN_cuGetErrorString cuGetErrorString = nullptr;
  // CUDA 12.0+; optional (kernels with tensor copies fall back without it).
  PFN_cuTensorMapEncodeTiled cuTensorMapEncodeTiled = nullptr;
  // Optional: without them a persistent kernel gets a block per tile.
  PFN_cuCtxGetDevice cuCtxGetDevice = nullptr;
  PFN_cuDeviceGetAttribute cuDeviceGetAttribute = nullptr;
  PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor
      cuOccupancyMaxActiveBlocksPerMultiprocessor = nullptr;
  // CUDA 12.0+; optional: without them no kernel runs in clusters.
  PFN_cuLaunchKernelEx cuLaunchKernelEx = nullptr;
  PFN_cuOccupancyMaxActiveClusters cuOccupancyMaxActiveClusters = nullptr;
  // Optional: memory for programs that allocate through this loader.
  PFN_cuMemAlloc cuMemAlloc = nullptr;
  PFN_cuMemFree cuMemFree = nullptr;
  PFN_cuMemcpyHtoD cuMemcpyHtoD = nullptr;
  PFN_cuMemcpyDtoH cuMemcpyDtoH = nullptr;
  PFN_cuCtxSynchronize cuCtxSynchronize = nullptr;
  // Optional: operations with scratch tensors need them.
  PFN_cuMemAllocAsync cuMemAllocAsync = nullptr;
  PFN_cuMemFreeAsync cuMemFreeAsync = nullptr;

  /// "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)".
  std::string describe(CUresult r) const {
    const char *name = nullptr, *text = nullptr;
    if (cuGetErrorName && cuGetErrorName(r, &name) != CUDA_SUCCESS)
      name = nullptr;
    if (cuGetErrorString && cuGetErrorString(r, &text) != CUDA_SUCCESS)
      text = nullptr;
    std::string s = name ? name : "CUDA error " + std::to_string(int(r));
    if (text)
      s += std::string(" (") + text + ")";
    return s;
  }
};

namespace detail {

template <typename F> bool resolve(Driver &d, F &fn, const char *name) {
  fn = reinterpret_cast<F>(dlsym(d.library, name));
  if (!fn && d.error.empty())
    d.error = std::string("cannot load libcuda.so.1: it lacks ") + name;
  return fn != nullptr;
}

inline Driver loadDriver() noexcept {
  Driver d;
  try {
    d.library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!d.library) {
      const char *why = dlerror();
      d.error = std::string("cannot load libcuda.so.1 (") +
                (why ? why : "unknown error") +
                "); is the NVIDIA driver installed?";
      return d;
    }
    resolve(d, d.cuGetErrorName, "cuGetErrorName");
    resolve(d, d.cuGetErrorString, "cuGetErrorString");
    resolve(d, d.cuInit, "cuInit");
    resolve(d, d.cuDeviceGet, "cuDeviceGet");
    resolve(d, d.cuCtxGetCurrent, "cuCtxGetCurrent");
    resolve(d, d.cuCtxSetCurrent, "cuCtxSetCurrent");
    resolve(d, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    resolve(d, d.cuModuleLoadData, "cuModuleLoadData");
    resolve(d, d.cuModuleGetFunction, "cuModuleGetFunction");
    resolve(d, d.cuFuncSetAttribute, "cuFuncSetAttribute");
    resolve(d, d.cuLaunchKernel, "cuLaunchKernel");
    d.cuCtxGetId =
        reinterpret_cast<PFN_cuCtxGetId>(dlsym(d.library, "cuCtxGetId"));
    d.cuTensorMapEncodeTiled = reinterpret_cast<PFN_cuTensorMapEncodeTiled>(
        dlsym(d.library, "cuTensorMapEncodeTiled"));
    d.cuCtxGetDevice = reinterpret_cast<PFN_cuCtxGetDevice>(
        dlsym(d.library, "cuCtxGetDevice"));
    d.cuDeviceGetAttribute = reinterpret_cast<PFN_cuDeviceGetAttribute>(
        dlsym(d.library, "cuDeviceGetAttribute"));
    d.cuOccupancyMaxActiveBlocksPerMultiprocessor =
        reinterpret_cast<PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor>(
            dlsym(d.library, "cuOccupancyMaxActiveBlocksPerMultiprocessor"));
    d.cuLaunchKernelEx = reinterpret_cast<PFN_cuLaunchKernelEx>(
        dlsym(d.library, "cuLaunchKernelEx"));
    d.cuOccupancyMaxActiveClusters =
        reinterpret_cast<PFN_cuOccupancyMaxActiveClusters>(
            dlsym(d.library, "cuOccupancyMaxActiveClusters"));
    d.cuMemAlloc =
        reinterpret_cast<PFN_cuMemAlloc>(dlsym(d.library, "cuMemAlloc_v2"));
    d.cuMemFree =
        reinterpret_cast<PFN_cuMemFree>(dlsym(d.library, "cuMemFree_v2"));
    d.cuMemcpyHtoD =
        reinterpret_cast<PFN_cuMemcpyHtoD>(dlsym(d.library, "cuMemcpyHtoD_v2"));
    d.cuMemcpyDtoH =
        reinterpret_cast<PFN_cuMemcpyDtoH>(dlsym(d.library, "cuMemcpyDtoH_v2"));
    d.cuCtxSynchronize = reinterpret_cast<PFN_cuCtxSynchronize>(
        dlsym(d.library, "cuCtxSynchronize"));
    d.cuMemAllocAsync = reinterpret_cast<PFN_cuMemAllocAsync>(
        dlsym(d.library, "cuMemAllocAsync"));
    d.cuMemFreeAsync = reinterpret_cast<PFN_cuMemFreeAsync>(
        dlsym(d.library, "cuMemFreeAsync"));
    if (!d.error.empty())
      return d;
    CUresult r = d.cuInit(0);
    if (r != CUDA_SUCCESS)
      d.error = "cuInit failed: " + d.describe(r);
  } catch (...) {
    d.error = "out of memory while loading libcuda.so.1";
  }
  return d;
}

} // namespace detail

/// The process-wide driver, loaded (thread-safely) on first use. Never
/// unloaded: modules may still be in use at exit.
inline const Driver &driver() {
  static const Driver *d = new Driver(detail::loadDriver());
  return *d;
}

inline Status error(const char *kernel, const std::string &message) {
  return Status{TLC_ERR_RUNTIME, std::string(kernel) + ": cuda: " + message};
}

/// The context current on this thread. When there is none, device 0's
/// primary context is made current, as the CUDA runtime API does.
inline Status currentContext(const char *kernel, CUcontext &ctx) {
  const Driver &d = driver();
  ctx = nullptr;
  CUresult r = d.cuCtxGetCurrent(&ctx);
  if (r != CUDA_SUCCESS)
    return error(kernel, "cuCtxGetCurrent failed: " + d.describe(r));
  if (ctx)
    return Status{};
  CUdevice dev = 0;
  if ((r = d.cuDeviceGet(&dev, 0)) != CUDA_SUCCESS)
    return error(kernel, "cuDeviceGet failed: " + d.describe(r));
  if ((r = d.cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS)
    return error(kernel, "cuDevicePrimaryCtxRetain failed: " + d.describe(r));
  if ((r = d.cuCtxSetCurrent(ctx)) != CUDA_SUCCESS)
    return error(kernel, "cuCtxSetCurrent failed: " + d.describe(r));
  return Status{};
}

/// The multiprocessor count of the current context's device (making device
/// 0's primary context current when there is none); 0 when the driver cannot
/// say, for example without a GPU.
inline int64_t multiprocessorCount() {
  const Driver &d = driver();
  CUcontext ctx = nullptr;
  CUdevice device = 0;
  int sms = 0;
  if (!d.error.empty() || !d.cuCtxGetDevice || !d.cuDeviceGetAttribute ||
      !currentContext("tlc", ctx).ok() ||
      d.cuCtxGetDevice(&device) != CUDA_SUCCESS ||
      d.cuDeviceGetAttribute(&sms, kMultiprocessorCountAttribute, device) !=
          CUDA_SUCCESS)
    return 0;
  return sms;
}

/// Whether the environment variable `name` is set to something other than
/// "" or "0" (read once per name by the caller).
inline bool envFlag(const char *name) {
  const char *v = std::getenv(name);
  return v && *v && std::string(v) != "0";
}

/// TLC_CUDA_TRACE=1: every launch says on stderr which entry it runs.
inline bool traceLaunches() {
  static const bool on = envFlag("TLC_CUDA_TRACE");
  return on;
}

/// TLC_CUDA_NO_TENSOR_COPY=1: kernels with tensor copies (TMA) always run
/// their fallback entry (for testing it and for comparisons).
inline bool tensorCopiesDisabled() {
  static const bool off = envFlag("TLC_CUDA_NO_TENSOR_COPY");
  return off;
}

/// TLC_CUDA_NO_PERSISTENT=1: persistent kernels get a block per tile (the
/// same results; for comparing the two launches).
inline bool persistentLaunchDisabled() {
  static const bool off = envFlag("TLC_CUDA_NO_PERSISTENT");
  return off;
}

/// TLC_CUDA_NO_CLUSTERS=1: kernels that may run in thread-block clusters
/// run without them (the same results; for comparisons).
inline bool clustersDisabled() {
  static const bool off = envFlag("TLC_CUDA_NO_CLUSTERS");
  return off;
}

//===--- Tensor maps (TMA descriptors) ------------------------------------===//

/// cuda.h's CUtensorMap: 128 opaque bytes, passed by value to the kernel.
struct alignas(64) TensorMap {
  unsigned char bytes[128];
};

/// The tensor map of one tensor argument of a kernel with tensor copies,
/// cached for the last few (data, shape, strides) it was built for: a
/// kernel launched again on the same tensors (the usual case), or on a few
/// alternating ones (double-buffered activations, a tuner's rotating
/// copies), encodes nothing.
class TensorMapCache {
public:
  /// Writes to `out` the map of `t` (elements of `elementBytes`) for boxes
  /// of `box` (t.rank entries, outermost first) landing in shared tiles
  /// swizzled by `swizzle` bytes. False when the tensor breaks the rules
  /// of the tensor-copy unit (data or a stride not 16-byte aligned, an
  /// extent beyond 2^31 - 1, a stride beyond 2^40 bytes) or the driver
  /// cannot encode it: the caller launches the fallback entry.
  bool get(const TensorView &t, int64_t elementBytes, const uint32_t *box,
           int64_t swizzle, TensorMap &out) {
    std::lock_guard<std::mutex> lock(mutex);
    Entry *entry = nullptr;
    for (Entry &e : entries)
      if (e.valid && same(e.key, t))
        entry = &e;
    if (!entry) { // replace the oldest
      entry = &entries[next];
      next = (next + 1) % kEntries;
      entry->key = t;
      entry->valid = true;
      entry->usable = encode(t, elementBytes, box, swizzle, entry->map);
    }
    if (entry->usable)
      out = entry->map;
    return entry->usable;
  }

private:
  static constexpr int kEntries = 8;
  struct Entry {
    bool valid = false, usable = false;
    TensorView key{};
    TensorMap map{};
  };
  std::mutex mutex; // guards the rest
  Entry entries[kEntries];
  int next = 0;

  static bool same(const TensorView &key, const TensorView &t) {
    if (t.data != key.data || t.rank != key.rank)
      return false;
    for (int32_t d = 0; d < t.rank; ++d)
      if (t.shape[d] != key.shape[d] || t.strides[d] != key.strides[d])
        return false;
    return true;
  }

  static bool encode(const TensorView &t, int64_t elementBytes,
                     const uint32_t *box, int64_t swizzle, TensorMap &map) {
    const Driver &d = driver();
    int32_t rank = t.rank;
    if (!d.cuTensorMapEncodeTiled || rank < 1 || rank > 5 ||
        reinterpret_cast<uintptr_t>(t.data) % 16 != 0)
      return false;
    // The map lists dimensions innermost first; strides (in bytes) of all
    // but the innermost, which is contiguous.
    uint64_t dims[5], strides[4];
    uint32_t boxDims[5], elementStrides[5];
    for (int32_t i = 0; i < rank; ++i) {
      int32_t dim = rank - 1 - i;
      if (t.shape[dim] < 1 || t.shape[dim] > 0x7fffffff)
        return false;
      dims[i] = static_cast<uint64_t>(t.shape[dim]);
      boxDims[i] = box[dim];
      elementStrides[i] = 1;
      if (i == 0)
        continue;
      int64_t stride = t.strides[dim];
      if (stride < 1 || stride > (int64_t(1) << 40) / elementBytes ||
          (stride * elementBytes) % 16 != 0)
        return false;
      strides[i - 1] = static_cast<uint64_t>(stride * elementBytes);
    }
    if (t.strides[rank - 1] != 1)
      return false;
    // Data types by size (the unit copies bits); zeros outside the tensor.
    int dataType = elementBytes == 1   ? 0 // UINT8
                   : elementBytes == 2 ? 1 // UINT16
                   : elementBytes == 4 ? 2 // UINT32
                   : elementBytes == 8 ? 4 // UINT64
                                       : -1;
    int swizzleMode = swizzle == 32    ? 1
                      : swizzle == 64  ? 2
                      : swizzle == 128 ? 3
                                       : 0;
    if (dataType < 0)
      return false;
    const int kInterleaveNone = 0, kL2Promotion128B = 2, kOobFillZero = 0;
    return d.cuTensorMapEncodeTiled(
               &map, dataType, static_cast<uint32_t>(rank), t.data, dims,
               strides, boxDims, elementStrides, kInterleaveNone, swizzleMode,
               kL2Promotion128B, kOobFillZero) == CUDA_SUCCESS;
  }
};

/// One kernel of an embedded binary: its module is loaded lazily, once per
/// context, and the function looked up there. Thread-safe; a stub keeps one
/// as a function-local static.
class Kernel {
public:
  /// `image` (a cubin, fatbin or NUL-terminated PTX) must outlive the kernel.
  Kernel(const void *image, size_t imageSize, const char *entry,
         int64_t dynamicSharedBytes)
      : image(image), imageSize(imageSize), entry(entry),
        sharedBytes(dynamicSharedBytes) {}
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;

  /// The function in the current context (loading the module there first).
  Status function(const char *kernel, CUfunction &fn) {
    fn = nullptr;
    if (imageSize == 0)
      return error(kernel, "kernel binary not available (this stub was "
                           "generated without device code)");
    const Driver &d = driver();
    if (!d.error.empty())
      return error(kernel, d.error);
    CUcontext ctx = nullptr;
    Status status = currentContext(kernel, ctx);
    if (!status.ok())
      return status;
    // Context handles may be reused after a context is destroyed; its
    // unique id (CUDA 12+) may not.
    unsigned long long key = reinterpret_cast<uintptr_t>(ctx);
    if (d.cuCtxGetId) {
      unsigned long long id = 0;
      if (d.cuCtxGetId(ctx, &id) == CUDA_SUCCESS)
        key = id;
    }
    std::lock_guard<std::mutex> lock(mutex);
    auto it = functions.find(key);
    if (it != functions.end()) {
      fn = it->second;
      return Status{};
    }
    CUmodule module = nullptr;
    CUresult r = d.cuModuleLoadData(&module, image);
    if (r != CUDA_SUCCESS)
      return error(kernel,
                   "cannot load the kernel binary (cuModuleLoadData): " +
                       d.describe(r));
    r = d.cuModuleGetFunction(&fn, module, entry);
    if (r != CUDA_SUCCESS)
      return error(kernel, std::string("no entry ") + entry +
                               " in the kernel binary: " + d.describe(r));
    if (sharedBytes > kDefaultSharedBytes) {
      r = d.cuFuncSetAttribute(fn,
                               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               static_cast<int>(sharedBytes));
      if (r != CUDA_SUCCESS)
        return error(kernel, "the kernel needs " + std::to_string(sharedBytes) +
                                 " bytes of shared memory, more than this "
                                 "device allows: " +
                                 d.describe(r));
    }
    functions.emplace(key, fn);
    return Status{};
  }

  /// Launches the kernel on `stream` (nullptr: the default stream) with the
  /// grid (gx, gy, gz), `threads` x 1 x 1 threads per block and the kernel's
  /// dynamic shared memory. Asynchronous: errors of the running kernel
  /// surface at the next synchronization, as with any CUDA launch.
  Status launch(const char *kernel, int64_t gx, int64_t gy, int64_t gz,
                int64_t threads, void *stream, void **params) {
    return launchBlocks(kernel, gx, gy, gz, 0, threads, stream, params);
  }

  /// Launches a persistent kernel (tile.persistent) over the grid (gx, gy,
  /// gz), whose extents are among `params`: as many blocks along x as the
  /// device holds at once, at most one per grid block. A kernel that may
  /// run in clusters of `clusterRows` blocks (tile.cluster_rows) does when
  /// gy is a multiple of it and the driver can launch and size clusters.
  Status launchPersistent(const char *kernel, int64_t gx, int64_t gy,
                          int64_t gz, int64_t threads, void *stream,
                          void **params, int64_t clusterRows = 1) {
    if (gx > 0x7fffffff || gy > 65535 || gz > 65535)
      return launchBlocks(kernel, gx, gy, gz, 0, threads, stream, params);
    CUfunction fn = nullptr;
    Status status = function(kernel, fn);
    if (!status.ok())
      return status;
    const Driver &d = driver();
    int64_t cluster = 1;
    if (clusterRows > 1 && gy % clusterRows == 0 && gz == 1 &&
        d.cuLaunchKernelEx && d.cuOccupancyMaxActiveClusters &&
        !clustersDisabled())
      cluster = clusterRows;
    // At most 2^31 - 1 blocks along x (whole clusters): the kernel walks
    // the rest.
    int64_t blocks = std::min<int64_t>(gx * gy * gz, 0x7fffffff);
    if (!persistentLaunchDisabled()) {
      int64_t resident = residentBlocks(fn, threads, cluster);
      if (resident == 0 && cluster > 1) {
        cluster = 1; // the driver cannot place its clusters
        resident = residentBlocks(fn, threads, 1);
      }
      blocks = std::min(blocks, resident);
    }
    blocks -= blocks % cluster;
    return launchBlocks(kernel, gx, gy, gz, blocks, threads, stream, params,
                        cluster);
  }

private:
  /// Blocks of `fn` the current device runs at once with `threads` threads
  /// (all of the SMs times its occupancy); unbounded when the driver
  /// cannot say. In clusters of `cluster` > 1 blocks: whole clusters the
  /// device places at once, 0 when the driver cannot say.
  int64_t residentBlocks(CUfunction fn, int64_t threads, int64_t cluster) {
    const Driver &d = driver();
    if (cluster > 1) {
      LaunchAttribute attribute;
      LaunchConfig config =
          clusterLaunch(cluster, threads, cluster, nullptr, attribute);
      int clusters = 0;
      if (d.cuOccupancyMaxActiveClusters(&clusters, fn, &config) !=
              CUDA_SUCCESS ||
          clusters <= 0)
        return 0;
      return int64_t(clusters) * cluster;
    }
    int64_t unbounded = std::numeric_limits<int64_t>::max();
    int64_t sms = multiprocessorCount();
    int perSM = 0;
    if (!d.cuOccupancyMaxActiveBlocksPerMultiprocessor ||
        d.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &perSM, fn, static_cast<int>(threads),
            static_cast<size_t>(sharedBytes)) != CUDA_SUCCESS ||
        sms <= 0 || perSM <= 0)
      return unbounded;
    return sms * perSM;
  }

  /// The launch of `blocks` x 1 x 1 blocks of `threads` threads with the
  /// kernel's shared memory on `stream`, in clusters of `cluster` blocks
  /// (`attribute` holds the cluster shape the config points at).
  LaunchConfig clusterLaunch(int64_t blocks, int64_t threads, int64_t cluster,
                             void *stream, LaunchAttribute &attribute) const {
    attribute = {};
    attribute.id = kLaunchAttributeClusterDimension;
    attribute.value.clusterDim = {static_cast<unsigned>(cluster), 1, 1};
    return {static_cast<unsigned>(blocks),
            1,
            1,
            static_cast<unsigned>(threads),
            1,
            1,
            static_cast<unsigned>(sharedBytes),
            static_cast<CUstream>(stream),
            &attribute,
            1};
  }

  /// The launch of the grid (gx, gy, gz) after checking it or, when
  /// `persistentBlocks` > 0, of that many blocks along x that walk it, in
  /// clusters of `cluster` blocks.
  Status launchBlocks(const char *kernel, int64_t gx, int64_t gy, int64_t gz,
                      int64_t persistentBlocks, int64_t threads, void *stream,
                      void **params, int64_t cluster = 1) {
    if (gx > 0x7fffffff || gy > 65535 || gz > 65535)
      return runtime::invalidArgument(
          std::string(kernel) + ": the grid (" + std::to_string(gx) + ", " +
          std::to_string(gy) + ", " + std::to_string(gz) +
          ") exceeds CUDA's limits (2^31 - 1, 65535, "
          "65535)");
    CUfunction fn = nullptr;
    Status status = function(kernel, fn);
    if (!status.ok())
      return status;
    bool persistent = persistentBlocks > 0;
    if (traceLaunches() && persistent) {
      std::string clusters =
          cluster > 1 ? " in clusters of " + std::to_string(cluster) : "";
      std::fprintf(stderr,
                   "tlc: %s: launching %s (persistent: %lld blocks%s for "
                   "%lld)\n",
                   kernel, entry, static_cast<long long>(persistentBlocks),
                   clusters.c_str(), static_cast<long long>(gx * gy * gz));
    } else if (traceLaunches())
      std::fprintf(stderr, "tlc: %s: launching %s\n", kernel, entry);
    const Driver &d = driver();
    if (persistent && cluster > 1) {
      LaunchAttribute attribute;
      LaunchConfig config =
          clusterLaunch(persistentBlocks, threads, cluster, stream, attribute);
      CUresult r = d.cuLaunchKernelEx(&config, fn, params, nullptr);
      if (r != CUDA_SUCCESS)
        return error(kernel, "cuLaunchKernelEx (clusters of " +
                                 std::to_string(cluster) +
                                 ") failed: " + d.describe(r));
      return Status{};
    }
    CUresult r = d.cuLaunchKernel(
        fn, static_cast<unsigned>(persistent ? persistentBlocks : gx),
        static_cast<unsigned>(persistent ? 1 : gy),
        static_cast<unsigned>(persistent ? 1 : gz),
        static_cast<unsigned>(threads), 1, 1,
        static_cast<unsigned>(sharedBytes), static_cast<CUstream>(stream),
        params, nullptr);
    if (r != CUDA_SUCCESS)
      return error(kernel, "cuLaunchKernel failed: " + d.describe(r));
    return Status{};
  }

private:
  const void *image;
  size_t imageSize;
  const char *entry;
  int64_t sharedBytes;
  std::mutex mutex;                                   // guards functions
  std::map<unsigned long long, CUfunction> functions; // by context
};

/// The scratch of an operation: device memory allocated and freed in the
/// order of the launch stream (LaunchOptions::stream), so the operation's
/// kernels, queued on that stream, run before it is reused; no host sync.
class Scratch {
public:
  Scratch() = default;
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  ~Scratch() { release(); }

  Status allocate(const char *operation, size_t bytes,
                  const LaunchOptions &options) {
    const Driver &d = driver();
    if (!d.error.empty())
      return error(operation, d.error);
    if (!d.cuMemAllocAsync || !d.cuMemFreeAsync)
      return error(operation, "the driver lacks cuMemAllocAsync (CUDA 11.2 "
                              "and later), which scratch tensors need");
    CUcontext ctx = nullptr;
    Status s = currentContext(operation, ctx);
    if (!s.ok())
      return s;
    name = operation;
    stream = static_cast<CUstream>(options.stream);
    CUresult r = d.cuMemAllocAsync(&memory, bytes ? bytes : 1, stream);
    if (r != CUDA_SUCCESS) {
      memory = 0;
      return error(operation, "cannot allocate " + std::to_string(bytes) +
                                  " bytes of scratch memory: " + d.describe(r));
    }
    return Status{};
  }
  void *data() const { return reinterpret_cast<void *>(memory); }
  Status release() {
    if (!memory)
      return Status{};
    const Driver &d = driver();
    CUresult r = d.cuMemFreeAsync(memory, stream);
    memory = 0;
    if (r != CUDA_SUCCESS)
      return error(name, "cuMemFreeAsync failed: " + d.describe(r));
    return Status{};
  }

private:
  const char *name = "";
  CUdeviceptr memory = 0;
  CUstream stream = nullptr;
};

} // namespace cuda
} // namespace tlc

#endif /* TLC_RUNTIME_TLC_CUDA_H */
