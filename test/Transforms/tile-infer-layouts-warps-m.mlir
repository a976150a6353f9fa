// RUN: tlc-opt %s --tile-attach-target --tile-infer-layouts -verify-diagnostics
// A warps_m hint the matrix instructions cannot tile is an error (not a
// silent fall back to FMA loops): 32 rows of m16 tiles over 4 warps along M.

func.func @warps_m_too_many() attributes {tile.kernel, tile.threads = 128 : i64} {
  %a = tile.alloc : memref<32x16xbf16, #tile.scope<shared>>
  %b = tile.alloc : memref<16x32xbf16, #tile.scope<shared>>
  %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
  // expected-error @+1 {{gemm: warps_m = 4 does not fit its 32x32 accumulator on 4 warps of 32 threads; the compiler would put 2 along M}}
  tile.gemm %a, %b, %acc {clear, warps_m = 4 : i64} : memref<32x16xbf16, #tile.scope<shared>>, memref<16x32xbf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  return
}
