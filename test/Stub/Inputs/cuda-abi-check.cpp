// Checks that the CUDA driver API types and functions tlc_cuda.h declares
// match the real cuda.h (compiled only, with -I/usr/local/cuda/include).
#include "tlc/Runtime/tlc_cuda.h"

#include <cuda.h>

#include <type_traits>

namespace {
// Maps a tlc::cuda type to the cuda.h type it stands for.
template <typename T> struct Map {
  using type = T;
};
template <typename T> struct Map<T *> {
  using type = typename Map<T>::type *;
};
template <typename T> struct Map<const T> {
  using type = const typename Map<T>::type;
};
template <> struct Map<tlc::cuda::CUctx_st> {
  using type = ::CUctx_st;
};
template <> struct Map<tlc::cuda::CUmod_st> {
  using type = ::CUmod_st;
};
template <> struct Map<tlc::cuda::CUfunc_st> {
  using type = ::CUfunc_st;
};
template <> struct Map<tlc::cuda::CUstream_st> {
  using type = ::CUstream_st;
};
template <> struct Map<tlc::cuda::CUresult> {
  using type = ::CUresult;
};
template <> struct Map<tlc::cuda::CUfunction_attribute> {
  using type = ::CUfunction_attribute;
};
template <typename R, typename... A> struct Map<R (*)(A...)> {
  using type = typename Map<R>::type (*)(typename Map<A>::type...);
};

#define CHECK_FN(name)                                                         \
  static_assert(                                                               \
      std::is_same_v<Map<tlc::cuda::PFN_##name>::type, decltype(&::name)>,     \
      "tlc::cuda::PFN_" #name " does not match cuda.h")
CHECK_FN(cuInit);
CHECK_FN(cuDeviceGet);
CHECK_FN(cuCtxGetCurrent);
CHECK_FN(cuCtxSetCurrent);
CHECK_FN(cuCtxGetId);
CHECK_FN(cuDevicePrimaryCtxRetain);
CHECK_FN(cuModuleLoadData);
CHECK_FN(cuModuleGetFunction);
CHECK_FN(cuFuncSetAttribute);
CHECK_FN(cuGetErrorName);
CHECK_FN(cuGetErrorString);
CHECK_FN(cuMemAllocAsync);
CHECK_FN(cuMemFreeAsync);
// cuda.h may rename cuLaunchKernel (per-thread default stream); tlc resolves
// the plain symbol.
static_assert(
    std::is_same_v<Map<tlc::cuda::PFN_cuLaunchKernel>::type,
                   CUresult (*)(CUfunction, unsigned, unsigned, unsigned,
                                unsigned, unsigned, unsigned, unsigned,
                                CUstream, void **, void **)>,
    "tlc::cuda::PFN_cuLaunchKernel does not match cuda.h");

static_assert(sizeof(tlc::cuda::CUresult) == sizeof(::CUresult));
static_assert(sizeof(tlc::cuda::CUdevice) == sizeof(::CUdevice));
static_assert(std::is_same_v<tlc::cuda::CUdevice, ::CUdevice>);
static_assert(sizeof(tlc::cuda::CUfunction_attribute) ==
              sizeof(::CUfunction_attribute));
static_assert(int(tlc::cuda::CUDA_SUCCESS) == int(::CUDA_SUCCESS));
static_assert(int(tlc::cuda::CUDA_ERROR_NOT_INITIALIZED) ==
              int(::CUDA_ERROR_NOT_INITIALIZED));
static_assert(int(tlc::cuda::CUDA_ERROR_NO_DEVICE) ==
              int(::CUDA_ERROR_NO_DEVICE));
static_assert(int(tlc::cuda::CUDA_ERROR_NOT_FOUND) ==
              int(::CUDA_ERROR_NOT_FOUND));
static_assert(int(tlc::cuda::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) ==
              int(::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES));
} // namespace
