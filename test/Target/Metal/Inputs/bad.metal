// Hand-written translation units for msl-check.test, in the layout of
// tlc -emit=msl: one valid unit and three with an error that Metal's
// compiler reports, which check-msl.sh must report too, naming the unit.

#if defined(TLC_KERNEL_tlc_good)
#include <metal_stdlib>
#include <simd/simd.h>

using namespace metal;

struct Data
{
    float _m0[1];
};

kernel void tlc_good(device Data& x [[buffer(0)]], constant Data& n [[buffer(1)]], uint3 tid [[thread_position_in_threadgroup]])
{
    threadgroup float partial[32];
    float v = fma(x._m0[tid.x], 2.0, n._m0[0]);
    v += simd_shuffle_xor(v, ushort(16));
    partial[tid.x] = v;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    x._m0[tid.x] = partial[31u - tid.x] + as_type<float>(0x3f800000u);
}

#endif // TLC_KERNEL_tlc_good

#if defined(TLC_KERNEL_tlc_bad)
#include <metal_stdlib>
#include <simd/simd.h>

using namespace metal;

struct Data
{
    float _m0[1];
};

// simd_shuffle_xor takes the value and the lane mask.
kernel void tlc_bad(device Data& x [[buffer(0)]], uint3 tid [[thread_position_in_threadgroup]])
{
    x._m0[tid.x] = simd_shuffle_xor(x._m0[tid.x], ushort(1), 32u);
}

#endif // TLC_KERNEL_tlc_bad

#if defined(TLC_KERNEL_tlc_bad_space)
#include <metal_stdlib>
#include <simd/simd.h>

using namespace metal;

struct Data
{
    float _m0[1];
};

// A thread reference cannot bind to device memory.
static inline void twice(thread float& y)
{
    y *= 2.0;
}

kernel void tlc_bad_space(device Data& x [[buffer(0)]], uint3 tid [[thread_position_in_threadgroup]])
{
    twice(x._m0[tid.x]);
}

#endif // TLC_KERNEL_tlc_bad_space

#if defined(TLC_KERNEL_tlc_bad_half)
#include <metal_stdlib>
#include <simd/simd.h>

using namespace metal;

struct Data
{
    half _m0[1];
};

// fma(half, float, float): neither the half nor the float overload is better.
kernel void tlc_bad_half(device Data& x [[buffer(0)]], uint3 tid [[thread_position_in_threadgroup]])
{
    x._m0[tid.x] = fma(x._m0[tid.x], 2.0, 1.0);
}

#endif // TLC_KERNEL_tlc_bad_half
