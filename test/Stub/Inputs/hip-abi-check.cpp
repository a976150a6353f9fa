// Checks that the HIP types and functions tlc_hip.h declares match the real
// hip_runtime_api.h (compiled only, with -D__HIP_PLATFORM_AMD__).
#include "tlc/Runtime/tlc_hip.h"

#include <hip/hip_runtime_api.h>

#include <type_traits>

namespace {
// Maps a tlc::hip type to the hip_runtime_api.h type it stands for.
template <typename T> struct Map {
  using type = T;
};
template <typename T> struct Map<T *> {
  using type = typename Map<T>::type *;
};
template <typename T> struct Map<const T> {
  using type = const typename Map<T>::type;
};
template <> struct Map<tlc::hip::ihipModule_t> {
  using type = ::ihipModule_t;
};
template <> struct Map<tlc::hip::ihipModuleSymbol_t> {
  using type = ::ihipModuleSymbol_t;
};
template <> struct Map<tlc::hip::ihipStream_t> {
  using type = ::ihipStream_t;
};
template <> struct Map<tlc::hip::hipError_t> {
  using type = ::hipError_t;
};
template <> struct Map<tlc::hip::hipDeviceAttribute_t> {
  using type = ::hipDeviceAttribute_t;
};
template <> struct Map<tlc::hip::hipFunction_attribute> {
  using type = ::hipFunction_attribute;
};
template <typename R, typename... A> struct Map<R (*)(A...)> {
  using type = typename Map<R>::type (*)(typename Map<A>::type...);
};

#define CHECK_FN(name)                                                         \
  static_assert(                                                               \
      std::is_same_v<Map<tlc::hip::PFN_##name>::type, decltype(&::name)>,      \
      "tlc::hip::PFN_" #name " does not match hip_runtime_api.h")
CHECK_FN(hipInit);
CHECK_FN(hipGetDevice);
CHECK_FN(hipDeviceGetAttribute);
CHECK_FN(hipModuleLoadData);
CHECK_FN(hipModuleGetFunction);
CHECK_FN(hipFuncGetAttribute);
CHECK_FN(hipModuleLaunchKernel);
CHECK_FN(hipGetErrorName);
CHECK_FN(hipGetErrorString);
// C++ adds template overloads of hipMallocAsync: the void ** one is resolved.
static_assert(
    std::is_same_v<
        Map<tlc::hip::PFN_hipMallocAsync>::type,
        decltype(static_cast<::hipError_t (*)(void **, size_t, ::hipStream_t)>(
            &::hipMallocAsync))>,
    "tlc::hip::PFN_hipMallocAsync does not match hip_runtime_api.h");
CHECK_FN(hipFreeAsync);

static_assert(std::is_same_v<Map<tlc::hip::hipModule_t>::type, ::hipModule_t>);
static_assert(
    std::is_same_v<Map<tlc::hip::hipFunction_t>::type, ::hipFunction_t>);
static_assert(std::is_same_v<Map<tlc::hip::hipStream_t>::type, ::hipStream_t>);
static_assert(sizeof(tlc::hip::hipError_t) == sizeof(::hipError_t));
static_assert(sizeof(tlc::hip::hipDeviceAttribute_t) ==
              sizeof(::hipDeviceAttribute_t));
static_assert(sizeof(tlc::hip::hipFunction_attribute) ==
              sizeof(::hipFunction_attribute));

#define CHECK_VALUE(name)                                                      \
  static_assert(int(tlc::hip::name) == int(::name),                            \
                "tlc::hip::" #name " does not match hip_runtime_api.h")
CHECK_VALUE(hipSuccess);
CHECK_VALUE(hipErrorInvalidValue);
CHECK_VALUE(hipErrorNotInitialized);
CHECK_VALUE(hipErrorInvalidDeviceFunction);
CHECK_VALUE(hipErrorNoDevice);
CHECK_VALUE(hipErrorInvalidDevice);
CHECK_VALUE(hipErrorInvalidImage);
CHECK_VALUE(hipErrorNotFound);
CHECK_VALUE(hipErrorLaunchFailure);
CHECK_VALUE(hipDeviceAttributeMaxSharedMemoryPerBlock);
CHECK_VALUE(HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
} // namespace
