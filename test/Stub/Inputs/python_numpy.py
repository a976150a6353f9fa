"""Drives the Python bindings (tlc -emit=python) of examples/gemm.tl,
softmax.tl, rmsnorm.tl and test/e2e/cpu/Inputs/packed.tl on the CPU with
NumPy arrays: results
against NumPy references (a padded, strided X included), packed u4/i4
through packed4, and every refusal: the stub's (wrong dtype, wrong size)
as TlcError with its message, the module's own (read-only output, wrong
object, unknown dtype) as ValueError/TypeError. Prints PASS/FAIL lines."""
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
import gemm  # noqa: E402
import packed  # noqa: E402
import rmsnorm  # noqa: E402
import softmax  # noqa: E402

failed = 0


def check(ok, what):
    global failed
    print(("PASS " if ok else "FAIL ") + what)
    failed += not ok


def raises(kind, fn, text):
    try:
        fn()
    except kind as e:
        ok = text in str(e)
        check(ok, "%s: %s" % (kind.__name__, e))
        return e
    check(False, "no %s (expected '%s')" % (kind.__name__, text))


rng = np.random.default_rng(7)
print("kernels:", rmsnorm.KERNELS, packed.KERNELS, rmsnorm.TARGET)
for M, N in [(37, 300), (5, 64), (200, 4100)]:
    wide = rng.standard_normal((M, N + 7), dtype=np.float32)
    X = wide[:, :N]  # rows N + 7 apart
    W = rng.standard_normal(N, dtype=np.float32)
    Y = np.full((M, N), np.nan, dtype=np.float32)
    rmsnorm.rmsnorm(X, W, Y, 1e-5, num_threads=2)
    x = X.astype(np.float64)
    ref = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-5) * W
    err = np.abs(Y - ref).max() / np.abs(ref).max()
    check(err < 1e-5, "rmsnorm %dx%d err=%.2g" % (M, N, err))

for M, N, K in [(130, 77, 61), (256, 256, 256)]:
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    C = np.full((M, N), np.nan, dtype=np.float32)
    gemm.gemm(A, B, C)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    err = np.abs(C - ref).max() / np.abs(ref).max()
    check(err < 1e-5, "gemm %dx%dx%d err=%.2g" % (M, N, K, err))

for M, N in [(37, 300), (1000, 1000)]:
    X = rng.standard_normal((M, N), dtype=np.float32) * 4
    Y = np.full((M, N), np.nan, dtype=np.float32)
    softmax.softmax(X, Y)
    x = X.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    err = np.abs(Y - ref).max()
    check(err < 1e-6, "softmax %dx%d err=%.2g" % (M, N, err))

# Packed: u4 and i4 bytes [M, K / 2] read as [M, K] by the kernel.
M, K = 37, 70
Qb = rng.integers(0, 256, (M, K // 2), dtype=np.uint8)
Sb = rng.integers(0, 256, (M, K // 2), dtype=np.uint8)
Y = np.full((M, K), -1, dtype=np.int32)
packed.unpack(packed.packed4(Qb), packed.packed4(Sb, signed=True), Y)
q = np.stack([Qb & 15, Qb >> 4], -1).reshape(M, K).astype(np.int64)
s = np.stack([Sb & 15, Sb >> 4], -1).reshape(M, K).astype(np.int64)
s = np.where(s >= 8, s - 16, s)
swapped = q.reshape(M, K // 2, 2)[:, :, ::-1].reshape(M, K)
check(np.array_equal(Y, 100 * q + s + 10000 * swapped), "unpack u4/i4")

X = rng.standard_normal((4, 64), dtype=np.float32)
W = np.ones(64, dtype=np.float32)
Y = np.zeros((4, 64), dtype=np.float32)
e = raises(rmsnorm.TlcError,
           lambda: rmsnorm.rmsnorm(X.astype(np.float64), W, Y, 1e-5),
           "X has dtype f64 but the kernel expects f32[M, N]")
check(e is not None and e.code == -1, "TlcError code -1")
raises(rmsnorm.TlcError, lambda: rmsnorm.rmsnorm(X, W[:10], Y, 1e-5),
       "W.shape[0] is 10")
Y.flags.writeable = False
raises(ValueError, lambda: rmsnorm.rmsnorm(X, W, Y, 1e-5),
       "Y is written by the kernel but is read-only")
raises(TypeError, lambda: rmsnorm.rmsnorm([1.0], W, X, 1e-5),
       "X must be a NumPy array or a PyTorch tensor, got list")
raises(TypeError, lambda: rmsnorm.rmsnorm(X.astype(np.complex64), W, X, 1e-5),
       "X has dtype complex64, which tlc has no code for")
raises(TypeError, lambda: packed.unpack(packed.packed4(Y), Qb, Y),
       "packed4(Q) needs uint8 data, got float32")
print("FAILED" if failed else "ALL PASSED")
sys.exit(1 if failed else 0)
