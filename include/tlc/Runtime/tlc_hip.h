/* tlc_hip.h - Header-only HIP runtime loader for tlc-generated ROCm stubs. */
/*===----------------------------------------------------------------------===
 *
 * A ROCm launch stub embeds its device binary (an AMDGPU code object) and
 * launches it through the HIP module API, which this header loads at run
 * time: libamdhip64.so is opened with dlopen on the first launch (never
 * before), so a program that never launches a ROCm kernel needs no GPU
 * library and links with nothing but -ldl (and -pthread). The HIP types used
 * are declared here (in namespace tlc::hip), so neither the HIP headers nor
 * ROCm are needed to build a stub. Errors come back as a tlc::Status
 * carrying the HIP error name and text; nothing calls exit() or throws out of
 * the launch path.
 *
 * C++17, Linux (dlopen). Not part of the C ABI.
 *
 *===----------------------------------------------------------------------===*/
#ifndef TLC_RUNTIME_TLC_HIP_H
#define TLC_RUNTIME_TLC_HIP_H

#include "tlc/Runtime/tlc_runtime.h"

#include <dlfcn.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace tlc {
namespace hip {

//===--- HIP API declarations (a subset of hip_runtime_api.h) -------------===//

/// Opaque HIP handles; the same layout as hip_runtime_api.h's hipModule_t,
/// ...
struct ihipModule_t;
struct ihipModuleSymbol_t;
struct ihipStream_t;
using hipModule_t = ihipModule_t *;
using hipFunction_t = ihipModuleSymbol_t *;
using hipStream_t = ihipStream_t *;

/// hip_runtime_api.h's hipError_t; the values tlc names itself (they match
/// CUDA's).
enum hipError_t : int {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorNotInitialized = 3,
  hipErrorInvalidDeviceFunction = 98,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidImage = 200,
  hipErrorNotFound = 500,
  hipErrorLaunchFailure = 719,
};

/// hip_runtime_api.h's hipDeviceAttribute_t; only the values tlc uses.
enum hipDeviceAttribute_t : int {
  hipDeviceAttributeMultiprocessorCount = 63,
  hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
};

/// hip_runtime_api.h's hipFunction_attribute; only the value tlc uses.
enum hipFunction_attribute : int {
  HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
};

using PFN_hipInit = hipError_t (*)(unsigned int flags);
using PFN_hipGetDevice = hipError_t (*)(int *deviceId);
using PFN_hipDeviceGetAttribute = hipError_t (*)(int *value,
                                                 hipDeviceAttribute_t attr,
                                                 int deviceId);
using PFN_hipModuleLoadData = hipError_t (*)(hipModule_t *module,
                                             const void *image);
using PFN_hipModuleGetFunction = hipError_t (*)(hipFunction_t *function,
                                                hipModule_t module,
                                                const char *kname);
using PFN_hipFuncGetAttribute = hipError_t (*)(int *value,
                                               hipFunction_attribute attrib,
                                               hipFunction_t hfunc);
using PFN_hipModuleLaunchKernel = hipError_t (*)(
    hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
    unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
    unsigned int blockDimZ, unsigned int sharedMemBytes, hipStream_t stream,
    void **kernelParams, void **extra);
using PFN_hipMallocAsync = hipError_t (*)(void **ptr, size_t bytes,
                                          hipStream_t stream);
using PFN_hipFreeAsync = hipError_t (*)(void *ptr, hipStream_t stream);
using PFN_hipGetErrorName = const char *(*)(hipError_t error);
using PFN_hipGetErrorString = const char *(*)(hipError_t error);

/// The names the HIP runtime is looked up under, in order: the development
/// link, then the sonames of ROCm 6 and ROCm 5.
constexpr const char *kLibraryNames[] = {"libamdhip64.so", "libamdhip64.so.6",
                                         "libamdhip64.so.5"};

//===--- The HIP runtime --------------------------------------------------===//

/// The HIP runtime library and the entry points tlc uses, loaded once.
struct Library {
  std::string error; // why HIP cannot be used; empty when it can
  std::string name;  // the file name that was loaded
  void *handle = nullptr;
  PFN_hipInit hipInit = nullptr;
  PFN_hipGetDevice hipGetDevice = nullptr;
  PFN_hipDeviceGetAttribute hipDeviceGetAttribute = nullptr;
  PFN_hipModuleLoadData hipModuleLoadData = nullptr;
  PFN_hipModuleGetFunction hipModuleGetFunction = nullptr;
  PFN_hipFuncGetAttribute hipFuncGetAttribute = nullptr;
  PFN_hipModuleLaunchKernel hipModuleLaunchKernel = nullptr;
  PFN_hipGetErrorName hipGetErrorName = nullptr;
  PFN_hipGetErrorString hipGetErrorString = nullptr;
  // Optional (ROCm 5.2+): operations with scratch tensors need them.
  PFN_hipMallocAsync hipMallocAsync = nullptr;
  PFN_hipFreeAsync hipFreeAsync = nullptr;

  /// "hipErrorNoDevice (no ROCm-capable device is detected)". Some HIP
  /// versions return the name as the text; it is then not repeated.
  std::string describe(hipError_t r) const {
    const char *errorName = hipGetErrorName ? hipGetErrorName(r) : nullptr;
    const char *text = hipGetErrorString ? hipGetErrorString(r) : nullptr;
    std::string s =
        errorName ? errorName : "HIP error " + std::to_string(int(r));
    if (text && *text && s != text)
      s += std::string(" (") + text + ")";
    return s;
  }
};

namespace detail {

template <typename F> bool resolve(Library &lib, F &fn, const char *symbol) {
  fn = reinterpret_cast<F>(dlsym(lib.handle, symbol));
  if (!fn && lib.error.empty())
    lib.error = "cannot load " + lib.name + ": it lacks " + symbol;
  return fn != nullptr;
}

inline Library loadLibrary() noexcept {
  Library lib;
  try {
    std::string firstError; // the most telling one: the unversioned name
    for (const char *candidate : kLibraryNames) {
      lib.handle = dlopen(candidate, RTLD_NOW | RTLD_LOCAL);
      if (lib.handle) {
        lib.name = candidate;
        break;
      }
      const char *why = dlerror();
      if (firstError.empty())
        firstError = why ? why : "unknown error";
    }
    if (!lib.handle) {
      lib.error = "cannot load libamdhip64.so, libamdhip64.so.6 or "
                  "libamdhip64.so.5 (" +
                  firstError + "); is ROCm installed?";
      return lib;
    }
    resolve(lib, lib.hipGetErrorName, "hipGetErrorName");
    resolve(lib, lib.hipGetErrorString, "hipGetErrorString");
    resolve(lib, lib.hipInit, "hipInit");
    resolve(lib, lib.hipGetDevice, "hipGetDevice");
    resolve(lib, lib.hipDeviceGetAttribute, "hipDeviceGetAttribute");
    resolve(lib, lib.hipModuleLoadData, "hipModuleLoadData");
    resolve(lib, lib.hipModuleGetFunction, "hipModuleGetFunction");
    resolve(lib, lib.hipFuncGetAttribute, "hipFuncGetAttribute");
    resolve(lib, lib.hipModuleLaunchKernel, "hipModuleLaunchKernel");
    lib.hipMallocAsync = reinterpret_cast<PFN_hipMallocAsync>(
        dlsym(lib.handle, "hipMallocAsync"));
    lib.hipFreeAsync =
        reinterpret_cast<PFN_hipFreeAsync>(dlsym(lib.handle, "hipFreeAsync"));
    if (!lib.error.empty())
      return lib;
    hipError_t r = lib.hipInit(0);
    if (r != hipSuccess)
      lib.error = "hipInit failed: " + lib.describe(r);
  } catch (...) {
    lib.error = "out of memory while loading libamdhip64.so";
  }
  return lib;
}

} // namespace detail

/// The process-wide HIP runtime, loaded (thread-safely) on first use. Never
/// unloaded: modules may still be in use at exit.
inline const Library &library() {
  static const Library *lib = new Library(detail::loadLibrary());
  return *lib;
}

inline Status error(const char *kernel, const std::string &message) {
  return Status{TLC_ERR_RUNTIME, std::string(kernel) + ": hip: " + message};
}

/// The device current on this thread (device 0 unless hipSetDevice chose
/// another).
inline Status currentDevice(const char *kernel, int &device) {
  const Library &lib = library();
  device = 0;
  hipError_t r = lib.hipGetDevice(&device);
  if (r != hipSuccess)
    return error(kernel, "hipGetDevice failed: " + lib.describe(r));
  return Status{};
}

/// The compute-unit count of the current device; 0 when HIP cannot say,
/// for example without a GPU.
inline int64_t multiprocessorCount() {
  const Library &lib = library();
  int device = 0, units = 0;
  if (!lib.error.empty() || !lib.hipGetDevice || !lib.hipDeviceGetAttribute ||
      lib.hipGetDevice(&device) != hipSuccess ||
      lib.hipDeviceGetAttribute(&units, hipDeviceAttributeMultiprocessorCount,
                                device) != hipSuccess)
    return 0;
  return units;
}

/// One kernel of an embedded binary: its module is loaded lazily, once per
/// device, and the function looked up there. Thread-safe; a stub keeps one
/// as a function-local static.
class Kernel {
public:
  /// `image` (an AMDGPU code object or offload bundle) must outlive the
  /// kernel.
  Kernel(const void *image, size_t imageSize, const char *entry,
         int64_t dynamicSharedBytes)
      : image(image), imageSize(imageSize), entry(entry),
        sharedBytes(dynamicSharedBytes) {}
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;

  /// The function on the current device (loading the module there first).
  Status function(const char *kernel, hipFunction_t &fn) {
    fn = nullptr;
    if (imageSize == 0)
      return error(kernel, "kernel binary not available (this stub was "
                           "generated without device code)");
    const Library &lib = library();
    if (!lib.error.empty())
      return error(kernel, lib.error);
    int device = 0;
    Status status = currentDevice(kernel, device);
    if (!status.ok())
      return status;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = functions.find(device);
    if (it != functions.end()) {
      if (it->second.status.ok())
        fn = it->second.fn;
      return it->second.status;
    }
    hipModule_t module = nullptr;
    hipError_t r = lib.hipModuleLoadData(&module, image);
    if (r != hipSuccess)
      return error(kernel,
                   "cannot load the kernel binary (hipModuleLoadData): " +
                       lib.describe(r));
    // The module stays loaded; whether its function can run on this device
    // is remembered, so a failing launch does not load it again.
    Loaded &loaded = functions[device];
    r = lib.hipModuleGetFunction(&loaded.fn, module, entry);
    if (r != hipSuccess) {
      loaded.fn = nullptr;
      loaded.status =
          error(kernel, std::string("no entry ") + entry +
                            " in the kernel binary: " + lib.describe(r));
    } else if (sharedBytes > 0) {
      loaded.status = checkLds(kernel, lib, loaded.fn, device);
    }
    if (loaded.status.ok())
      fn = loaded.fn;
    return loaded.status;
  }

  /// Launches the kernel on `stream` (nullptr: the default stream) with the
  /// grid (gx, gy, gz), `threads` x 1 x 1 threads per block and the kernel's
  /// dynamic LDS. Asynchronous: errors of the running kernel surface at the
  /// next synchronization, as with any HIP launch.
  Status launch(const char *kernel, int64_t gx, int64_t gy, int64_t gz,
                int64_t threads, void *stream, void **params) {
    // AMD GPUs count the grid in work-items: blocks * threads per dimension
    // must fit in 32 bits.
    constexpr int64_t kMaxWorkItems = 0xffffffff;
    if (gx > kMaxWorkItems / (threads > 0 ? threads : 1) ||
        gy > kMaxWorkItems || gz > kMaxWorkItems)
      return runtime::invalidArgument(
          std::string(kernel) + ": the grid (" + std::to_string(gx) + ", " +
          std::to_string(gy) + ", " + std::to_string(gz) +
          ") exceeds HIP's limits (x * " + std::to_string(threads) +
          " threads, y, z: at most 2^32 - 1)");
    hipFunction_t fn = nullptr;
    Status status = function(kernel, fn);
    if (!status.ok())
      return status;
    const Library &lib = library();
    hipError_t r = lib.hipModuleLaunchKernel(
        fn, static_cast<unsigned>(gx), static_cast<unsigned>(gy),
        static_cast<unsigned>(gz), static_cast<unsigned>(threads), 1, 1,
        static_cast<unsigned>(sharedBytes), static_cast<hipStream_t>(stream),
        params, nullptr);
    if (r != hipSuccess)
      return error(kernel, "hipModuleLaunchKernel failed: " + lib.describe(r));
    return Status{};
  }

private:
  const void *image;
  size_t imageSize;
  const char *entry;
  int64_t sharedBytes;
  /// The kernel's function in the module loaded on one device, and why it
  /// cannot be launched there (ok when it can).
  struct Loaded {
    hipFunction_t fn = nullptr;
    Status status;
  };
  std::mutex mutex;                // guards functions
  std::map<int, Loaded> functions; // by device

  /// AMD has no opt-in for dynamic LDS, and a launch asking for more than a
  /// workgroup can have fails without saying why; check it once per device.
  Status checkLds(const char *kernel, const Library &lib, hipFunction_t fn,
                  int device) const {
    int limit = 0, staticBytes = 0;
    hipError_t r = lib.hipDeviceGetAttribute(
        &limit, hipDeviceAttributeMaxSharedMemoryPerBlock, device);
    if (r != hipSuccess)
      return error(kernel, "hipDeviceGetAttribute failed: " + lib.describe(r));
    r = lib.hipFuncGetAttribute(&staticBytes,
                                HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn);
    if (r != hipSuccess)
      return error(kernel, "hipFuncGetAttribute failed: " + lib.describe(r));
    if (staticBytes + sharedBytes <= limit)
      return Status{};
    std::string need = std::to_string(sharedBytes) + " bytes of dynamic LDS";
    if (staticBytes > 0)
      need += " (plus " + std::to_string(staticBytes) + " static)";
    return error(kernel, "the kernel needs " + need +
                             " per workgroup, more than device " +
                             std::to_string(device) + " allows (" +
                             std::to_string(limit) + " bytes)");
  }
};

/// The scratch of an operation: device memory allocated and freed in the
/// order of the launch stream (LaunchOptions::stream), after the
/// operation's kernels on it; no host sync.
class Scratch {
public:
  Scratch() = default;
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  ~Scratch() { release(); }

  Status allocate(const char *operation, size_t bytes,
                  const LaunchOptions &options) {
    const Library &lib = library();
    if (!lib.error.empty())
      return error(operation, lib.error);
    if (!lib.hipMallocAsync || !lib.hipFreeAsync)
      return error(operation, lib.name + " lacks hipMallocAsync (ROCm 5.2 "
                                         "and later), which scratch tensors "
                                         "need");
    name = operation;
    stream = static_cast<hipStream_t>(options.stream);
    hipError_t r = lib.hipMallocAsync(&memory, bytes ? bytes : 1, stream);
    if (r != hipSuccess) {
      memory = nullptr;
      return error(operation,
                   "cannot allocate " + std::to_string(bytes) +
                       " bytes of scratch memory: " + lib.describe(r));
    }
    return Status{};
  }
  void *data() const { return memory; }
  Status release() {
    if (!memory)
      return Status{};
    const Library &lib = library();
    hipError_t r = lib.hipFreeAsync(memory, stream);
    memory = nullptr;
    if (r != hipSuccess)
      return error(name, "hipFreeAsync failed: " + lib.describe(r));
    return Status{};
  }

private:
  const char *name = "";
  void *memory = nullptr;
  hipStream_t stream = nullptr;
};

} // namespace hip
} // namespace tlc

#endif /* TLC_RUNTIME_TLC_HIP_H */
