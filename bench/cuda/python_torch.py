"""python_torch.py GEN: the generated Python modules (tlc -emit=python,
written by `e2e.sh prepare` next to each configuration's stubs) called with
PyTorch CUDA tensors on the GPU, against torch, on PyTorch's current stream
and on a side stream: gemm (configurations gemm_*), linear (linear_*) and
softmax (softmax_*), ragged sizes included. linear at N = 133 (C's rows not
16-byte aligned, A and W aligned) runs traced (TLC_CUDA_TRACE=1): a
persistent warp-specialized variant (configurations *_wg2) must say that it
stores from registers (the store flag, docs/abi.md) and be right. Prints
PASS/FAIL lines; exit 1 on any failure."""
import importlib.util
import os
import sys
import tempfile

# Read once by the stubs, at their first launch: every launch is traced
# (to stderr, which traced() captures where it matters).
os.environ["TLC_CUDA_TRACE"] = "1"

import torch  # noqa: E402

gen = sys.argv[1]
failures = 0


def load(config, stem):
    path = os.path.join(gen, config, stem + ".py")
    lib = os.path.join(gen, config, "libtlc_e2e_%s.so" % config)
    if not (os.path.exists(path) and os.path.exists(lib)):
        return None
    spec = importlib.util.spec_from_file_location(stem + "_" + config, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def traced(call):
    """Runs call() and returns what the stubs wrote to stderr meanwhile."""
    sys.stderr.flush()
    with tempfile.TemporaryFile() as f:
        saved = os.dup(2)
        os.dup2(f.fileno(), 2)
        try:
            call()
            torch.cuda.synchronize()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        f.seek(0)
        return f.read().decode(errors="replace")


MATMUL_DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16,
                 "f32": torch.float32}


def matmul_operands(config, M, N, K, transposed):
    """Random A [M, K], B ([N, K] when transposed, else [K, N]), a NaN-filled
    C [M, N] of the configuration's dtype, and the float64 reference."""
    dtype = MATMUL_DTYPES[config.split("_")[1]]
    A = torch.randn(M, K, device="cuda").to(dtype)
    B = torch.randn(*((N, K) if transposed else (K, N)),
                    device="cuda").to(dtype)
    C = torch.full((M, N), float("nan"), device="cuda", dtype=dtype)
    ref = A.double() @ (B.double().t() if transposed else B.double())
    return A, B, C, ref


def matmul_ok(C, ref):
    """C's relative L2 error against ref, and whether it is within the
    tolerance of C's dtype."""
    err = ((C.double() - ref).norm() / ref.norm()).item()
    return err, err < (2e-2 if C.dtype != torch.float32 else 1e-4)


def report(ok, what):
    global failures
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    failures += not ok


ran = 0
for config in sorted(os.listdir(gen)):
    if config.startswith("gemm_"):
        m = load(config, "gemm")
        if m is None:
            continue
        for M, N, K in [(130, 257, 129), (1024, 1024, 1024)]:
            A, B, C, ref = matmul_operands(config, M, N, K, transposed=False)
            m.gemm(A, B, C)
            err, ok = matmul_ok(C, ref)
            report(ok, "%s gemm %dx%dx%d rel err %.2g" % (config, M, N, K, err))
        ran += 1
    if config.startswith("linear_"):
        m = load(config, "linear")
        if m is None:
            continue
        for M, N, K in [(200, 133, 136), (200, 136, 136)]:
            A, W, C, ref = matmul_operands(config, M, N, K, transposed=True)
            log = traced(lambda: m.linear(A, W, C))
            err, ok = matmul_ok(C, ref)
            from_registers = "storing from registers" in log
            # Only C's rows break TMA's rules at N = 133; the persistent TMA
            # entry must run either way (not its fallback).
            wg2 = config.endswith("_wg2")
            expected = wg2 and N % 8 != 0
            report(ok and
                   (not wg2 or (from_registers == expected and
                                "(persistent" in log)),
                   "%s linear %dx%dx%d rel err %.2g%s (trace: %s)" %
                   (config, M, N, K, err,
                    ", stored from registers" if from_registers else "",
                    " | ".join(log.strip().splitlines()) or "none"))
        ran += 1
    if config.startswith("softmax_"):
        m = load(config, "softmax")
        if m is None:
            continue
        dtype = {"f32": torch.float32, "bf16": torch.bfloat16}[
            config.split("_")[1]]
        side = torch.cuda.Stream()
        for M, N in [(37, 1000), (4096, 8192)]:
            X = (torch.randn(M, N, device="cuda") * 4).to(dtype)
            Y = torch.full_like(X, float("nan"))
            with torch.cuda.stream(side):  # the module follows the stream
                m.softmax(X, Y)
            side.synchronize()
            ref = torch.softmax(X.double(), dim=1)
            err = (Y.double() - ref).abs().max().item()
            report(err < (1e-2 if dtype == torch.bfloat16 else 1e-5),
                   "%s softmax %dx%d max err %.2g (side stream)" %
                   (config, M, N, err))
        ran += 1
try:
    m = next(load(c, "gemm") for c in sorted(os.listdir(gen))
             if c.startswith("gemm_") and load(c, "gemm"))
    A = torch.randn(64, 64, device="cuda")
    m.gemm(A.half(), A.half(), A.half())
    report(False, "a dtype mismatch was accepted")
except StopIteration:
    pass
except Exception as e:  # the stub's message as a TlcError
    report(type(e).__name__ == "TlcError", "refusal: %s" % e)
print("%d configurations, %d failures" % (ran, failures))
# Nothing run is a failure only where a configuration it covers was
# prepared (its module then did not load); a run narrowed to other
# kernels (E2E_ONLY) has nothing for it.
prepared = [c for c in os.listdir(gen)
            if c.startswith(("gemm_", "linear_", "softmax_"))]
if not ran and not prepared:
    print("no gemm_/linear_/softmax_ configuration prepared: nothing to run")
sys.exit(1 if failures or (prepared and not ran) else 0)
