/* tlc_vulkan.h - Header-only Vulkan runtime for tlc-generated Vulkan stubs. */
/*===----------------------------------------------------------------------===
 *
 * A Vulkan launch stub embeds its SPIR-V and launches it through this
 * header, which opens libvulkan.so.1 with dlopen at the first use (a
 * program that never launches a Vulkan kernel needs no Vulkan library).
 *
 * Tensors live in Vulkan buffers. Like CUDA device pointers, they are named
 * by addresses: tlc::vulkan::allocate returns one (a tlc address, not a
 * host pointer: a buffer of this context's registry plus a byte offset), and
 * a tensor's `data` may point anywhere inside an allocation. The stub
 * resolves each address to its buffer, binds it as a storage buffer
 * (descriptor set 0, binding = tensor index, bound at the device's offset
 * alignment) and passes the rest of the offset, the sizes, strides and
 * scalars as 32-bit push constants (docs/vulkan.md).
 *
 * The context is tlc's own: the first physical device with a compute queue
 * (TLC_VULKAN_DEVICE=N picks another), one queue, one command pool; or the
 * program's device and queue (useDevice, before any other use). A launch
 * records one dispatch, submits it and waits for it, or, given a
 * VkCommandBuffer (LaunchOptions::stream), is recorded into it for the
 * program to submit. Errors come back as a tlc::Status; nothing throws out
 * of the launch path or calls exit().
 *
 * C++17, Linux (dlopen); needs the Vulkan headers (libvulkan-dev).
 *
 *===----------------------------------------------------------------------===*/
#ifndef TLC_RUNTIME_TLC_VULKAN_H
#define TLC_RUNTIME_TLC_VULKAN_H

#include "tlc/Runtime/tlc_runtime.h"

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tlc {
namespace vulkan {

/// The Vulkan functions tlc uses, loaded from libvulkan.so.1.
struct Library {
  std::string error; // why Vulkan cannot be used; empty when it can
  void *handle = nullptr;
#define TLC_VK_FUNCTIONS(X)                                                    \
  X(vkEnumeratePhysicalDevices)                                                \
  X(vkGetPhysicalDeviceProperties)                                             \
  X(vkGetPhysicalDeviceProperties2)                                            \
  X(vkGetPhysicalDeviceFeatures2)                                              \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                  \
  X(vkGetPhysicalDeviceMemoryProperties)                                       \
  X(vkEnumerateDeviceExtensionProperties)                                      \
  X(vkCreateDevice)                                                            \
  X(vkGetDeviceQueue)                                                          \
  X(vkCreateBuffer)                                                            \
  X(vkDestroyBuffer)                                                           \
  X(vkGetBufferMemoryRequirements)                                             \
  X(vkAllocateMemory)                                                          \
  X(vkFreeMemory)                                                              \
  X(vkBindBufferMemory)                                                        \
  X(vkMapMemory)                                                               \
  X(vkCreateShaderModule)                                                      \
  X(vkDestroyShaderModule)                                                     \
  X(vkCreateDescriptorSetLayout)                                               \
  X(vkCreatePipelineLayout)                                                    \
  X(vkCreateComputePipelines)                                                  \
  X(vkCreatePipelineCache)                                                     \
  X(vkGetPipelineCacheData)                                                    \
  X(vkCreateDescriptorPool)                                                    \
  X(vkAllocateDescriptorSets)                                                  \
  X(vkUpdateDescriptorSets)                                                    \
  X(vkResetDescriptorPool)                                                     \
  X(vkCreateCommandPool)                                                       \
  X(vkAllocateCommandBuffers)                                                  \
  X(vkResetCommandBuffer)                                                      \
  X(vkBeginCommandBuffer)                                                      \
  X(vkEndCommandBuffer)                                                        \
  X(vkCmdBindPipeline)                                                         \
  X(vkCmdBindDescriptorSets)                                                   \
  X(vkCmdPushConstants)                                                        \
  X(vkCmdDispatch)                                                             \
  X(vkCmdCopyBuffer)                                                           \
  X(vkCreateFence)                                                             \
  X(vkResetFences)                                                             \
  X(vkWaitForFences)                                                           \
  X(vkQueueSubmit)                                                             \
  X(vkCmdUpdateBuffer)                                                         \
  X(vkCmdPipelineBarrier)                                                      \
  X(vkQueueWaitIdle)                                                           \
  X(vkDestroyPipeline)                                                         \
  X(vkDestroyPipelineLayout)                                                   \
  X(vkDestroyDescriptorSetLayout)                                              \
  X(vkDestroyDescriptorPool)                                                   \
  X(vkDestroyPipelineCache)                                                    \
  X(vkDestroyCommandPool)                                                      \
  X(vkDestroyFence)                                                            \
  X(vkDestroyDevice)                                                           \
  X(vkDestroyInstance)
#define TLC_VK_DECLARE(name) PFN_##name name = nullptr;
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  /// VK_KHR_push_descriptor's, when the device has it enabled.
  PFN_vkCmdPushDescriptorSetKHR vkCmdPushDescriptorSetKHR = nullptr;
  PFN_vkCreateInstance vkCreateInstance = nullptr; // before an instance
  TLC_VK_FUNCTIONS(TLC_VK_DECLARE)
#undef TLC_VK_DECLARE
};

inline std::string describe(VkResult r) {
  switch (r) {
  case VK_ERROR_OUT_OF_HOST_MEMORY:
    return "VK_ERROR_OUT_OF_HOST_MEMORY";
  case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    return "VK_ERROR_OUT_OF_DEVICE_MEMORY (out of GPU memory)";
  case VK_ERROR_INITIALIZATION_FAILED:
    return "VK_ERROR_INITIALIZATION_FAILED";
  case VK_ERROR_DEVICE_LOST:
    return "VK_ERROR_DEVICE_LOST";
  case VK_ERROR_EXTENSION_NOT_PRESENT:
    return "VK_ERROR_EXTENSION_NOT_PRESENT";
  case VK_ERROR_FEATURE_NOT_PRESENT:
    return "VK_ERROR_FEATURE_NOT_PRESENT";
  case VK_ERROR_INCOMPATIBLE_DRIVER:
    return "VK_ERROR_INCOMPATIBLE_DRIVER (no Vulkan driver; install "
           "mesa-vulkan-drivers for lavapipe)";
  case VK_ERROR_INVALID_SHADER_NV:
    return "VK_ERROR_INVALID_SHADER_NV";
  default:
    return "VkResult " + std::to_string(static_cast<int>(r));
  }
}

inline Status error(const char *kernel, const std::string &message) {
  return Status{TLC_ERR_RUNTIME, std::string(kernel) + ": vulkan: " + message};
}

/// An allocation of the registry: tlc addresses [base, base + size).
struct Allocation {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t size = 0;
  void *mapped = nullptr; // when the memory is host visible
};

/// The caller's Vulkan objects, for tlc to run on (useDevice) instead of
/// making its own instance and device.
struct ExternalDevice {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  /// A queue with compute of family `queueFamily`. tlc submits to it under
  /// its own lock: the caller must not use it at the same time.
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;
  /// The device was created with VK_KHR_push_descriptor enabled: launches
  /// can then be recorded into the caller's command buffers.
  bool pushDescriptors = false;
  /// The caller's loader entry; null: libvulkan.so.1's.
  PFN_vkGetInstanceProcAddr getInstanceProcAddr = nullptr;
};

class Kernel;

/// tlc's Vulkan device: instance, device, queue, the buffer registry.
struct Context {
  std::string error; // why the context cannot be used; empty when it can
  Library vk;
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceSubgroupSizeControlProperties subgroupControl{};
  VkPhysicalDeviceSubgroupProperties subgroup{};
  bool subgroupSizeControl = false, fullSubgroups = false;
  /// VK_KHR_push_descriptor: descriptors recorded into command buffers (no
  /// descriptor sets to keep alive), which recorded launches need.
  bool pushDescriptors = false;
  /// VK_KHR_cooperative_matrix: whether the device (tlc's: enabled; the
  /// caller's: offered) has it, and the sides S of the S x S x S f16 x f16
  /// + f32 subgroup shapes it lists (the ones tlc's kernels use).
  bool cooperativeMatrix = false;
  std::vector<uint32_t> coopMatrixSizes;
  VkPhysicalDeviceMemoryProperties memory{};
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  /// Compiled pipelines of this device; TLC_VULKAN_PIPELINE_CACHE=FILE
  /// keeps them across runs (loaded at start, saved after each new one).
  VkPipelineCache pipelineCache = VK_NULL_HANDLE;
  std::string pipelineCacheFile;
  std::mutex mutex; // guards the queue, the command buffer and the registry
  std::map<uint64_t, Allocation> allocations; // by base address
  uint64_t nextBase = uint64_t(1) << 40;
  /// Kernels that made (or tried to make) their pipeline on this device.
  std::vector<Kernel *> kernels;
  /// The instance and device are tlc's (not the caller's, useDevice).
  bool ownsDevice = false;

  /// Records `record` into the command buffer, submits and waits.
  template <typename F> VkResult submit(F &&record) {
    VkResult r = vk.vkResetCommandBuffer(commands, 0);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if (r == VK_SUCCESS)
      r = vk.vkBeginCommandBuffer(commands, &begin);
    if (r != VK_SUCCESS)
      return r;
    record(commands);
    if ((r = vk.vkEndCommandBuffer(commands)) != VK_SUCCESS)
      return r;
    VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    info.commandBufferCount = 1;
    info.pCommandBuffers = &commands;
    if ((r = vk.vkResetFences(device, 1, &fence)) != VK_SUCCESS ||
        (r = vk.vkQueueSubmit(queue, 1, &info, fence)) != VK_SUCCESS)
      return r;
    return vk.vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
  }

  /// The allocation holding tlc address `address`, or null.
  const std::pair<const uint64_t, Allocation> *find(uint64_t address) const {
    auto it = allocations.upper_bound(address);
    if (it == allocations.begin())
      return nullptr;
    --it;
    return address < it->first + it->second.size ? &*it : nullptr;
  }

  int32_t memoryType(uint32_t bits, VkMemoryPropertyFlags want) const {
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
      if ((bits & (1u << i)) &&
          (memory.memoryTypes[i].propertyFlags & want) == want)
        return static_cast<int32_t>(i);
    return -1;
  }
};

namespace detail {

inline void loadLibrary(Context &c) {
  Library &vk = c.vk;
  for (const char *name : {"libvulkan.so.1", "libvulkan.so"}) {
    vk.handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (vk.handle)
      break;
  }
  if (!vk.handle) {
    const char *why = dlerror();
    c.error = std::string("cannot load libvulkan.so.1 (") +
              (why ? why : "unknown error") +
              "); install the Vulkan loader (libvulkan1) and a driver";
    return;
  }
  vk.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
      dlsym(vk.handle, "vkGetInstanceProcAddr"));
  if (!vk.vkGetInstanceProcAddr)
    c.error = "libvulkan.so.1 lacks vkGetInstanceProcAddr";
}

template <typename F> bool resolve(Context &c, F &fn, const char *symbol) {
  fn = reinterpret_cast<F>(c.vk.vkGetInstanceProcAddr(c.instance, symbol));
  if (!fn && c.error.empty())
    c.error = std::string("the Vulkan loader lacks ") + symbol;
  return fn != nullptr;
}

/// The extensions of the context's physical device.
inline std::vector<VkExtensionProperties> deviceExtensions(Context &c) {
  uint32_t count = 0;
  c.vk.vkEnumerateDeviceExtensionProperties(c.physical, nullptr, &count,
                                            nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  c.vk.vkEnumerateDeviceExtensionProperties(c.physical, nullptr, &count,
                                            extensions.data());
  extensions.resize(count);
  return extensions;
}

inline bool hasExtension(const std::vector<VkExtensionProperties> &all,
                         const char *name) {
  for (const VkExtensionProperties &e : all)
    if (std::strcmp(e.extensionName, name) == 0)
      return true;
  return false;
}

/// vkCmdPushDescriptorSetKHR, when the device enabled the extension.
inline void resolvePushDescriptors(Context &c) {
  c.vk.vkCmdPushDescriptorSetKHR =
      reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(
          c.vk.vkGetInstanceProcAddr(c.instance, "vkCmdPushDescriptorSetKHR"));
  c.pushDescriptors = c.vk.vkCmdPushDescriptorSetKHR != nullptr;
}

/// VK_KHR_cooperative_matrix's structures, declared here as the extension
/// defines them: Vulkan headers older than 1.3.255 lack them.
namespace coopmat {
constexpr VkStructureType kFeaturesType =
    static_cast<VkStructureType>(1000506000);
constexpr VkStructureType kPropertiesType =
    static_cast<VkStructureType>(1000506001);
constexpr int32_t kFloat16 = 0, kFloat32 = 1, kSubgroupScope = 3;
constexpr const char *kExtension = "VK_KHR_cooperative_matrix";
struct Features {
  VkStructureType sType = kFeaturesType;
  void *pNext = nullptr;
  VkBool32 cooperativeMatrix = VK_FALSE;
  VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};
struct Properties {
  VkStructureType sType = kPropertiesType;
  void *pNext = nullptr;
  uint32_t MSize = 0, NSize = 0, KSize = 0;
  int32_t AType = 0, BType = 0, CType = 0, ResultType = 0;
  VkBool32 saturatingAccumulation = VK_FALSE;
  int32_t scope = 0;
};
using GetProperties = VkResult(VKAPI_PTR *)(VkPhysicalDevice, uint32_t *,
                                            Properties *);
} // namespace coopmat

/// The square f16 x f16 + f32 subgroup shapes of the physical device's
/// cooperative matrices (VK_KHR_cooperative_matrix), into
/// c.coopMatrixSizes.
inline void queryCoopMatrixShapes(Context &c) {
  auto get =
      reinterpret_cast<coopmat::GetProperties>(c.vk.vkGetInstanceProcAddr(
          c.instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  uint32_t count = 0;
  if (!get || get(c.physical, &count, nullptr) != VK_SUCCESS)
    return;
  std::vector<coopmat::Properties> shapes(count);
  if (get(c.physical, &count, shapes.data()) != VK_SUCCESS)
    return;
  for (const coopmat::Properties &p : shapes)
    if (p.MSize == p.NSize && p.NSize == p.KSize &&
        p.AType == coopmat::kFloat16 && p.BType == coopmat::kFloat16 &&
        p.CType == coopmat::kFloat32 && p.ResultType == coopmat::kFloat32 &&
        p.scope == coopmat::kSubgroupScope)
      c.coopMatrixSizes.push_back(p.MSize);
}

/// The device's properties and the subgroup sizes it runs; an error for a
/// device older than Vulkan 1.2.
inline void queryDevice(Context &c) {
  Library &vk = c.vk;
  vk.vkGetPhysicalDeviceProperties(c.physical, &c.properties);
  if (c.properties.apiVersion < VK_API_VERSION_1_2) {
    c.error = std::string(c.properties.deviceName) +
              " supports Vulkan 1.1 only; tlc's kernels need 1.2";
    return;
  }
  c.subgroupControl.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES;
  c.subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  c.subgroup.pNext = &c.subgroupControl;
  VkPhysicalDeviceProperties2 properties2{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  properties2.pNext = &c.subgroup;
  vk.vkGetPhysicalDeviceProperties2(c.physical, &properties2);
  vk.vkGetPhysicalDeviceMemoryProperties(c.physical, &c.memory);
}

/// The device's pipeline cache, with the contents of
/// TLC_VULKAN_PIPELINE_CACHE's file when there is one (the driver ignores
/// data of another device or driver version).
inline void makePipelineCache(Context &c) {
  std::vector<char> data;
  if (const char *file = std::getenv("TLC_VULKAN_PIPELINE_CACHE");
      file && *file) {
    c.pipelineCacheFile = file;
    if (std::FILE *f = std::fopen(file, "rb")) {
      char chunk[65536];
      size_t n;
      while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
        data.insert(data.end(), chunk, chunk + n);
      std::fclose(f);
    }
  }
  VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  info.initialDataSize = data.size();
  info.pInitialData = data.empty() ? nullptr : data.data();
  if (c.vk.vkCreatePipelineCache(c.device, &info, nullptr, &c.pipelineCache) !=
      VK_SUCCESS)
    c.pipelineCache = VK_NULL_HANDLE; // pipelines are then made uncached
}

/// Writes the pipeline cache to TLC_VULKAN_PIPELINE_CACHE's file (through
/// a temporary file: another process may be reading it).
inline void savePipelineCache(Context &c) {
  if (c.pipelineCacheFile.empty() || !c.pipelineCache)
    return;
  size_t size = 0;
  if (c.vk.vkGetPipelineCacheData(c.device, c.pipelineCache, &size, nullptr) !=
      VK_SUCCESS)
    return;
  std::vector<char> data(size);
  if (c.vk.vkGetPipelineCacheData(c.device, c.pipelineCache, &size,
                                  data.data()) != VK_SUCCESS)
    return;
  // A name of this process's own: several may save at once.
  std::string temporary =
      c.pipelineCacheFile + "." + std::to_string(getpid()) + ".tmp";
  std::FILE *f = std::fopen(temporary.c_str(), "wb");
  if (!f)
    return;
  bool written = std::fwrite(data.data(), 1, size, f) == size;
  written = std::fclose(f) == 0 && written;
  if (written)
    std::rename(temporary.c_str(), c.pipelineCacheFile.c_str());
  else
    std::remove(temporary.c_str());
}

/// The command buffer and fence of synchronous launches, the pipeline
/// cache.
inline void makeCommands(Context &c) {
  makePipelineCache(c);
  Library &vk = c.vk;
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolInfo.queueFamilyIndex = c.queueFamily;
  VkCommandBufferAllocateInfo bufferInfo{
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  bufferInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  bufferInfo.commandBufferCount = 1;
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkResult r;
  if ((r = vk.vkCreateCommandPool(c.device, &poolInfo, nullptr,
                                  &c.commandPool)) != VK_SUCCESS ||
      ((bufferInfo.commandPool = c.commandPool),
       (r = vk.vkAllocateCommandBuffers(c.device, &bufferInfo, &c.commands)) !=
           VK_SUCCESS) ||
      (r = vk.vkCreateFence(c.device, &fenceInfo, nullptr, &c.fence)) !=
          VK_SUCCESS)
    c.error = "cannot create a command buffer: " + describe(r);
}

/// Runs on the caller's device: the caller enabled the features the
/// kernels use (docs/vulkan.md); tlc assumes the ones the device has.
inline void adoptDevice(Context &c, const ExternalDevice &d) {
  Library &vk = c.vk;
  if (d.getInstanceProcAddr)
    vk.vkGetInstanceProcAddr = d.getInstanceProcAddr;
  else
    loadLibrary(c);
  if (!c.error.empty())
    return;
  if (!d.instance || !d.physical || !d.device || !d.queue) {
    c.error = "useDevice: the instance, physical device, device and queue "
              "must all be given";
    return;
  }
  c.instance = d.instance;
  c.physical = d.physical;
  c.device = d.device;
  c.queue = d.queue;
  c.queueFamily = d.queueFamily;
#define TLC_VK_RESOLVE(name) resolve(c, vk.name, #name);
  TLC_VK_FUNCTIONS(TLC_VK_RESOLVE)
#undef TLC_VK_RESOLVE
  if (!c.error.empty())
    return;
  if (d.pushDescriptors)
    resolvePushDescriptors(c);
  queryDevice(c);
  if (!c.error.empty())
    return;
  if (c.properties.apiVersion >= VK_API_VERSION_1_3) {
    VkPhysicalDeviceVulkan13Features v13{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    // Only a structure of an extension the device has may be chained.
    std::vector<VkExtensionProperties> extensions = deviceExtensions(c);
    coopmat::Features coop;
    if (hasExtension(extensions, coopmat::kExtension))
      v13.pNext = &coop;
    VkPhysicalDeviceFeatures2 features{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &v13;
    vk.vkGetPhysicalDeviceFeatures2(c.physical, &features);
    c.subgroupSizeControl = v13.subgroupSizeControl;
    c.fullSubgroups = v13.computeFullSubgroups;
    // The caller enabled it if its kernels need it (docs/vulkan.md).
    c.cooperativeMatrix = coop.cooperativeMatrix;
    if (c.cooperativeMatrix)
      queryCoopMatrixShapes(c);
  }
  makeCommands(c);
}

inline void createContext(Context &c) {
  loadLibrary(c);
  if (!c.error.empty())
    return;
  Library &vk = c.vk;
  resolve(c, vk.vkCreateInstance, "vkCreateInstance");
  if (!c.error.empty())
    return;
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "tlc";
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo instanceInfo{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instanceInfo.pApplicationInfo = &app;
  VkResult r = vk.vkCreateInstance(&instanceInfo, nullptr, &c.instance);
  if (r != VK_SUCCESS) {
    c.error = "vkCreateInstance failed: " + describe(r);
    return;
  }
  c.ownsDevice = true;
#define TLC_VK_RESOLVE(name) resolve(c, vk.name, #name);
  TLC_VK_FUNCTIONS(TLC_VK_RESOLVE)
#undef TLC_VK_RESOLVE
  if (!c.error.empty())
    return;
  uint32_t count = 0;
  vk.vkEnumeratePhysicalDevices(c.instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  if (count)
    vk.vkEnumeratePhysicalDevices(c.instance, &count, devices.data());
  if (devices.empty()) {
    c.error = "no Vulkan device (install a driver; mesa-vulkan-drivers "
              "provides lavapipe on the CPU)";
    return;
  }
  size_t pick = 0;
  if (const char *env = std::getenv("TLC_VULKAN_DEVICE"); env && *env) {
    pick = std::strtoul(env, nullptr, 10);
    if (pick >= devices.size()) {
      c.error = "TLC_VULKAN_DEVICE=" + std::string(env) + " but there are " +
                std::to_string(devices.size()) + " Vulkan devices";
      return;
    }
  }
  c.physical = devices[pick];
  queryDevice(c);
  if (!c.error.empty())
    return;

  // Every optional feature the kernels may use that the device has.
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomicFloat{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  VkPhysicalDeviceVulkan13Features v13{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features v12{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features v11{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceFeatures2 features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  std::vector<VkExtensionProperties> extensions = deviceExtensions(c);
  std::vector<const char *> enabled;
  bool v13Device = c.properties.apiVersion >= VK_API_VERSION_1_3;
  features.pNext = &v11;
  v11.pNext = &v12;
  void **tail = &v12.pNext;
  if (v13Device) {
    *tail = &v13;
    tail = &v13.pNext;
  }
  bool pushDescriptors =
      hasExtension(extensions, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  if (pushDescriptors)
    enabled.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  if (hasExtension(extensions, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME)) {
    enabled.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    *tail = &atomicFloat;
    tail = &atomicFloat.pNext;
  }
  // Cooperative matrices are SPIR-V 1.6: Vulkan 1.3 devices only.
  coopmat::Features coop;
  bool coopExtension =
      v13Device && hasExtension(extensions, coopmat::kExtension);
  if (coopExtension) {
    enabled.push_back(coopmat::kExtension);
    *tail = &coop;
    tail = &coop.pNext;
  }
  vk.vkGetPhysicalDeviceFeatures2(c.physical, &features);
  c.cooperativeMatrix = coopExtension && coop.cooperativeMatrix;
  if (c.cooperativeMatrix)
    queryCoopMatrixShapes(c);
  c.subgroupSizeControl = v13Device && v13.subgroupSizeControl;
  c.fullSubgroups = v13Device && v13.computeFullSubgroups;
  // Every supported feature stays enabled (the kernels' SPIR-V declares
  // what it needs), except bounds checking, which only slows them down.
  features.features.robustBufferAccess = VK_FALSE;
  v13.robustImageAccess = VK_FALSE;

  uint32_t familyCount = 0;
  vk.vkGetPhysicalDeviceQueueFamilyProperties(c.physical, &familyCount,
                                              nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vk.vkGetPhysicalDeviceQueueFamilyProperties(c.physical, &familyCount,
                                              families.data());
  bool found = false;
  for (uint32_t i = 0; i < familyCount && !found; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      c.queueFamily = i;
      found = true;
    }
  if (!found) {
    c.error = std::string(c.properties.deviceName) + " has no compute queue";
    return;
  }
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = c.queueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo deviceInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  deviceInfo.pNext = &features;
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  deviceInfo.enabledExtensionCount = static_cast<uint32_t>(enabled.size());
  deviceInfo.ppEnabledExtensionNames = enabled.data();
  if ((r = vk.vkCreateDevice(c.physical, &deviceInfo, nullptr, &c.device)) !=
      VK_SUCCESS) {
    c.error = "vkCreateDevice failed on " +
              std::string(c.properties.deviceName) + ": " + describe(r);
    return;
  }
  vk.vkGetDeviceQueue(c.device, c.queueFamily, 0, &c.queue);
  if (pushDescriptors)
    resolvePushDescriptors(c);
  makeCommands(c);
}

/// The context, made at the first use, and the device useDevice gave for
/// it.
struct Holder {
  std::mutex mutex; // guards making, adopting and releasing the context
  /// Read without the lock on the launch path; written under it.
  std::atomic<Context *> context{nullptr};
  bool given = false;
  ExternalDevice device;
};
inline Holder &holder() {
  static Holder h;
  return h;
}

} // namespace detail

/// tlc's Vulkan context, made at the first use. It lives until
/// releaseDevice() (kernels may run until the program exits).
inline Context &context() {
  detail::Holder &h = detail::holder();
  if (Context *c = h.context.load(std::memory_order_acquire))
    return *c;
  std::lock_guard<std::mutex> lock(h.mutex);
  if (!h.context.load(std::memory_order_relaxed)) {
    auto *made = new Context;
    try {
      if (h.given)
        detail::adoptDevice(*made, h.device);
      else
        detail::createContext(*made);
    } catch (...) {
      made->error = "out of memory while creating the Vulkan context";
    }
    h.context.store(made, std::memory_order_release);
  }
  return *h.context.load(std::memory_order_relaxed);
}

/// Makes tlc run on the caller's device and queue (ExternalDevice) rather
/// than its own. Call it before any other use of tlc::vulkan (allocate,
/// a launch), or after releaseDevice(); other calls fail. tlc still
/// allocates its own buffers, command pool and pipelines on that device
/// (releaseDevice() destroys them).
inline Status useDevice(const ExternalDevice &device) {
  detail::Holder &h = detail::holder();
  std::lock_guard<std::mutex> lock(h.mutex);
  if (h.context)
    return runtime::invalidArgument(
        "vulkan: useDevice must come before the first use of tlc::vulkan "
        "(its context exists already; releaseDevice() ends it)");
  h.device = device;
  h.given = true;
  return Status{};
}

/// The device's name, or why there is none.
inline std::string deviceName() {
  Context &c = context();
  return c.error.empty() ? std::string(c.properties.deviceName) : c.error;
}

/// Compute units for the fill heuristic: Vulkan does not say (0: unknown).
inline int64_t multiprocessorCount() { return 0; }

namespace detail {
/// A buffer of `bytes` with memory of the first kind in `kinds` the device
/// has, mapped when that kind is host visible.
inline VkResult makeBuffer(Context &c, uint64_t bytes,
                           std::initializer_list<VkMemoryPropertyFlags> kinds,
                           Allocation &a) {
  Library &vk = c.vk;
  a = Allocation{};
  a.size = bytes ? bytes : 1;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = a.size;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkResult r = vk.vkCreateBuffer(c.device, &info, nullptr, &a.buffer);
  if (r != VK_SUCCESS)
    return r;
  VkMemoryRequirements req;
  vk.vkGetBufferMemoryRequirements(c.device, a.buffer, &req);
  int32_t type = -1;
  VkMemoryPropertyFlags flags = 0;
  for (VkMemoryPropertyFlags kind : kinds)
    if (type < 0 && (type = c.memoryType(req.memoryTypeBits, kind)) >= 0)
      flags = kind;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = static_cast<uint32_t>(type);
  r = type < 0 ? VK_ERROR_OUT_OF_DEVICE_MEMORY
               : vk.vkAllocateMemory(c.device, &alloc, nullptr, &a.memory);
  if (r == VK_SUCCESS)
    r = vk.vkBindBufferMemory(c.device, a.buffer, a.memory, 0);
  if (r == VK_SUCCESS && (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
    r = vk.vkMapMemory(c.device, a.memory, 0, VK_WHOLE_SIZE, 0, &a.mapped);
  if (r != VK_SUCCESS) {
    vk.vkDestroyBuffer(c.device, a.buffer, nullptr);
    if (a.memory)
      vk.vkFreeMemory(c.device, a.memory, nullptr);
  }
  return r;
}

constexpr VkMemoryPropertyFlags kMappable =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
} // namespace detail

/// Allocates `bytes` of device memory; `address` names it for tensors.
inline Status allocate(size_t bytes, void *&address) {
  address = nullptr;
  Context &c = context();
  if (!c.error.empty())
    return Status{TLC_ERR_RUNTIME, "vulkan: " + c.error};
  // Device-local memory the host can map when there is such (lavapipe,
  // resizable BAR), else device-local memory filled through staging copies.
  // TLC_VULKAN_STAGING=1 takes the second path everywhere (to test it).
  static const bool staging = [] {
    const char *env = std::getenv("TLC_VULKAN_STAGING");
    return env && *env && *env != '0';
  }();
  Allocation a;
  VkResult r =
      staging ? detail::makeBuffer(c, bytes,
                                   {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT}, a)
              : detail::makeBuffer(
                    c, bytes,
                    {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | detail::kMappable,
                     VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT},
                    a);
  if (r != VK_SUCCESS)
    return Status{TLC_ERR_RUNTIME, "vulkan: cannot allocate " +
                                       std::to_string(bytes) +
                                       " bytes: " + describe(r)};
  std::lock_guard<std::mutex> lock(c.mutex);
  uint64_t base = c.nextBase;
  // Allocations are spaced so that every byte has one address.
  c.nextBase += (a.size + (uint64_t(1) << 20)) & ~((uint64_t(1) << 20) - 1);
  c.allocations[base] = a;
  address = reinterpret_cast<void *>(base);
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
  c.vk.vkDestroyBuffer(c.device, it->second.buffer, nullptr);
  c.vk.vkFreeMemory(c.device, it->second.memory, nullptr);
  c.allocations.erase(it);
}

namespace detail {
/// Copies between host memory and tlc address `address` (`toDevice`).
inline Status transfer(void *address, void *host, size_t bytes, bool toDevice) {
  Context &c = context();
  if (!c.error.empty())
    return Status{TLC_ERR_RUNTIME, "vulkan: " + c.error};
  std::lock_guard<std::mutex> lock(c.mutex);
  uint64_t at = reinterpret_cast<uint64_t>(address);
  auto *found = c.find(at);
  if (!found || at + bytes > found->first + found->second.size)
    return runtime::invalidArgument(
        "vulkan: the copy is not inside one allocation of tlc::vulkan");
  const Allocation &a = found->second;
  uint64_t offset = at - found->first;
  if (a.mapped) {
    char *device = static_cast<char *>(a.mapped) + offset;
    std::memcpy(toDevice ? device : host, toDevice ? host : device, bytes);
    return Status{};
  }
  // Through a host-visible staging buffer and a copy on the queue.
  Allocation staging;
  Library &vk = c.vk;
  VkResult r = makeBuffer(c, bytes, {kMappable}, staging);
  if (r != VK_SUCCESS)
    return Status{TLC_ERR_RUNTIME,
                  "vulkan: cannot allocate a staging buffer: " + describe(r)};
  if (toDevice)
    std::memcpy(staging.mapped, host, bytes);
  VkBufferCopy region{toDevice ? 0 : offset, toDevice ? offset : 0, bytes};
  r = c.submit([&](VkCommandBuffer cmd) {
    // After earlier kernels and copies; a download visible to the host.
    VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    before.srcAccessMask =
        VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    before.dstAccessMask =
        VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    vk.vkCmdPipelineBarrier(
        cmd,
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
        VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0, nullptr, 0, nullptr);
    vk.vkCmdCopyBuffer(cmd, toDevice ? staging.buffer : a.buffer,
                       toDevice ? a.buffer : staging.buffer, 1, &region);
    VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    after.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    after.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_SHADER_READ_BIT;
    vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_PIPELINE_STAGE_HOST_BIT |
                                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                            0, 1, &after, 0, nullptr, 0, nullptr);
  });
  if (r == VK_SUCCESS && !toDevice)
    std::memcpy(host, staging.mapped, bytes);
  vk.vkDestroyBuffer(c.device, staging.buffer, nullptr);
  vk.vkFreeMemory(c.device, staging.memory, nullptr);
  if (r != VK_SUCCESS)
    return Status{TLC_ERR_RUNTIME, "vulkan: the copy failed: " + describe(r)};
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

/// One kernel of an embedded SPIR-V module: its pipeline, made at the
/// first launch.
class Kernel {
public:
  Kernel(const void *spirv, size_t spirvSize, const char *entry,
         uint32_t bindings, const uint32_t *block, uint32_t pushWords,
         uint32_t threads, uint32_t subgroupSize, bool paramsBuffer,
         uint32_t coopMatrixSize = 0)
      : spirv(spirv), spirvSize(spirvSize), entry(entry), bindings(bindings),
        block(block), pushWords(pushWords), threads(threads),
        subgroupSize(subgroupSize), coopMatrixSize(coopMatrixSize),
        paramsBuffer(paramsBuffer) {}
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;

  /// Runs the kernel on a gx x gy x gz grid. `tensors[i]` is tensor i's
  /// data address and `elementBytes[i]` its element size; `words` the
  /// push constants after the tensors' element offsets. `commands`: null,
  /// or a VkCommandBuffer of tlc's device in the recording state, which the
  /// launch is recorded into (after a barrier on earlier shader writes)
  /// instead of running before it returns.
  Status launch(const char *kernel, int64_t gx, int64_t gy, int64_t gz,
                const void *const *tensors, const uint32_t *elementBytes,
                const uint32_t *words, void *commands = nullptr) {
    Context &c = context();
    if (!c.error.empty())
      return error(kernel, c.error);
    if (spirvSize == 0)
      return error(kernel, "kernel binary not available (this stub was "
                           "generated without device code)");
    std::lock_guard<std::mutex> lock(c.mutex);
    Status status = prepare(kernel, c);
    if (!status.ok())
      return status;
    const uint32_t *limits = c.properties.limits.maxComputeWorkGroupCount;
    if (gx > limits[0] || gy > limits[1] || gz > limits[2])
      return runtime::invalidArgument(
          std::string(kernel) + ": the grid (" + std::to_string(gx) + ", " +
          std::to_string(gy) + ", " + std::to_string(gz) +
          ") exceeds the device's workgroup counts (" +
          std::to_string(limits[0]) + ", " + std::to_string(limits[1]) + ", " +
          std::to_string(limits[2]) + ")");
    Library &vk = c.vk;
    std::vector<uint32_t> offsets(bindings), push(pushWords);
    // The words' storage buffer (paramsBuffer) is the last binding.
    uint32_t sets = bindings + (paramsBuffer ? 1 : 0);
    std::vector<VkDescriptorBufferInfo> buffers(sets);
    uint64_t align = c.properties.limits.minStorageBufferOffsetAlignment;
    for (uint32_t t = 0; t < bindings; ++t) {
      uint64_t at = reinterpret_cast<uint64_t>(tensors[t]);
      auto *found = c.find(at);
      if (!found)
        return runtime::invalidArgument(
            std::string(kernel) + ": tensor " + std::to_string(t) +
            "'s data is not an address of tlc::vulkan::allocate");
      uint64_t offset = at - found->first;
      uint64_t bound = offset / align * align;
      if ((offset - bound) % elementBytes[t])
        return Status{TLC_ERR_ALIGNMENT,
                      std::string(kernel) + ": tensor " + std::to_string(t) +
                          "'s data is not aligned to its element size"};
      buffers[t].buffer = found->second.buffer;
      buffers[t].offset = bound;
      buffers[t].range = VK_WHOLE_SIZE;
      offsets[t] = static_cast<uint32_t>((offset - bound) / elementBytes[t]);
    }
    runtime::pushBlock(offsets.data(), bindings, words, block, pushWords,
                       push.data());
    if (paramsBuffer) // filled in the command buffer, before the dispatch
      buffers[bindings] = {params.buffer, 0, VK_WHOLE_SIZE};
    std::vector<VkWriteDescriptorSet> writes(sets);
    for (uint32_t t = 0; t < sets; ++t) {
      writes[t] = VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[t].dstBinding = t;
      writes[t].descriptorCount = 1;
      writes[t].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[t].pBufferInfo = &buffers[t];
    }
    // The commands of one launch. Shader writes before it (earlier
    // launches, in the caller's command buffer too) are visible to it, and
    // the words' buffer is written in the stream of commands, so that
    // recorded launches of one kernel each see their own words.
    auto record = [&](VkCommandBuffer cmd, VkDescriptorSet set) {
      VkMemoryBarrier order{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      order.srcAccessMask =
          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
      order.dstAccessMask = VK_ACCESS_SHADER_READ_BIT |
                            VK_ACCESS_SHADER_WRITE_BIT |
                            VK_ACCESS_TRANSFER_WRITE_BIT;
      vk.vkCmdPipelineBarrier(
          cmd,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          0, 1, &order, 0, nullptr, 0, nullptr);
      if (paramsBuffer) {
        vk.vkCmdUpdateBuffer(cmd, params.buffer, 0, pushWords * 4, push.data());
        VkMemoryBarrier written{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        written.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        written.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
        vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                &written, 0, nullptr, 0, nullptr);
      }
      vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
      if (sets && pushed)
        vk.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                                     layout, 0, sets, writes.data());
      else if (sets)
        vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout,
                                   0, 1, &set, 0, nullptr);
      if (pushWords && !paramsBuffer)
        vk.vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                              pushWords * 4, push.data());
      vk.vkCmdDispatch(cmd, static_cast<uint32_t>(gx),
                       static_cast<uint32_t>(gy), static_cast<uint32_t>(gz));
    };
    if (commands) {
      if (!pushed)
        return error(kernel,
                     c.pushDescriptors
                         ? std::string("recording into a command buffer "
                                       "takes at most 32 buffers; the "
                                       "kernel has ") +
                               std::to_string(sets)
                         : "recording into a command buffer needs "
                           "VK_KHR_push_descriptor, which " +
                               std::string(c.properties.deviceName) +
                               " does not have enabled");
      record(static_cast<VkCommandBuffer>(commands), VK_NULL_HANDLE);
      return Status{};
    }
    VkDescriptorSet set = VK_NULL_HANDLE;
    VkResult r = VK_SUCCESS;
    if (sets && !pushed) {
      // One set, rewritten per launch: launches wait for their end.
      VkDescriptorSetAllocateInfo setInfo{
          VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      setInfo.descriptorPool = pool;
      setInfo.descriptorSetCount = 1;
      setInfo.pSetLayouts = &setLayout;
      if ((r = vk.vkResetDescriptorPool(c.device, pool, 0)) == VK_SUCCESS)
        r = vk.vkAllocateDescriptorSets(c.device, &setInfo, &set);
      if (r != VK_SUCCESS)
        return error(kernel,
                     "cannot allocate a descriptor set: " + describe(r));
      for (VkWriteDescriptorSet &w : writes)
        w.dstSet = set;
      vk.vkUpdateDescriptorSets(c.device, sets, writes.data(), 0, nullptr);
    }
    r = c.submit([&](VkCommandBuffer cmd) {
      record(cmd, set);
      // Its writes are visible to the host (mapped downloads) and to copies.
      VkMemoryBarrier done{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      done.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
      done.dstAccessMask =
          VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT;
      vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_PIPELINE_STAGE_HOST_BIT |
                                  VK_PIPELINE_STAGE_TRANSFER_BIT,
                              0, 1, &done, 0, nullptr, 0, nullptr);
    });
    if (r != VK_SUCCESS)
      return error(kernel, "the launch failed: " + describe(r));
    return Status{};
  }

private:
  const void *spirv;
  size_t spirvSize;
  const char *entry;
  uint32_t bindings;
  const uint32_t *block; // the ABI's word of each push-constant word
  uint32_t pushWords, threads, subgroupSize;
  /// The side of the f16 cooperative matrices it multiplies on (0: none).
  uint32_t coopMatrixSize;
  bool paramsBuffer;   // the words come in a storage buffer, not push constants
  Allocation params;   // that buffer (written by vkCmdUpdateBuffer)
  bool pushed = false; // descriptors pushed (VK_KHR_push_descriptor)
  Status made;
  bool tried = false;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;

  /// Makes the pipeline once (under the context's lock).
  Status prepare(const char *kernel, Context &c) {
    if (tried)
      return made;
    tried = true;
    c.kernels.push_back(this);
    made = makePipeline(kernel, c);
    return made;
  }

  friend Status releaseDevice();
  /// Destroys what makePipeline made on `c`'s device; the next launch
  /// makes it again.
  void destroy(Context &c) {
    Library &vk = c.vk;
    if (pipeline)
      vk.vkDestroyPipeline(c.device, pipeline, nullptr);
    if (layout)
      vk.vkDestroyPipelineLayout(c.device, layout, nullptr);
    if (setLayout)
      vk.vkDestroyDescriptorSetLayout(c.device, setLayout, nullptr);
    if (pool)
      vk.vkDestroyDescriptorPool(c.device, pool, nullptr);
    if (params.buffer)
      vk.vkDestroyBuffer(c.device, params.buffer, nullptr);
    if (params.memory)
      vk.vkFreeMemory(c.device, params.memory, nullptr);
    pipeline = VK_NULL_HANDLE;
    layout = VK_NULL_HANDLE;
    setLayout = VK_NULL_HANDLE;
    pool = VK_NULL_HANDLE;
    params = Allocation{};
    pushed = false;
    made = Status{};
    tried = false;
  }

  Status makePipeline(const char *kernel, Context &c) {
    Library &vk = c.vk;
    if (paramsBuffer) {
      VkResult allocated = detail::makeBuffer(
          c, pushWords * 4, {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT}, params);
      if (allocated != VK_SUCCESS)
        return error(kernel, "cannot allocate the buffer of the kernel's "
                             "sizes and strides: " +
                                 describe(allocated));
    }
    // Otherwise at most the 128 bytes of push constants every device has
    // (tile-vulkan-prepare-spirv moves larger blocks to the buffer).
    bool native = c.subgroup.subgroupSize == subgroupSize;
    bool controllable = c.subgroupSizeControl &&
                        (c.subgroupControl.requiredSubgroupSizeStages &
                         VK_SHADER_STAGE_COMPUTE_BIT) &&
                        c.subgroupControl.minSubgroupSize <= subgroupSize &&
                        subgroupSize <= c.subgroupControl.maxSubgroupSize;
    if (!native && !controllable)
      return error(kernel,
                   "compiled for subgroups of " + std::to_string(subgroupSize) +
                       " (tlc -arch=...), but " + c.properties.deviceName +
                       " runs subgroups of " +
                       std::to_string(c.subgroup.subgroupSize) +
                       " and cannot be asked for another; recompile with "
                       "the -arch of this device");
    if (coopMatrixSize) {
      std::string shape = std::to_string(coopMatrixSize);
      shape += "x" + shape + "x" + shape;
      if (!c.cooperativeMatrix)
        return error(kernel, "compiled for f16 cooperative matrices (tlc "
                             "-arch=...), but " +
                                 std::string(c.properties.deviceName) +
                                 " has no VK_KHR_cooperative_matrix" +
                                 (c.ownsDevice ? ""
                                               : " enabled on the device "
                                                 "given to useDevice") +
                                 "; recompile with an -arch without them");
      bool listed = false;
      for (uint32_t size : c.coopMatrixSizes)
        listed |= size == coopMatrixSize;
      if (!listed)
        return error(kernel, "compiled for " + shape +
                                 " f16 x f16 + f32 cooperative matrices "
                                 "(tlc -arch=...), which " +
                                 c.properties.deviceName +
                                 " does not list; recompile with the -arch "
                                 "of this device");
    }
    uint32_t sets = bindings + (paramsBuffer ? 1 : 0);
    // (Drivers need not check: lavapipe crashes past its 32.)
    uint32_t bufferLimit =
        c.properties.limits.maxPerStageDescriptorStorageBuffers;
    if (sets > bufferLimit)
      return error(kernel, "the kernel takes " + std::to_string(sets) +
                               " storage buffers (its tensors" +
                               (paramsBuffer ? " and its sizes" : "") + "); " +
                               c.properties.deviceName + " allows " +
                               std::to_string(bufferLimit) + " per shader");
    std::vector<VkDescriptorSetLayoutBinding> layoutBindings(sets);
    for (uint32_t t = 0; t < sets; ++t) {
      layoutBindings[t] = VkDescriptorSetLayoutBinding{};
      layoutBindings[t].binding = t;
      layoutBindings[t].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      layoutBindings[t].descriptorCount = 1;
      layoutBindings[t].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo setInfo{
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    setInfo.bindingCount = sets;
    // Push descriptors up to the 32 every device with them allows.
    pushed = c.pushDescriptors && sets <= 32;
    if (pushed)
      setInfo.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    setInfo.pBindings = layoutBindings.data();
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, pushWords * 4};
    VkPipelineLayoutCreateInfo layoutInfo{
        VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &setLayout;
    layoutInfo.pushConstantRangeCount = pushWords && !paramsBuffer ? 1 : 0;
    layoutInfo.pPushConstantRanges = &range;
    VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  sets ? sets : 1};
    VkDescriptorPoolCreateInfo poolInfo{
        VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    poolInfo.maxSets = 1;
    poolInfo.poolSizeCount = 1;
    poolInfo.pPoolSizes = &poolSize;
    VkShaderModuleCreateInfo moduleInfo{
        VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    moduleInfo.codeSize = spirvSize;
    moduleInfo.pCode = static_cast<const uint32_t *>(spirv);
    VkShaderModule module = VK_NULL_HANDLE;
    VkResult r;
    if ((r = vk.vkCreateDescriptorSetLayout(c.device, &setInfo, nullptr,
                                            &setLayout)) != VK_SUCCESS ||
        (r = vk.vkCreatePipelineLayout(c.device, &layoutInfo, nullptr,
                                       &layout)) != VK_SUCCESS ||
        (r = vk.vkCreateDescriptorPool(c.device, &poolInfo, nullptr, &pool)) !=
            VK_SUCCESS ||
        (r = vk.vkCreateShaderModule(c.device, &moduleInfo, nullptr,
                                     &module)) != VK_SUCCESS)
      return error(kernel,
                   "cannot create the pipeline's parts: " + describe(r));
    VkPipelineShaderStageRequiredSubgroupSizeCreateInfo required{
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
    required.requiredSubgroupSize = subgroupSize;
    VkComputePipelineCreateInfo pipelineInfo{
        VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    pipelineInfo.stage = VkPipelineShaderStageCreateInfo{
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipelineInfo.stage.module = module;
    pipelineInfo.stage.pName = entry;
    if (!native) {
      // The kernels' shuffles assume whole subgroups of this size. (Only
      // then: a caller's device may not have enabled size control.)
      pipelineInfo.stage.pNext = &required;
      if (c.fullSubgroups && threads % subgroupSize == 0)
        pipelineInfo.stage.flags |=
            VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
    }
    pipelineInfo.layout = layout;
    r = vk.vkCreateComputePipelines(c.device, c.pipelineCache, 1, &pipelineInfo,
                                    nullptr, &pipeline);
    if (r == VK_SUCCESS)
      detail::savePipelineCache(c);
    vk.vkDestroyShaderModule(c.device, module, nullptr);
    if (r != VK_SUCCESS)
      return error(kernel, std::string("cannot create the pipeline of ") +
                               entry + " on " + c.properties.deviceName + ": " +
                               describe(r));
    return Status{};
  }
};

/// Ends tlc's use of the Vulkan device: waits until its queue is idle, then
/// destroys every object tlc made there (the buffers of allocate(), which
/// may no longer be used, the kernels' pipelines, its command pool, fence
/// and pipeline cache, saved first) and, when the device is tlc's own,
/// the device and its instance. A caller's device (useDevice) is left to
/// the caller, who may destroy it afterwards. The next use of tlc::vulkan
/// makes a new context (on a device of a new useDevice call, or its own).
/// No other tlc::vulkan call may run while it does.
inline Status releaseDevice() {
  detail::Holder &h = detail::holder();
  std::lock_guard<std::mutex> lock(h.mutex);
  Context *c = h.context.exchange(nullptr);
  h.given = false;
  if (!c)
    return Status{};
  Status status;
  Library &vk = c->vk;
  bool resolved = true; // (a context that failed early may lack some)
#define TLC_VK_CHECK(name) resolved = resolved && vk.name;
  TLC_VK_FUNCTIONS(TLC_VK_CHECK)
#undef TLC_VK_CHECK
  if (c->device && resolved) {
    if (c->queue) {
      VkResult r = vk.vkQueueWaitIdle(c->queue);
      if (r != VK_SUCCESS)
        status =
            Status{TLC_ERR_RUNTIME,
                   "vulkan: releaseDevice: waiting for the queue failed: " +
                       describe(r)};
    }
    for (Kernel *kernel : c->kernels)
      kernel->destroy(*c);
    for (auto &[base, a] : c->allocations) {
      vk.vkDestroyBuffer(c->device, a.buffer, nullptr);
      vk.vkFreeMemory(c->device, a.memory, nullptr);
    }
    if (c->pipelineCache) {
      detail::savePipelineCache(*c);
      vk.vkDestroyPipelineCache(c->device, c->pipelineCache, nullptr);
    }
    if (c->fence)
      vk.vkDestroyFence(c->device, c->fence, nullptr);
    if (c->commandPool) // frees its command buffer too
      vk.vkDestroyCommandPool(c->device, c->commandPool, nullptr);
    if (c->ownsDevice)
      vk.vkDestroyDevice(c->device, nullptr);
  }
  if (c->ownsDevice && c->instance && vk.vkDestroyInstance &&
      (!c->device || resolved))
    vk.vkDestroyInstance(c->instance, nullptr);
  if (vk.handle)
    dlclose(vk.handle);
  delete c;
  return status;
}

/// The scratch of an operation: memory of allocate(), released when the
/// operation returns (its kernels, launched synchronously, are done).
class Scratch {
public:
  Scratch() = default;
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  ~Scratch() { release(); }

  Status allocate(const char *operation, size_t bytes,
                  const LaunchOptions &options) {
    if (options.stream)
      return Status{TLC_ERR_INVALID_ARGUMENT,
                    std::string(operation) +
                        ": an operation with scratch tensors cannot be "
                        "recorded into a command buffer (its scratch is freed "
                        "when the call returns); launch its kernels one by one "
                        "with scratch you allocate"};
    Status s = vulkan::allocate(bytes ? bytes : 1, memory);
    if (!s.ok())
      return Status{s.code, std::string(operation) + ": scratch: " + s.message};
    return Status{};
  }
  void *data() const { return memory; }
  Status release() {
    vulkan::release(memory);
    memory = nullptr;
    return Status{};
  }

private:
  void *memory = nullptr;
};

} // namespace vulkan
} // namespace tlc

#endif // TLC_RUNTIME_TLC_VULKAN_H
