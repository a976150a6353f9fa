/* tlc_metal.h - Header-only Metal runtime for tlc-generated Metal stubs. */
/*===----------------------------------------------------------------------===
 *
 * A Metal launch stub (NAME.mm, Objective-C++) embeds the MSL of its
 * kernels and launches them through this header: at a kernel's first launch
 * its translation unit (the MSL under TLC_KERNEL_<entry>) is compiled with
 * newLibraryWithSource and made a compute pipeline.
 *
 * Tensors live in Metal buffers of shared storage: tlc::metal::allocate
 * returns the buffer's contents pointer, which the host may read and write
 * directly (unified memory) or through upload/download, and a tensor's
 * `data` may point anywhere inside an allocation. The stub resolves each
 * address to its buffer, binds it at [[buffer(tensor index)]] and passes the
 * element offset, the sizes, strides and scalars as 32-bit words after the
 * tensors (setBytes) - the ABI of the Vulkan kernels (docs/metal.md).
 *
 * The context is tlc's own: the system's default device (TLC_METAL_DEVICE=N
 * picks the N-th of MTLCopyAllDevices), one command queue. A launch encodes
 * one dispatch, commits it and waits for it (launches are synchronous).
 * Errors come back as a tlc::Status; nothing throws out of the launch path
 * or calls exit(). Works with and without ARC.
 *
 * Objective-C++ (C++17), macOS: link -framework Metal -framework Foundation.
 *
 *===----------------------------------------------------------------------===*/
#ifndef TLC_RUNTIME_TLC_METAL_H
#define TLC_RUNTIME_TLC_METAL_H

#if !defined(__OBJC__)
#error                                                                         \
    "tlc_metal.h is Objective-C++: compile Metal stubs (.mm) as Objective-C++ (clang++ -x objective-c++; CMake: LANGUAGE OBJCXX)"
#endif

#include "tlc/Runtime/tlc_runtime.h"

#import <Foundation/Foundation.h>
#import <Metal/Metal.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#if __has_feature(objc_arc)
#define TLC_METAL_RELEASE(object) ((void)0)
#define TLC_METAL_RETAIN(object) (object)
#else
#define TLC_METAL_RELEASE(object) [(object) release]
#define TLC_METAL_RETAIN(object) [(object) retain]
#endif

namespace tlc {
namespace metal {

inline std::string describe(NSError *error) {
  if (!error)
    return "unknown error";
  const char *text = [[error localizedDescription] UTF8String];
  return text ? text : "unknown error";
}

inline Status error(const char *kernel, const std::string &message) {
  return Status{TLC_ERR_RUNTIME, std::string(kernel) + ": metal: " + message};
}

/// tlc's Metal context: device, queue and the buffers of allocate.
struct Context {
  id<MTLDevice> device = nil;
  id<MTLCommandQueue> queue = nil;
  std::string error; // why there is no device
  std::mutex mutex;
  /// Buffers by their contents address.
  std::map<uint64_t, id<MTLBuffer>> allocations;

  /// The allocation that holds `address`, or nullptr.
  const std::pair<const uint64_t, id<MTLBuffer>> *find(uint64_t address) const {
    auto it = allocations.upper_bound(address);
    if (it == allocations.begin())
      return nullptr;
    --it;
    return address < it->first + [it->second length] ? &*it : nullptr;
  }
};

inline Context &context() {
  static Context *made = [] {
    auto *c = new Context; // lives as long as the process
    @autoreleasepool {
      const char *env = std::getenv("TLC_METAL_DEVICE");
      if (env && *env) {
        NSArray<id<MTLDevice>> *all = MTLCopyAllDevices();
        char *end = nullptr;
        long n = std::strtol(env, &end, 10);
        if (*end || n < 0 || n >= static_cast<long>([all count]))
          c->error = std::string("TLC_METAL_DEVICE=") + env +
                     " names no device (" + std::to_string([all count]) +
                     " found)";
        else
          c->device =
              TLC_METAL_RETAIN([all objectAtIndex:static_cast<NSUInteger>(n)]);
        TLC_METAL_RELEASE(all);
      } else {
        c->device = MTLCreateSystemDefaultDevice();
      }
      if (!c->device && c->error.empty())
        c->error = "no Metal device";
      if (c->device) {
        c->queue = [c->device newCommandQueue];
        if (!c->queue)
          c->error = "cannot create a command queue";
      }
    }
    return c;
  }();
  return *made;
}

/// The device's name, or why there is none.
inline std::string deviceName() {
  Context &c = context();
  if (!c.error.empty())
    return c.error;
  const char *name = [[c.device name] UTF8String];
  return name ? name : "unnamed Metal device";
}

/// Compute units for the fill heuristic: Metal does not say (0: unknown).
inline int64_t multiprocessorCount() { return 0; }

/// Allocates `bytes` of shared memory; `address` (the contents) names it
/// for tensors and the host may use it directly.
inline Status allocate(size_t bytes, void *&address) {
  address = nullptr;
  Context &c = context();
  if (!c.error.empty())
    return Status{TLC_ERR_RUNTIME, "metal: " + c.error};
  id<MTLBuffer> buffer =
      [c.device newBufferWithLength:(bytes ? bytes : 1)
                            options:MTLResourceStorageModeShared];
  if (!buffer)
    return Status{TLC_ERR_RUNTIME,
                  "metal: cannot allocate " + std::to_string(bytes) + " bytes"};
  std::lock_guard<std::mutex> lock(c.mutex);
  address = [buffer contents];
  c.allocations[reinterpret_cast<uint64_t>(address)] = buffer;
  return Status{};
}

/// Frees what allocate returned (nullptr: nothing).
inline void release(void *address) {
  if (!address)
    return;
  Context &c = context();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.allocations.find(reinterpret_cast<uint64_t>(address));
  if (it == c.allocations.end())
    return;
  TLC_METAL_RELEASE(it->second);
  c.allocations.erase(it);
}

namespace detail {
/// Copies between host memory and an allocation (`toDevice`).
inline Status transfer(void *address, void *host, size_t bytes, bool toDevice) {
  Context &c = context();
  if (!c.error.empty())
    return Status{TLC_ERR_RUNTIME, "metal: " + c.error};
  std::lock_guard<std::mutex> lock(c.mutex);
  uint64_t at = reinterpret_cast<uint64_t>(address);
  auto *found = c.find(at);
  if (!found || at + bytes > found->first + [found->second length])
    return runtime::invalidArgument(
        "metal: the copy is not inside one allocation of tlc::metal");
  std::memcpy(toDevice ? address : host, toDevice ? host : address, bytes);
  return Status{};
}
} // namespace detail

inline Status upload(void *address, const void *host, size_t bytes) {
  return detail::transfer(address, const_cast<void *>(host), bytes, true);
}
inline Status download(void *host, const void *address, size_t bytes) {
  return detail::transfer(const_cast<void *>(address), host, bytes, false);
}

using runtime::pushWord;

/// One kernel of an embedded MSL source: its pipeline, made at the first
/// launch.
class Kernel {
public:
  /// `unit`: the entry point that names the kernel's translation unit
  /// (TLC_KERNEL_<unit>); `function`: its MSL function.
  Kernel(const char *source, size_t sourceSize, const char *unit,
         const char *function, uint32_t bindings, const uint32_t *block,
         uint32_t pushWords, uint32_t threads, uint32_t simdWidth)
      : source(source), sourceSize(sourceSize), unit(unit), function(function),
        bindings(bindings), block(block), pushWords(pushWords),
        threads(threads), simdWidth(simdWidth) {}
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;

  /// Runs the kernel on a gx x gy x gz grid. `tensors[i]` is tensor i's
  /// data address and `elementBytes[i]` its element size; `words` the
  /// words after the tensors' element offsets.
  Status launch(const char *kernel, int64_t gx, int64_t gy, int64_t gz,
                const void *const *tensors, const uint32_t *elementBytes,
                const uint32_t *words) {
    Context &c = context();
    if (!c.error.empty())
      return error(kernel, c.error);
    if (sourceSize == 0)
      return error(kernel, "kernel binary not available (this stub was "
                           "generated without device code)");
    std::lock_guard<std::mutex> lock(c.mutex);
    Status status = prepare(kernel, c);
    if (!status.ok())
      return status;
    if (gx > UINT32_MAX || gy > UINT32_MAX || gz > UINT32_MAX)
      return runtime::invalidArgument(std::string(kernel) +
                                      ": the grid exceeds 2^32-1 "
                                      "threadgroups in a dimension");
    std::vector<uint32_t> offsets(bindings), push(pushWords ? pushWords : 1);
    std::vector<id<MTLBuffer>> buffers(bindings);
    for (uint32_t t = 0; t < bindings; ++t) {
      uint64_t at = reinterpret_cast<uint64_t>(tensors[t]);
      auto *found = c.find(at);
      if (!found)
        return runtime::invalidArgument(
            std::string(kernel) + ": tensor " + std::to_string(t) +
            "'s data is not an address of tlc::metal::allocate");
      uint64_t offset = at - found->first;
      if (offset % elementBytes[t])
        return Status{TLC_ERR_ALIGNMENT,
                      std::string(kernel) + ": tensor " + std::to_string(t) +
                          "'s data is not aligned to its element size"};
      if (offset / elementBytes[t] > INT32_MAX)
        return runtime::invalidArgument(
            std::string(kernel) + ": tensor " + std::to_string(t) +
            " starts past element 2^31 of its allocation");
      buffers[t] = found->second;
      offsets[t] = static_cast<uint32_t>(offset / elementBytes[t]);
    }
    runtime::pushBlock(offsets.data(), bindings, words, block, pushWords,
                       push.data());
    @autoreleasepool {
      id<MTLCommandBuffer> commands = [c.queue commandBuffer];
      id<MTLComputeCommandEncoder> encoder = [commands computeCommandEncoder];
      if (!commands || !encoder)
        return error(kernel, "cannot create a command buffer");
      [encoder setComputePipelineState:pipeline];
      for (uint32_t t = 0; t < bindings; ++t)
        [encoder setBuffer:buffers[t] offset:0 atIndex:t];
      if (pushWords)
        [encoder setBytes:push.data() length:pushWords * 4 atIndex:bindings];
      [encoder dispatchThreadgroups:MTLSizeMake(static_cast<NSUInteger>(gx),
                                                static_cast<NSUInteger>(gy),
                                                static_cast<NSUInteger>(gz))
              threadsPerThreadgroup:MTLSizeMake(threads, 1, 1)];
      [encoder endEncoding];
      [commands commit];
      [commands waitUntilCompleted];
      if ([commands status] == MTLCommandBufferStatusError)
        return error(kernel,
                     "the launch failed: " + describe([commands error]));
    }
    return Status{};
  }

private:
  const char *source;
  size_t sourceSize;
  const char *unit;
  const char *function;
  uint32_t bindings;
  const uint32_t *block; // the ABI's word of each pushed word
  uint32_t pushWords, threads, simdWidth;
  Status made;
  bool tried = false;
  id<MTLComputePipelineState> pipeline = nil;

  /// Makes the pipeline once (under the context's lock).
  Status prepare(const char *kernel, Context &c) {
    if (tried)
      return made;
    tried = true;
    @autoreleasepool {
      made = makePipeline(kernel, c);
    }
    return made;
  }

  Status makePipeline(const char *kernel, Context &c) {
    NSString *text = [NSString stringWithUTF8String:source];
    NSString *macro = [NSString stringWithFormat:@"TLC_KERNEL_%s", unit];
    MTLCompileOptions *options = [MTLCompileOptions new];
    options.preprocessorMacros = @{macro : @1};
    // IEEE semantics: the kernels start reductions at -inf and test for
    // NaN, which fast math may assume away. (fastMathEnabled is deprecated
    // for mathMode since macOS 15 and still honored.)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    options.fastMathEnabled = NO;
#pragma clang diagnostic pop
    NSError *failure = nil;
    id<MTLLibrary> library = [c.device newLibraryWithSource:text
                                                    options:options
                                                      error:&failure];
    TLC_METAL_RELEASE(options);
    if (!library)
      return error(kernel, std::string("cannot compile the MSL of ") + unit +
                               ": " + describe(failure));
    id<MTLFunction> entry = [library newFunctionWithName:@(function)];
    TLC_METAL_RELEASE(library);
    if (!entry)
      return error(kernel, std::string("the MSL has no function ") + function);
    pipeline = [c.device newComputePipelineStateWithFunction:entry
                                                       error:&failure];
    TLC_METAL_RELEASE(entry);
    if (!pipeline)
      return error(kernel, std::string("cannot create the pipeline of ") +
                               function + ": " + describe(failure));
    // The kernels' shuffles assume whole SIMD groups of this width.
    if ([pipeline threadExecutionWidth] != simdWidth)
      return error(kernel, "compiled for SIMD groups of " +
                               std::to_string(simdWidth) +
                               " (tlc -arch=...), "
                               "but " +
                               deviceName() + " runs " +
                               std::to_string([pipeline threadExecutionWidth]) +
                               " threads per SIMD group");
    if ([pipeline maxTotalThreadsPerThreadgroup] < threads)
      return error(
          kernel, "the kernel needs " + std::to_string(threads) +
                      " threads per threadgroup; " + deviceName() +
                      " runs it with at most " +
                      std::to_string([pipeline maxTotalThreadsPerThreadgroup]));
    return Status{};
  }
};

/// The scratch of an operation: memory of allocate(), released when the
/// operation returns (its kernels, launched synchronously, are done).
class Scratch {
public:
  Scratch() = default;
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  ~Scratch() { release(); }

  Status allocate(const char *operation, size_t bytes, const LaunchOptions &) {
    Status s = metal::allocate(bytes ? bytes : 1, memory);
    if (!s.ok())
      return Status{s.code, std::string(operation) + ": scratch: " + s.message};
    return Status{};
  }
  void *data() const { return memory; }
  Status release() {
    metal::release(memory);
    memory = nullptr;
    return Status{};
  }

private:
  void *memory = nullptr;
};

} // namespace metal
} // namespace tlc

#endif // TLC_RUNTIME_TLC_METAL_H
