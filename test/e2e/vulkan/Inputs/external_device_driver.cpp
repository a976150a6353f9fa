// external_device_driver.cpp: a program with its own Vulkan instance and
// device hands them to tlc (tlc::vulkan::useDevice) and runs the softmax
// stub there; the result is checked against a CPU softmax on random data
// with a ragged row length. A second useDevice, after the first use, is
// refused. tlc::vulkan::releaseDevice() then destroys what tlc made on the
// device, so the program can destroy it; useDevice works again after it,
// and tlc's own device (no useDevice) is released the same way. Last, a
// device is destroyed while tlc still has a buffer on it: the Khronos
// validation layer, when the test loads it, must report that.
//
// The program calls Vulkan itself: it includes <vulkan/vulkan.h> before
// tlc_vulkan.h, which otherwise declares no prototypes (VK_NO_PROTOTYPES).
#include <vulkan/vulkan.h>

#include "softmax.h"
#include "test_util.h"
#include "tlc/Runtime/tlc_vulkan.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

static int fail(const char *what, VkResult r) {
  std::printf("FAIL %s: %d\n", what, r);
  return 1;
}

/// A device with one queue of a compute family of `physical`.
static VkDevice makeDevice(VkPhysicalDevice physical, uint32_t &family,
                           VkQueue &queue) {
  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
  std::vector<VkQueueFamilyProperties> props(families);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, props.data());
  family = 0;
  while (family < families &&
         !(props[family].queueFlags & VK_QUEUE_COMPUTE_BIT))
    ++family;
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = family;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo deviceInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  VkDevice device = VK_NULL_HANDLE;
  if (vkCreateDevice(physical, &deviceInfo, nullptr, &device) != VK_SUCCESS)
    return VK_NULL_HANDLE;
  vkGetDeviceQueue(device, family, 0, &queue);
  return device;
}

/// A new device of `physical` described for useDevice (device is null when
/// it cannot be made).
static tlc::vulkan::ExternalDevice newDevice(VkInstance instance,
                                             VkPhysicalDevice physical) {
  tlc::vulkan::ExternalDevice d;
  d.instance = instance;
  d.physical = physical;
  d.device = makeDevice(physical, d.queueFamily, d.queue);
  return d;
}

constexpr int64_t M = 5, N = 77;

/// Runs the softmax stub on M x N random rows; prints PASS or FAIL with
/// `label`. The device buffers stay allocated (releaseDevice() frees them);
/// `keepX`/`keepY` get their addresses.
static bool runSoftmax(const std::string &label, void **keepX = nullptr,
                       void **keepY = nullptr) {
  std::vector<float> x(M * N), y(M * N), ref(M * N);
  srand(7);
  for (float &v : x)
    v = float(rand()) / RAND_MAX * 8.0f - 4.0f;
  softmaxRows(x, ref, M, N);
  void *dx = nullptr, *dy = nullptr;
  tlc::Status s;
  if (!(s = tlc::vulkan::allocate(x.size() * 4, dx)).ok() ||
      !(s = tlc::vulkan::allocate(y.size() * 4, dy)).ok() ||
      !(s = tlc::vulkan::upload(dx, x.data(), x.size() * 4)).ok() ||
      !(s = tlc::kernels::softmax(tlc::makeTensor(dx, TLC_F32, {M, N}),
                                  tlc::makeTensor(dy, TLC_F32, {M, N})))
           .ok() ||
      !(s = tlc::vulkan::download(y.data(), dy, y.size() * 4)).ok()) {
    std::printf("FAIL %s: %s\n", label.c_str(), s.message.c_str());
    return false;
  }
  double err = 0;
  for (size_t i = 0; i < y.size(); ++i)
    err = std::fmax(err, std::fabs(double(y[i]) - ref[i]));
  std::printf("%s %s: max err %.2g\n", err < 1e-5 ? "PASS" : "FAIL",
              label.c_str(), err);
  if (keepX)
    *keepX = dx;
  if (keepY)
    *keepY = dy;
  return err < 1e-5;
}

int main() {
  // The application's own Vulkan objects (linked with -lvulkan).
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo instanceInfo{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instanceInfo.pApplicationInfo = &app;
  VkInstance instance;
  if (VkResult r = vkCreateInstance(&instanceInfo, nullptr, &instance))
    return fail("vkCreateInstance", r);
  uint32_t count = 1;
  VkPhysicalDevice physical;
  if (VkResult r = vkEnumeratePhysicalDevices(instance, &count, &physical);
      r < 0 || count == 0)
    return fail("vkEnumeratePhysicalDevices", r);
  uint32_t family = 0;
  VkQueue queue;
  VkDevice device = makeDevice(physical, family, queue);
  if (!device)
    return fail("vkCreateDevice", VK_ERROR_INITIALIZATION_FAILED);

  tlc::vulkan::ExternalDevice mine;
  mine.instance = instance;
  mine.physical = physical;
  mine.device = device;
  mine.queue = queue;
  mine.queueFamily = family;
  tlc::Status s = tlc::vulkan::useDevice(mine);
  std::printf("useDevice: status=%d\n", s.code);

  void *dx = nullptr, *dy = nullptr;
  if (!runSoftmax(std::string("softmax on the caller's device (") +
                      (tlc::vulkan::context().device == device
                           ? "same VkDevice)"
                           : "another VkDevice)"),
                  &dx, &dy))
    return 1;
  s = tlc::vulkan::useDevice(mine);
  std::printf("AGAIN: status=%d %s\n", s.code, s.message.c_str());
  // This device was made without VK_KHR_push_descriptor (and mine says
  // so): launches cannot be recorded into its command buffers.
  VkCommandPool pool;
  VkCommandBuffer cmd = recordingCommandBuffer(device, family, pool);
  s = tlc::kernels::softmax(tlc::makeTensor(dx, TLC_F32, {M, N}),
                            tlc::makeTensor(dy, TLC_F32, {M, N}),
                            tlc::LaunchOptions(0, cmd));
  std::printf("RECORD: status=%d %s\n", s.code, s.message.c_str());
  vkDestroyCommandPool(device, pool, nullptr);
  tlc::vulkan::release(dx);
  tlc::vulkan::release(dy);

  // tlc lets go of the device (pipelines, pool, fence, pipeline cache);
  // the program destroys it.
  s = tlc::vulkan::releaseDevice();
  std::printf("RELEASE: status=%d\n", s.code);
  vkDestroyDevice(device, nullptr);
  std::printf("DESTROYED the first device\n");

  // useDevice again, on a second device of the program.
  mine = newDevice(instance, physical);
  VkDevice device2 = mine.device;
  s = tlc::vulkan::useDevice(mine);
  std::printf("USE AGAIN: status=%d\n", s.code);
  runSoftmax(tlc::vulkan::context().device == device2
                 ? "softmax on the second device"
                 : "softmax on another device than the second");
  s = tlc::vulkan::releaseDevice();
  vkDestroyDevice(device2, nullptr);
  std::printf("RELEASE AGAIN: status=%d\n", s.code);

  // No useDevice: tlc makes its own instance and device, and destroys
  // them on release.
  runSoftmax(tlc::vulkan::context().ownsDevice
                 ? "softmax on tlc's own device"
                 : "softmax on a caller's device");
  s = tlc::vulkan::releaseDevice();
  std::printf("RELEASE OWN: status=%d\n", s.code);

  // A device destroyed while tlc still has a buffer on it (no release):
  // the validation layer reports the buffer and its memory.
  mine = newDevice(instance, physical);
  VkDevice device3 = mine.device;
  void *kept = nullptr;
  if (!(s = tlc::vulkan::useDevice(mine)).ok() ||
      !(s = tlc::vulkan::allocate(256, kept)).ok())
    std::printf("FAIL leak setup: %s\n", s.message.c_str());
  std::fflush(stdout);
  std::printf("LEAK: destroying a device tlc still uses\n");
  std::fflush(stdout);
  vkDestroyDevice(device3, nullptr);
  std::printf("END\n");
  return 0;
}
