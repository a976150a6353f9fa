// many_buffers_driver.cpp: Inputs/many_buffers.tl sums 33 tensors into Y:
// 34 buffers and the words' buffer. It reports a launch (checked against
// the CPU sum when it runs) and a launch recorded into a command buffer;
// on lavapipe (32 storage buffers per shader) both are refused.
#include <vulkan/vulkan.h>

#include "many.h"
#include "test_util.h"
#include "tlc/Runtime/tlc_vulkan.h"

#include <cstdio>
#include <vector>

int main() {
  const int64_t N = 40, inputs = 33;
  std::vector<void *> data(inputs + 1);
  std::vector<tlc::TensorView> views;
  for (int64_t t = 0; t <= inputs; ++t) {
    std::vector<float> host(N);
    for (int64_t i = 0; i < N; ++i)
      host[i] = float(t + 1) + 0.5f * float(i);
    tlc::Status s = tlc::vulkan::allocate(N * 4, data[t]);
    if (s.ok())
      s = tlc::vulkan::upload(data[t], host.data(), N * 4);
    if (!s.ok()) {
      std::printf("FAIL setup: %s\n", s.message.c_str());
      return 1;
    }
    views.push_back(tlc::makeTensor(data[t], TLC_F32, {N}));
  }
  auto launch = [&](const tlc::LaunchOptions &options) {
    return tlc::kernels::many(
        views[0], views[1], views[2], views[3], views[4], views[5], views[6],
        views[7], views[8], views[9], views[10], views[11], views[12],
        views[13], views[14], views[15], views[16], views[17], views[18],
        views[19], views[20], views[21], views[22], views[23], views[24],
        views[25], views[26], views[27], views[28], views[29], views[30],
        views[31], views[32], views[33], options);
  };
  tlc::Status s = launch({});
  std::vector<float> y(N);
  tlc::vulkan::download(y.data(), data[inputs], N * 4);
  int wrong = 0;
  for (int64_t i = 0; i < N; ++i) {
    // sum over t of (t + 1) + i / 2
    float want = float(inputs * (inputs + 1) / 2) + 0.5f * float(i * inputs);
    wrong += y[i] != want;
  }
  std::printf("LAUNCH: status=%d %s, %d wrong\n", s.code, s.message.c_str(),
              wrong);
  tlc::vulkan::Context &c = tlc::vulkan::context();
  VkCommandPool pool;
  VkCommandBuffer cmd = recordingCommandBuffer(c.device, c.queueFamily, pool);
  s = launch(tlc::LaunchOptions(0, cmd));
  std::printf("RECORD: status=%d %s\n", s.code, s.message.c_str());
  vkEndCommandBuffer(cmd);
  vkDestroyCommandPool(c.device, pool, nullptr);
  return 0;
}
