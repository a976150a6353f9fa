// record_driver.cpp: two softmax launches recorded into the program's own
// command buffer (LaunchOptions::stream = a VkCommandBuffer of tlc's
// device): nothing runs until the program submits it; then Z =
// softmax(softmax(X)), the second launch reading what the first wrote
// (the barrier tlc records before each dispatch), checked against the CPU.
#include <vulkan/vulkan.h>

#include "softmax.h"
#include "test_util.h"
#include "tlc/Runtime/tlc_vulkan.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main() {
  const int64_t M = 7, N = 130;
  const size_t bytes = M * N * 4;
  std::vector<float> x(M * N), y(M * N), z(M * N, -1.0f), ref(M * N);
  srand(11);
  for (float &v : x)
    v = float(rand()) / RAND_MAX * 6.0f - 3.0f;
  softmaxRows(x, y, M, N);
  softmaxRows(y, ref, M, N);
  void *dx = nullptr, *dy = nullptr, *dz = nullptr;
  tlc::Status s;
  if (!(s = tlc::vulkan::allocate(bytes, dx)).ok() ||
      !(s = tlc::vulkan::allocate(bytes, dy)).ok() ||
      !(s = tlc::vulkan::allocate(bytes, dz)).ok() ||
      !(s = tlc::vulkan::upload(dx, x.data(), bytes)).ok() ||
      !(s = tlc::vulkan::upload(dz, z.data(), bytes)).ok()) {
    std::printf("FAIL setup: %s\n", s.message.c_str());
    return 1;
  }
  tlc::vulkan::Context &c = tlc::vulkan::context();
  VkCommandPool pool;
  VkCommandBuffer cmd = recordingCommandBuffer(c.device, c.queueFamily, pool);

  tlc::LaunchOptions record(0, cmd);
  auto X = tlc::makeTensor(dx, TLC_F32, {M, N});
  auto Y = tlc::makeTensor(dy, TLC_F32, {M, N});
  auto Z = tlc::makeTensor(dz, TLC_F32, {M, N});
  s = tlc::kernels::softmax(X, Y, record);
  std::printf("record 1: status=%d %s\n", s.code, s.message.c_str());
  s = tlc::kernels::softmax(Y, Z, record);
  std::printf("record 2: status=%d %s\n", s.code, s.message.c_str());
  tlc::vulkan::download(z.data(), dz, bytes);
  std::printf("before submit: Z %s\n",
              z[0] == -1.0f && z[M * N - 1] == -1.0f ? "untouched" : "WRITTEN");
  vkEndCommandBuffer(cmd);

  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  vkCreateFence(c.device, &fenceInfo, nullptr, &fence);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  VkResult r = vkQueueSubmit(c.queue, 1, &submit, fence);
  if (r == VK_SUCCESS)
    r = vkWaitForFences(c.device, 1, &fence, VK_TRUE, UINT64_MAX);
  if (r != VK_SUCCESS) {
    std::printf("FAIL submit: %d\n", r);
    return 1;
  }
  tlc::vulkan::download(z.data(), dz, bytes);
  double err = 0;
  for (size_t i = 0; i < z.size(); ++i)
    err = std::fmax(err, std::fabs(double(z[i]) - ref[i]));
  std::printf("%s softmax(softmax(X)) recorded: max err %.2g\n",
              err < 1e-5 ? "PASS" : "FAIL", err);
  vkDestroyFence(c.device, fence, nullptr);
  vkDestroyCommandPool(c.device, pool, nullptr);
  return 0;
}
