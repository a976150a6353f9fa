// simd/simd.h (a stand-in for tests): part of the shim that declares the
// subset of the Metal Shading Language's standard library that tlc's
// kernels use, for a syntax and type check with clang on machines without
// Apple's Metal compiler (see ../metal_stdlib and ../../check-msl.sh).
// Written from the signatures of Apple's documentation. SPIRV-Cross includes
// this header in every translation unit but tlc's kernels use none of it;
// only the vector typedefs of the simd library are declared.

#ifndef TLC_TEST_SIMD_SIMD_H
#define TLC_TEST_SIMD_SIMD_H

#include <metal_stdlib>

#define TLC_SIMD_VECTORS(T)                                                    \
  typedef T##2 simd_##T##2;                                                    \
  typedef T##3 simd_##T##3;                                                    \
  typedef T##4 simd_##T##4;                                                    \
  typedef T##2 vector_##T##2;                                                  \
  typedef T##3 vector_##T##3;                                                  \
  typedef T##4 vector_##T##4;
TLC_SIMD_VECTORS(char)
TLC_SIMD_VECTORS(uchar)
TLC_SIMD_VECTORS(short)
TLC_SIMD_VECTORS(ushort)
TLC_SIMD_VECTORS(int)
TLC_SIMD_VECTORS(uint)
TLC_SIMD_VECTORS(long)
TLC_SIMD_VECTORS(ulong)
TLC_SIMD_VECTORS(half)
TLC_SIMD_VECTORS(float)
#undef TLC_SIMD_VECTORS

#endif // TLC_TEST_SIMD_SIMD_H
