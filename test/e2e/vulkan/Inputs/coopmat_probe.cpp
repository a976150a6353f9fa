// Prints what the first Vulkan device offers of VK_KHR_cooperative_matrix:
// whether it has the extension, its subgroup size and one line per
// supported shape, "MxNxK A x B + C -> RESULT SCOPE". Built against Vulkan
// headers that know the extension (coopmat-device.test).
#include <vulkan/vulkan.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

static std::string typeName(VkComponentTypeKHR t) {
  switch (t) {
  case VK_COMPONENT_TYPE_FLOAT16_KHR:
    return "FLOAT16";
  case VK_COMPONENT_TYPE_FLOAT32_KHR:
    return "FLOAT32";
  case VK_COMPONENT_TYPE_SINT8_KHR:
    return "SINT8";
  case VK_COMPONENT_TYPE_SINT32_KHR:
    return "SINT32";
  case VK_COMPONENT_TYPE_UINT8_KHR:
    return "UINT8";
  case VK_COMPONENT_TYPE_UINT32_KHR:
    return "UINT32";
  default:
    return "type" + std::to_string(static_cast<int>(t));
  }
}

static const char *scopeName(VkScopeKHR s) {
  switch (s) {
  case VK_SCOPE_SUBGROUP_KHR:
    return "SUBGROUP";
  case VK_SCOPE_WORKGROUP_KHR:
    return "WORKGROUP";
  default:
    return "OTHER";
  }
}

int main() {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VkInstance instance;
  if (vkCreateInstance(&ici, nullptr, &instance) != VK_SUCCESS) {
    std::puts("FAIL: vkCreateInstance");
    return 1;
  }
  uint32_t count = 1;
  VkPhysicalDevice device;
  VkResult r = vkEnumeratePhysicalDevices(instance, &count, &device);
  if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || count == 0) {
    std::puts("FAIL: no Vulkan device");
    return 1;
  }

  VkPhysicalDeviceSubgroupProperties subgroup{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 props{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup};
  vkGetPhysicalDeviceProperties2(device, &props);
  std::printf("device: %s\n", props.properties.deviceName);
  std::printf("subgroup size: %u\n", subgroup.subgroupSize);

  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(device, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> exts(n);
  vkEnumerateDeviceExtensionProperties(device, nullptr, &n, exts.data());
  bool has = false;
  for (const VkExtensionProperties &e : exts)
    has |=
        !std::strcmp(e.extensionName, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
  std::printf("%s: %s\n", VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME,
              has ? "yes" : "no");
  if (!has)
    return 1;

  auto getProps =
      reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR>(
          vkGetInstanceProcAddr(
              instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  if (!getProps) {
    std::puts("FAIL: no vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR");
    return 1;
  }
  n = 0;
  getProps(device, &n, nullptr);
  std::vector<VkCooperativeMatrixPropertiesKHR> shapes(
      n, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR});
  getProps(device, &n, shapes.data());
  for (const VkCooperativeMatrixPropertiesKHR &s : shapes)
    std::printf("%ux%ux%u %s x %s + %s -> %s %s%s\n", s.MSize, s.NSize, s.KSize,
                typeName(s.AType).c_str(), typeName(s.BType).c_str(),
                typeName(s.CType).c_str(), typeName(s.ResultType).c_str(),
                scopeName(s.scope),
                s.saturatingAccumulation ? " saturating" : "");
  std::puts("END");
  vkDestroyInstance(instance, nullptr);
  return 0;
}
