// test_util.h: what the Vulkan runtime tests' drivers share: a CPU
// softmax and a command buffer to record into.
#pragma once
#include <vulkan/vulkan.h>

#include <cmath>
#include <cstdint>
#include <vector>

/// y = softmax over each of the M rows of x (M x N, row-major), in double.
inline void softmaxRows(const std::vector<float> &x, std::vector<float> &y,
                        int64_t M, int64_t N) {
  for (int64_t i = 0; i < M; ++i) {
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < N; ++j)
      mx = std::fmax(mx, x[i * N + j]);
    for (int64_t j = 0; j < N; ++j)
      sum += std::exp(x[i * N + j] - mx);
    for (int64_t j = 0; j < N; ++j)
      y[i * N + j] = float(std::exp(x[i * N + j] - mx) / sum);
  }
}

/// A primary command buffer of `device`, from a new pool of queue family
/// `family` (the caller destroys `pool`), in the recording state.
inline VkCommandBuffer recordingCommandBuffer(VkDevice device, uint32_t family,
                                              VkCommandPool &pool) {
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.queueFamilyIndex = family;
  vkCreateCommandPool(device, &poolInfo, nullptr, &pool);
  VkCommandBufferAllocateInfo allocInfo{
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocInfo.commandPool = pool;
  allocInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocInfo.commandBufferCount = 1;
  VkCommandBuffer cmd;
  vkAllocateCommandBuffers(device, &allocInfo, &cmd);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  vkBeginCommandBuffer(cmd, &begin);
  return cmd;
}
