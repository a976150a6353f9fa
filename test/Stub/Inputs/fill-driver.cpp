// Calls the CUDA stub of examples/softmax.tl, compiled without a tuning
// database (the fill heuristic), at row counts that pick different
// variants; runs without a GPU through fake-libcuda-tensor-maps.cpp, whose
// device has 3 multiprocessors.
#include "softmax.h"

#include <cstdint>
#include <cstdio>

static float x[1000 * 64], y[1000 * 64];

int main() {
  for (int64_t rows : {1, 5, 20, 100, 1000}) {
    tlc::TensorView X = tlc::makeTensor(x, TLC_F32, {rows, 64});
    tlc::TensorView Y = tlc::makeTensor(y, TLC_F32, {rows, 64});
    tlc::Status st = tlc::kernels::softmax(X, Y);
    std::printf("M=%lld: %d %s\n", static_cast<long long>(rows), st.code,
                st.message.c_str());
  }
  return 0;
}
