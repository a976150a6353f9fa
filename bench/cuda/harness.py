#!/usr/bin/env python3
"""harness.py - Checks and times tlc's CUDA kernels against torch on a GPU.

Run by `bench/cuda/e2e.sh run` on the GPU machine, after `e2e.sh prepare`
wrote bench/cuda/gen-e2e/CFG/ (launch stubs with embedded device binaries)
on the build machine and e2e.sh built each configuration into
gen-e2e/CFG/libtlc_e2e_CFG.so.

    python3 harness.py [--small] [--only REGEX] [--case REGEX] [--no-timing]
                       [--budget SECONDS] [--gen DIR] [--out DIR]

Every kernel is called through its C entry point `tlc_NAME` with ctypes
(tlc_tensor views of torch CUDA tensors, torch's current stream). Each check
draws fresh random inputs (seeded per check), poisons the outputs with NaN,
launches, and compares with a torch reference in float64 (attention: torch
SDPA in float32, and the log-sum-exp output L in float64): max abs error,
max error relative to max|ref|, and the relative L2 error
||out - ref|| / ||ref||, against tolerances for the output dtype. Unless
--small/--no-timing, each check is timed with CUDA events (warm-up, L2
flushed before every repetition, median) against the vendor path in the
same run (cuBLAS through torch.matmul, SDPA with the cuDNN and
FlashAttention backends, torch softmax / rms_norm / gelu / sum), and the
device copy bandwidth is measured for the memory-bound kernels.

The configurations run in worker processes (one process for all, restarted
after a configuration that crashes the CUDA context or hangs), so one bad
kernel does not end the run. Every check prints PASS/FAIL; the exit status
is 1 when any check failed or any configuration is missing. Results:
OUT/results.md (tables, ptxas / cuobjdump resource usage, SASS mix),
OUT/results.json.

--small runs only small sizes, with references on the CPU and no timing
(for `compute-sanitizer --tool memcheck`).

Testing this harness without a GPU: `E2E_STUB_ONLY=1 e2e.sh prepare` (stubs
without device code), build the libraries (e2e.sh run does), then
`python3 harness.py --mock` with a CPU torch: every launch goes through the
real stub's argument checks, which then fail to reach a driver, and the
check computes the kernel's result with torch instead. TLC_E2E_MOCK_FAULT
(wrong|flaky|crash|hang:REGEX) injects failures to exercise the reporting,
the race check and the worker restarts.
--check-abi compares the ctypes structures with the C layout in
$TLC_ABI_LAYOUT (e2e.sh abi); --extract-binaries writes each stub's embedded
binary to gen-e2e/CFG/NAME.bin (for cuobjdump). Both need no torch.
"""
import argparse
import ctypes as ct
import datetime
import json
import math
import os
import re
import subprocess
import sys
import time
import traceback
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
torch = None  # imported by init_torch(); --check-abi etc. need no torch
F = None

# --------------------------------------------------------------------------
# The C ABI (include/tlc/Runtime/tlc_runtime.h, docs/abi.md)
# --------------------------------------------------------------------------

TLC_MAX_RANK = 8


class TlcTensor(ct.Structure):
    _fields_ = [("data", ct.c_void_p), ("dtype", ct.c_int32),
                ("rank", ct.c_int32), ("shape", ct.c_int64 * TLC_MAX_RANK),
                ("strides", ct.c_int64 * TLC_MAX_RANK)]


class TlcLaunchOptions(ct.Structure):
    _fields_ = [("num_threads", ct.c_int32), ("stream", ct.c_void_p)]


def ctypes_layout():
    """Offsets and sizes in the order e2e.sh's layout program prints them."""
    return [TlcTensor.data.offset, TlcTensor.dtype.offset,
            TlcTensor.rank.offset, TlcTensor.shape.offset,
            TlcTensor.strides.offset, ct.sizeof(TlcTensor),
            TlcLaunchOptions.num_threads.offset,
            TlcLaunchOptions.stream.offset, ct.sizeof(TlcLaunchOptions)]


LAYOUT_NAMES = ["tlc_tensor.data", "tlc_tensor.dtype", "tlc_tensor.rank",
                "tlc_tensor.shape", "tlc_tensor.strides", "sizeof(tlc_tensor)",
                "tlc_launch_options.num_threads", "tlc_launch_options.stream",
                "sizeof(tlc_launch_options)"]

DTYPE_CODES = {"f64": 0, "f32": 1, "f16": 2, "bf16": 3, "i64": 4, "i32": 5,
               "i16": 6, "i8": 7, "u8": 8, "bool": 9, "f8e4m3": 10,
               "f8e5m2": 11, "u4": 12, "i4": 13}
DTYPE_SIZES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4,
               "i16": 2, "i8": 1, "u8": 1, "bool": 1, "f8e4m3": 1,
               "f8e5m2": 1}

# C parameter types of scalar arguments (docs/abi.md) -> ctypes.
SCALAR_CTYPES = {"float": ct.c_float, "double": ct.c_double,
                 "int64_t": ct.c_int64, "int32_t": ct.c_int32,
                 "int16_t": ct.c_int16, "int8_t": ct.c_int8,
                 "uint8_t": ct.c_uint8, "bool": ct.c_bool}

TLC_ERRORS = {0: "TLC_OK", -1: "TLC_ERR_INVALID_ARGUMENT",
              -2: "TLC_ERR_ALIGNMENT", -3: "TLC_ERR_RUNTIME"}


def check_abi():
    text = os.environ.get("TLC_ABI_LAYOUT", "").split()
    mine = ctypes_layout()
    if len(text) != len(mine):
        print("check-abi: TLC_ABI_LAYOUT must hold %d numbers (e2e.sh abi "
              "sets it), got %r" % (len(mine), text))
        return 1
    bad = 0
    for name, c, p in zip(LAYOUT_NAMES, [int(t) for t in text], mine):
        ok = c == p
        bad += not ok
        print("  %-32s C %4d  ctypes %4d  %s" % (name, c, p,
                                                "ok" if ok else "MISMATCH"))
    print("ABI layout: %s" % ("ok" if not bad else "%d MISMATCHES" % bad))
    return 1 if bad else 0


# --------------------------------------------------------------------------
# Generated files
# --------------------------------------------------------------------------


def read_kv(path):
    d = {}
    try:
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    d[k.strip()] = v.strip()
    except OSError:
        pass
    return d


def read_text(path, limit=None):
    try:
        with open(path, errors="replace") as f:
            return f.read() if limit is None else f.read(limit)
    except OSError:
        return ""


def parse_header(path):
    """The launch API of one kernel (or operation) from its generated
    NAME.h."""
    text = read_text(path)
    info = {"path": path, "params": {}, "args": [], "argdoc": {},
            "threads": None, "shared": None}
    m = re.search(r"Generated by tlc: (?:kernel|operation) (\w+) "
                  r"\(target (\w+)\)\. "
                  r"Parameters: (.*?)\. (?:Fixed dimensions: (.*?)\. )?Do not",
                  text)
    if not m:
        raise ValueError("%s: not a tlc-generated header" % path)
    info["name"], info["target"] = m.group(1), m.group(2)
    # An operation launches kernels through their stubs: no binary of its
    # own.
    info["operation"] = m.group(0).startswith("Generated by tlc: operation")
    if m.group(3) != "none":
        for kv in m.group(3).split(", "):
            k, _, v = kv.partition("=")
            if v:
                info["params"][k] = v
    # A multi-variant stub (--tuning) has no single parameter line: take
    # the -D values the configuration was compiled with (e2e.sh's CONFIG).
    config = os.path.join(os.path.dirname(path), "CONFIG")
    for line in read_text(config).splitlines():
        if line.startswith("defines="):
            for kv in line[len("defines="):].split():
                k, _, v = kv.partition("=")
                if v and not k.startswith("-"):
                    info["params"].setdefault(k, v)
    flat = " ".join(l.lstrip("/ ").strip() for l in text.splitlines()
                    if l.startswith("//"))
    m = re.search(r"with (\d+) threads per block and (\d+) bytes of dynamic "
                  r"shared memory", flat)
    if m:
        info["threads"], info["shared"] = int(m.group(1)), int(m.group(2))
    # "/// A: bf16[M, K], B: bf16[K, N], C (out): bf16[M, N], eps: f32"
    m = re.search(r"^/// (.*)\ntlc::Status ", text, re.M)
    if m:
        for part in re.findall(r"(\w+)(?: \((out|inout)\))?: (\w+)(\[[^\]]*\])?",
                               m.group(1)):
            info["argdoc"][part[0]] = {"mode": part[1] or "in",
                                       "dtype": part[2], "dims": part[3]}
    m = re.search(r"int tlc_%s\((.*?)\);" % re.escape(info["name"]), text, re.S)
    if not m:
        raise ValueError("%s: no C entry tlc_%s" % (path, info["name"]))
    params = [re.sub(r"/\*.*?\*/", "", p).strip()
              for p in m.group(1).split(",")]
    tail = params[-3:]
    if not (tail[0].startswith("const tlc_launch_options") and
            tail[1].startswith("char") and tail[2].startswith("size_t")):
        raise ValueError("%s: unexpected C entry tail %r" % (path, tail))
    for p in params[:-3]:
        m2 = re.match(r"(.*?)\s*(\w+)$", p)
        ctype, name = m2.group(1).replace(" *", "*").strip(), m2.group(2)
        if ctype.startswith("const tlc_tensor"):
            info["args"].append(("tensor", name))
        elif ctype in SCALAR_CTYPES:
            info["args"].append((ctype, name))
        else:
            raise ValueError("%s: unknown C parameter type %r" % (path, p))
    return info


def extract_binary(cpp_path):
    """(entry, bytes) embedded in a generated CUDA stub NAME.cpp."""
    text = read_text(cpp_path)
    m = re.search(r"// The device binary \(entry (\w+), (\d+) bytes\)\.\n"
                  r"alignas\(\d+\) const unsigned char \w+\[\] = \{(.*?)\};",
                  text, re.S)
    if not m:
        return None, b""
    data = bytes(int(h, 16) for h in re.findall(r"0x([0-9a-fA-F]{2})",
                                                 m.group(3)))
    if len(data) != int(m.group(2)):
        raise ValueError("%s: %d bytes parsed, %s declared"
                         % (cpp_path, len(data), m.group(2)))
    return m.group(1), data


def kernel_headers(cfg_dir):
    return sorted(p for p in (os.path.join(cfg_dir, f)
                              for f in os.listdir(cfg_dir))
                  if p.endswith(".h") and not p.endswith(".tlc.h"))


def extract_binaries(gen):
    for cfg in sorted(os.listdir(gen)):
        d = os.path.join(gen, cfg)
        if not os.path.isfile(os.path.join(d, "CONFIG")):
            continue
        for f in sorted(os.listdir(d)):
            if not f.endswith(".cpp") or f.endswith(".tlc.cpp"):
                continue
            try:
                entry, data = extract_binary(os.path.join(d, f))
            except ValueError as e:
                print("  %s: %s" % (cfg, e))
                continue
            if data:
                out = os.path.join(d, f[:-4] + ".bin")
                with open(out, "wb") as o:
                    o.write(data)
                print("  %s: %s -> %s (%d bytes)" % (cfg, entry,
                                                    os.path.basename(out),
                                                    len(data)))
            else:
                print("  %s: %s embeds no binary" % (cfg, f))
    return 0


def parse_ptxas(text):
    """Per entry: regs, stack, spill stores/loads, static smem, barriers."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            cur = out.setdefault(m.group(1), {})
            continue
        m = re.search(r"Function properties for (\w+)", line)
        if m:
            cur = out.setdefault(m.group(1), {})
            continue
        if cur is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                      r"(\d+) bytes spill loads", line)
        if m:
            cur.update(stack=int(m.group(1)), spill_st=int(m.group(2)),
                       spill_ld=int(m.group(3)))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            cur["regs"] = int(m.group(1))
            m2 = re.search(r"(\d+) bytes smem", line)
            cur["smem"] = int(m2.group(1)) if m2 else 0
            m2 = re.search(r"used (\d+) barriers", line)
            if m2:
                cur["barriers"] = int(m2.group(1))
    return out


def parse_res_usage(text):
    """cuobjdump --dump-resource-usage: per function REG/STACK/SHARED/LOCAL."""
    out = {}
    for m in re.finditer(r"Function (\w+):\s*REG:(\d+) STACK:(\d+) "
                         r"SHARED:(\d+) LOCAL:(\d+)", text):
        out[m.group(1)] = {"regs": int(m.group(2)), "stack": int(m.group(3)),
                           "smem": int(m.group(4)), "local": int(m.group(5))}
    return out


SASS_GROUPS = [("HGMMA", ("HGMMA",)), ("HMMA", ("HMMA",)),
               ("FFMA", ("FFMA",)), ("MUFU", ("MUFU",)),
               ("LDGSTS", ("LDGSTS",)), ("TMA", ("UTMALDG", "UBLKCP",
                                                  "UTMASTG")),
               ("LDG", ("LDG",)), ("STG", ("STG",)), ("LDSM", ("LDSM",)),
               ("LDS", ("LDS",)), ("STS", ("STS",)), ("LDL/STL", ("LDL", "STL")),
               ("BAR", ("BAR",)), ("RED/ATOM", ("RED", "ATOM", "ATOMG"))]


def parse_sass(text):
    """Instruction counts per function of a cuobjdump --dump-sass listing."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"\s*Function : (\w+)", line)
        if m:
            cur = out.setdefault(m.group(1), {})
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?);", line)
        if not m or cur is None:
            continue
        toks = m.group(1).split()
        if toks and toks[0].startswith("@"):
            toks = toks[1:]
        if not toks:
            continue
        op = toks[0].split(".")[0]
        cur[op] = cur.get(op, 0) + 1
    return out


# --------------------------------------------------------------------------
# Loading and launching kernels
# --------------------------------------------------------------------------


class LaunchError(RuntimeError):
    pass


class Kernel:
    """The C entry tlc_NAME of one generated stub in a loaded library."""

    def __init__(self, lib, info, mock=False):
        self.info, self.name, self.mock = info, info["name"], mock
        self.fn = getattr(lib, "tlc_" + self.name)
        argtypes = []
        for kind, _ in info["args"]:
            argtypes.append(ct.POINTER(TlcTensor) if kind == "tensor"
                            else SCALAR_CTYPES[kind])
        self.fn.argtypes = argtypes + [ct.POINTER(TlcLaunchOptions),
                                       ct.c_char_p, ct.c_size_t]
        self.fn.restype = ct.c_int

    def prepare(self, args, fake=None):
        """A call with prebuilt ctypes arguments (cheap to repeat)."""
        if len(args) != len(self.info["args"]):
            raise LaunchError("%s takes %d arguments (%s), got %d" % (
                self.name, len(self.info["args"]),
                ", ".join(n for _, n in self.info["args"]), len(args)))
        keep, argv = [], []
        for (kind, name), a in zip(self.info["args"], args):
            if kind == "tensor":
                t = to_tlc(a)
                keep.append(t)
                argv.append(ct.byref(t))
            else:
                argv.append(SCALAR_CTYPES[kind](a))
        stream = (torch.cuda.current_stream().cuda_stream
                  if DEV == "cuda" else 0)
        opts = TlcLaunchOptions(0, ct.c_void_p(stream or None))
        err = ct.create_string_buffer(1024)
        keep += [opts, err]
        argv += [ct.byref(opts), err, ct.sizeof(err)]
        return Call(self, argv, keep, err, fake)


class Call:
    def __init__(self, kernel, argv, keep, err, fake):
        self.kernel, self.argv, self.keep, self.err = kernel, argv, keep, err
        self.fake = fake

    def __call__(self):
        rc = self.kernel.fn(*self.argv)
        if rc != 0:
            msg = self.err.value.decode(errors="replace")
            if (self.kernel.mock and rc == -3 and self.fake is not None and
                    ("libcuda" in msg or "binary not available" in msg)):
                self.fake()  # --mock: the stub checked the arguments
                return
            raise LaunchError("tlc_%s returned %d (%s): %s" % (
                self.kernel.name, rc, TLC_ERRORS.get(rc, "?"), msg))


class Packed4:
    """A torch.uint8 tensor [..., K / 2] holding 4-bit values two per byte
    (element 2c in the low nibble of byte c), passed as the u4 (or i4)
    tensor [..., K] it packs (docs/abi.md: element strides, doubled)."""

    def __init__(self, data, signed=False):
        if data.dtype != torch.uint8 or data.stride(-1) != 1:
            raise LaunchError("Packed4 wants a uint8 tensor with contiguous "
                              "rows")
        self.data, self.signed = data, signed


def to_tlc(t):
    if isinstance(t, Packed4):
        s = TlcTensor()
        s.data = t.data.data_ptr() or None
        s.dtype = DTYPE_CODES["i4" if t.signed else "u4"]
        s.rank = t.data.dim()
        for i in range(t.data.dim()):
            s.shape[i] = t.data.shape[i] * (2 if i == t.data.dim() - 1 else 1)
            s.strides[i] = 1 if i == t.data.dim() - 1 else 2 * t.data.stride(i)
        return s
    code = TORCH_CODES.get(t.dtype)
    if code is None:
        raise LaunchError("no tlc dtype for %s" % t.dtype)
    if t.dim() > TLC_MAX_RANK:
        raise LaunchError("rank %d > %d" % (t.dim(), TLC_MAX_RANK))
    s = TlcTensor()
    s.data = t.data_ptr() or None
    s.dtype = code
    s.rank = t.dim()
    for i in range(t.dim()):
        s.shape[i] = t.shape[i]
        s.strides[i] = t.stride(i)  # torch strides count elements
    return s


# --------------------------------------------------------------------------
# torch setup, inputs, comparison, timing
# --------------------------------------------------------------------------

DEV = "cuda"
REF_DEV = "cuda"  # the CPU with --small: no torch GPU kernels under memcheck
TORCH_CODES = {}
TORCH_DTYPES = {}


def init_torch(mock, cpu_ref=False):
    global torch, F, DEV, REF_DEV
    import torch as _torch
    import torch.nn.functional as _F
    torch, F = _torch, _F
    DEV = "cpu" if mock else "cuda"
    REF_DEV = "cpu" if (mock or cpu_ref) else "cuda"
    TORCH_DTYPES.update({"f64": torch.float64, "f32": torch.float32,
                         "f16": torch.float16, "bf16": torch.bfloat16,
                         "i64": torch.int64, "i32": torch.int32,
                         "i16": torch.int16, "i8": torch.int8,
                         "u8": torch.uint8, "bool": torch.bool,
                         "f8e4m3": torch.float8_e4m3fn,
                         "f8e5m2": torch.float8_e5m2})
    TORCH_CODES.update({v: DTYPE_CODES[k] for k, v in TORCH_DTYPES.items()})
    if not mock:
        if not torch.cuda.is_available():
            raise RuntimeError("torch sees no CUDA device")
        torch.cuda.init()
        torch.zeros(1, device="cuda")  # primary context current on this thread
        # fp32 is fp32: no TF32 in the references or in the vendor baseline.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False


def sync():
    if DEV == "cuda":
        torch.cuda.synchronize()


class Ctx:
    def __init__(self, args):
        self.args = args
        self.mock = args.mock
        self.seed = args.seed
        self.flush_buf = None
        self.deadline = args.deadline or float("inf")
        self.copy_gbs = None

    def gen(self, label):
        g = torch.Generator(device=DEV)
        g.manual_seed(self.seed + zlib.crc32(label.encode()))
        return g

    def rand(self, g, shape, dtype, pad=0, scale=1.0):
        """Random normal values of `dtype`; pad > 0: a view of the first
        shape[-1] columns of a wider buffer (outer strides != shape)."""
        full = list(shape[:-1]) + [shape[-1] + pad]
        x = torch.randn(full, generator=g, device=DEV, dtype=torch.float32)
        if scale != 1.0:
            x.mul_(scale)
        x = x.to(TORCH_DTYPES[dtype])
        return x[..., :shape[-1]] if pad else x

    def empty(self, shape, dtype, pad=0):
        full = list(shape[:-1]) + [shape[-1] + pad]
        x = torch.empty(full, device=DEV, dtype=TORCH_DTYPES[dtype])
        return x[..., :shape[-1]] if pad else x

    def flush_l2(self):
        if DEV != "cuda":
            return
        if self.flush_buf is None:  # 256 MiB, > 4x the H200's 60 MB L2
            self.flush_buf = torch.empty(64 << 20, dtype=torch.int32,
                                         device="cuda")
        self.flush_buf.zero_()

    def bench(self, fn, flush=True, target_s=0.3, max_reps=50):
        """Median time of fn() in ms (CUDA events; L2 flushed before each
        repetition, which also keeps the GPU ahead of the host)."""
        fn()
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        est = time.perf_counter() - t0
        if est > 1.0:
            reps, warm = 1, 0
        else:
            reps = int(max(3, min(max_reps, target_s / max(est, 1e-5))))
            warm = int(min(10, 0.05 / max(est, 1e-5)))
        for _ in range(warm):
            fn()
        times = []
        if DEV == "cuda":
            ev = [(torch.cuda.Event(enable_timing=True),
                   torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
            for s, e in ev:
                if flush:
                    self.flush_l2()
                s.record()
                fn()
                e.record()
            torch.cuda.synchronize()
            times = sorted(s.elapsed_time(e) for s, e in ev)
        else:
            for _ in range(reps):
                t0 = time.perf_counter()
                fn()
                times.append((time.perf_counter() - t0) * 1e3)
            times.sort()
        n = len(times)
        med = times[n // 2] if n % 2 else 0.5 * (times[n // 2 - 1] +
                                                   times[n // 2])
        return {"ms": med, "min_ms": times[0], "max_ms": times[-1],
                "reps": n}


def compare(out, ref):
    """Errors of out against ref (both converted to float64)."""
    r = ref.detach().to(torch.float64)
    o = out.detach().to(device=r.device, dtype=torch.float64)
    if o.shape != r.shape:
        raise ValueError("shape %s vs reference %s" % (tuple(o.shape),
                                                      tuple(r.shape)))
    # An infinity where the reference has the same one (a log-sum-exp of
    # nothing, -inf) is a match; any other non-finite value on either side
    # counts as non-finite.
    both = torch.isfinite(o) & torch.isfinite(r)
    same_inf = torch.isinf(r) & (o == r)
    nonfinite = int((~both & ~same_inf).sum().item())
    diff = torch.where(both, o - r, torch.zeros_like(o))
    rf = torch.where(torch.isfinite(r), r, torch.zeros_like(r))
    max_abs = float(diff.abs().max().item()) if o.numel() else 0.0
    scale = float(rf.abs().max().item()) if r.numel() else 0.0
    rnorm = float(torch.linalg.vector_norm(rf).item()) if r.numel() else 0.0
    dnorm = float(torch.linalg.vector_norm(diff).item()) if r.numel() else 0.0
    res = {"max_abs": max_abs,
           "max_rel": max_abs / scale if scale > 0 else max_abs,
           "rel_l2": dnorm / rnorm if rnorm > 0 else dnorm,
           "nonfinite": nonfinite}
    return res  # errors over the finite elements; nonfinite counts the rest


# (rel_l2, max_rel) tolerances by output dtype. f32 gemm accumulates up to
# 8192 products: looser than elementwise f32, still far below TF32 (~3e-4).
TOLERANCES = {"f32": (1e-5, 1e-4), "f16": (5e-3, 1e-2), "bf16": (1e-2, 2e-2),
              "f64": (1e-12, 1e-11),
              # one code apart at the top of the range at most
              "f8e4m3": (1e-2, 0.075), "f8e5m2": (2e-2, 0.15)}
GEMM_F32_TOL = (5e-5, 5e-4)


def tol_for(dtype, kind=None):
    if kind == "gemm" and dtype == "f32":
        return GEMM_F32_TOL
    return TOLERANCES[dtype]


# --------------------------------------------------------------------------
# Checks: one builder per example; each returns a Case per size.
# --------------------------------------------------------------------------


class Case:
    """One check. build(ctx, g) returns a dict:
    args: the kernel's arguments (tensors / scalars), in order;
    outputs: [(name, tensor)] compared with ref() (same order);
    reset: poisons outputs / restores inout values before the checked launch;
    ref: () -> [reference tensors]; fake: what the kernel computes (--mock);
    vendors: {name: () -> output like outputs[0]}; flops, bytes; tol."""

    def __init__(self, kernel, label, small, build, kind):
        self.kernel, self.label, self.small = kernel, label, small
        self.build, self.kind = build, kind


def R(t):
    """t in float64 where references are computed (REF_DEV)."""
    return t.detach().to(device=REF_DEV, dtype=torch.float64)


def RD(t):
    return t.detach().to(device=REF_DEV)


def nan_(*ts):
    """Poisons tensors with NaN, 8-bit float ones through their bytes (0x7f
    is NaN in both f8 formats; torch fills no f8 tensor)."""
    def f():
        for t in ts:
            if t.element_size() == 1 and t.is_floating_point():
                t.view(torch.uint8).fill_(0x7f)
            else:
                t.fill_(float("nan"))
    return f


def gemm_sizes():
    # (M, N, K), pad, small: ragged and tiny checks, then the issue's shapes
    # (square, an LLM projection, a ragged mid size, skinny M).
    # Rows of 16-byte multiples run the tensor-copy (TMA) entry on sm_90a,
    # the others its fallback (K = 68: rows of 8-byte multiples, copied in
    # 8-byte chunks). N = 133 with K = 136: linear.tl's A and W suit TMA and
    # C does not (its TMA entry stores from registers); 2048x50257x4096 is
    # such a shape at speed (a language model's vocabulary projection).
    return [((77, 133, 61), 0, True), ((16, 64, 40), 0, True),
            ((130, 257, 129), 3, True), ((1, 1, 1), 0, True),
            ((200, 264, 136), 0, True), ((96, 200, 72), 8, True),
            ((333, 520, 1000), 0, True), ((100, 136, 68), 0, True),
            ((200, 133, 136), 0, True), ((2048, 50257, 4096), 0, False),
            ((1000, 1000, 1000), 0, False), ((4096, 4096, 4096), 0, False),
            ((8192, 8192, 8192), 0, False), ((4096, 11008, 4096), 0, False),
            ((3000, 5000, 700), 0, False), ((64, 8192, 8192), 0, False),
            ((16, 8192, 8192), 0, False)]


def matmul_cases(heads, kernel, transposed):
    """gemm.tl (C = A @ B, B [K, N]) or linear.tl (C = A @ W^T, W [N, K])."""
    T = heads[kernel]["argdoc"]["A"]["dtype"]
    cases = []
    for (M, N, K), pad, small in gemm_sizes():
        def build(ctx, g, M=M, N=N, K=K, pad=pad):
            A = ctx.rand(g, (M, K), T, pad)
            B = ctx.rand(g, (N, K) if transposed else (K, N), T, pad)
            C = ctx.empty((M, N), T, pad)
            def ref():
                return [R(A) @ (R(B).t() if transposed else R(B))]
            def fake():
                b = B.float().t() if transposed else B.float()
                C.copy_((A.float() @ b).to(C.dtype))
            vendor = ({"F.linear": lambda: torch.nn.functional.linear(A, B)}
                      if transposed else
                      {"cuBLAS": lambda: torch.matmul(A, B)})
            return dict(args=[A, B, C], outputs=[("C", C)], reset=nan_(C),
                        ref=ref, fake=fake, vendors=vendor,
                        flops=2.0 * M * N * K,
                        bytes=DTYPE_SIZES[T] * (M * K + K * N + M * N),
                        tol=tol_for(T, "gemm"))
        label = "%s %s %dx%dx%d%s" % (kernel, T, M, N, K,
                                      " strided(+%d)" % pad if pad else "")
        cases.append(Case(kernel, label, small, build, "gemm"))
    return cases


def gemm_cases(cfg, heads):
    return matmul_cases(heads, "gemm", transposed=False)


def linear_cases(cfg, heads):
    return matmul_cases(heads, "linear", transposed=True)


def rowwise_sizes():
    # (M, N), pad, small
    return [((77, 300), 0, True), ((5, 129), 0, True), ((64, 128), 0, True),
            ((33, 200), 5, True), ((3, 40000), 3, True),
            ((1000, 3000), 0, False), ((4096, 4096), 0, False),
            ((8192, 8192), 0, False), ((16384, 1024), 0, False),
            ((128, 32768), 0, False), ((32, 131072), 0, False)]


def softmax_cases(cfg, heads, name="softmax"):
    """One entry of softmax.tl: the kernel softmax or an operation."""
    T = heads[name]["argdoc"]["X"]["dtype"]
    cases = []
    for (M, N), pad, small in rowwise_sizes():
        def build(ctx, g, M=M, N=N, pad=pad):
            X = ctx.rand(g, (M, N), T, pad, scale=2.0)
            Y = ctx.empty((M, N), T, pad)
            def fake():
                Y.copy_(torch.softmax(X.float(), -1).to(Y.dtype))
            return dict(args=[X, Y], outputs=[("Y", Y)], reset=nan_(Y),
                        ref=lambda: [torch.softmax(R(X), -1)],
                        fake=fake,
                        vendors={"torch.softmax":
                                 lambda: torch.softmax(X, -1)},
                        flops=None, bytes=2.0 * M * N * DTYPE_SIZES[T],
                        tol=tol_for(T))
        label = "%s %s %dx%d%s" % (name, T, M, N,
                                   " strided(+%d)" % pad if pad else "")
        cases.append(Case(name, label, small, build, "memory"))
    return cases


def entry_cases(cfg, heads, cases_of, names):
    """The checks of each entry of an example file (kernels and operations
    named `names`) that the configuration's stubs have."""
    cases = []
    for name in names:
        if name in heads:
            cases += cases_of(cfg, heads, name)
    return cases


def softmax_file_cases(cfg, heads):
    """softmax.tl: the kernels softmax and softmax_cluster (a row over a
    thread block cluster), the operations softmax_split (rows over several
    blocks) and softmax_any (one of them per shape)."""
    return entry_cases(cfg, heads, softmax_cases,
                       ("softmax", "softmax_split", "softmax_cluster",
                        "softmax_any"))


def rmsnorm_cases(cfg, heads, name="rmsnorm"):
    """One entry of rmsnorm.tl: the kernel rmsnorm, rmsnorm_cluster (a row
    over a thread block cluster) or the operation rmsnorm_any."""
    T = heads[name]["argdoc"]["X"]["dtype"]
    eps = 1e-6
    cases = []
    for (M, N), pad, small in rowwise_sizes():
        def build(ctx, g, M=M, N=N, pad=pad):
            X = ctx.rand(g, (M, N), T, pad)
            W = ctx.rand(g, (N,), T)
            Y = ctx.empty((M, N), T, pad)
            def ref_in(x, w):
                return x * torch.rsqrt((x * x).mean(-1, keepdim=True) +
                                       eps) * w
            def fake():
                Y.copy_(ref_in(X.float(), W.float()).to(Y.dtype))
            vendors = {}
            if hasattr(F, "rms_norm"):
                vendors["F.rms_norm"] = lambda: F.rms_norm(X, (N,), W, eps)
            vendors["torch eager"] = lambda: ref_in(X, W)
            return dict(args=[X, W, Y, eps], outputs=[("Y", Y)],
                        reset=nan_(Y),
                        ref=lambda: [ref_in(R(X), R(W))],
                        fake=fake, vendors=vendors, flops=None,
                        bytes=(2.0 * M * N + N) * DTYPE_SIZES[T],
                        tol=tol_for(T))
        label = "%s %s %dx%d%s" % (name, T, M, N,
                                   " strided(+%d)" % pad if pad else "")
        cases.append(Case(name, label, small, build, "memory"))
    return cases


def rmsnorm_file_cases(cfg, heads):
    return entry_cases(cfg, heads, rmsnorm_cases,
                       ("rmsnorm", "rmsnorm_cluster", "rmsnorm_any"))


def layernorm_cases(cfg, heads, name="layernorm"):
    """One entry of layernorm.tl: the kernel layernorm, layernorm_cluster
    or the operation layernorm_any."""
    T = heads[name]["argdoc"]["X"]["dtype"]
    eps = 1e-5
    cases = []
    for (M, N), pad, small in rowwise_sizes():
        def build(ctx, g, M=M, N=N, pad=pad):
            X = ctx.rand(g, (M, N), T, pad)
            W = ctx.rand(g, (N,), T)
            Bias = ctx.rand(g, (N,), T)
            Y = ctx.empty((M, N), T, pad)
            def fake():
                Y.copy_(F.layer_norm(X.float(), (N,), W.float(),
                                     Bias.float(), eps).to(Y.dtype))
            return dict(args=[X, W, Bias, Y, eps], outputs=[("Y", Y)],
                        reset=nan_(Y),
                        ref=lambda: [F.layer_norm(R(X), (N,), R(W), R(Bias),
                                                  eps)],
                        fake=fake,
                        vendors={"F.layer_norm": lambda: F.layer_norm(
                            X, (N,), W, Bias, eps)},
                        flops=None,
                        bytes=(2.0 * M * N + 2.0 * N) * DTYPE_SIZES[T],
                        tol=tol_for(T))
        label = "%s %s %dx%d%s" % (name, T, M, N,
                                   " strided(+%d)" % pad if pad else "")
        cases.append(Case(name, label, small, build, "memory"))
    return cases


def layernorm_file_cases(cfg, heads):
    return entry_cases(cfg, heads, layernorm_cases,
                       ("layernorm", "layernorm_cluster", "layernorm_any"))


def elementwise_cases(cfg, heads):
    T = heads["bias_gelu"]["argdoc"]["X"]["dtype"]
    sizes = [((77, 300), 0, True), ((3, 5), 0, True), ((65, 257), 7, True),
             ((3001, 5003), 0, False), ((8192, 8192), 0, False)]
    cases = []
    for (M, N), pad, small in sizes:
        def build(ctx, g, M=M, N=N, pad=pad):
            X = ctx.rand(g, (M, N), T, pad, scale=2.0)
            Bias = ctx.rand(g, (N,), T)
            Y = ctx.empty((M, N), T, pad)
            def gelu(x):
                return 0.5 * x * (1.0 + torch.erf(x * 0.7071067811865476))
            def fake():
                Y.copy_(gelu(X.float() + Bias.float()).to(Y.dtype))
            return dict(args=[X, Bias, Y], outputs=[("Y", Y)], reset=nan_(Y),
                        ref=lambda: [gelu(R(X) + R(Bias))],
                        fake=fake,
                        vendors={"F.gelu(x+b)": lambda: F.gelu(X + Bias)},
                        flops=None,
                        bytes=(2.0 * M * N + N) * DTYPE_SIZES[T],
                        tol=tol_for(T))
        label = "bias_gelu %s %dx%d%s" % (T, M, N,
                                          " strided(+%d)" % pad if pad else "")
        cases.append(Case("bias_gelu", label, small, build, "memory"))
    return cases


def colsum_cases(cfg, heads):
    T = heads["colsum"]["argdoc"]["X"]["dtype"]
    sizes = [((65, 130), 0, True), ((3, 5), 0, True), ((200, 129), 3, True),
             ((1001, 777), 0, False), ((4096, 4096), 0, False),
             ((16384, 8192), 0, False)]
    cases = []
    for (M, N), pad, small in sizes:
        def build(ctx, g, M=M, N=N, pad=pad):
            X = ctx.rand(g, (M, N), T, pad)
            Out = ctx.empty((N,), "f32")
            def fake():
                Out.copy_(X.float().sum(0))
            return dict(args=[X, Out], outputs=[("Out", Out)],
                        reset=nan_(Out), ref=lambda: [R(X).sum(0)],
                        fake=fake,
                        vendors={"torch.sum": lambda: X.sum(
                            0, dtype=torch.float32)},
                        flops=None, bytes=M * N * DTYPE_SIZES[T] + 4.0 * N,
                        tol=tol_for("f32"))
        def build_split(ctx, g, M=M, N=N, pad=pad):
            X = ctx.rand(g, (M, N), T, pad)
            init = ctx.rand(g, (N,), "f32")
            Out = init.clone()
            def reset():
                Out.copy_(init)
            def fake():
                Out.add_(X.float().sum(0))
            return dict(args=[X, Out], outputs=[("Out", Out)], reset=reset,
                        ref=lambda: [R(init) + R(X).sum(0)],
                        fake=fake,
                        vendors={"Out += torch.sum": lambda: Out.add_(
                            X.sum(0, dtype=torch.float32))},
                        flops=None, bytes=M * N * DTYPE_SIZES[T] + 8.0 * N,
                        tol=tol_for("f32"), vendor_no_error=True,
                        deterministic=False)  # atomic adds
        sfx = " strided(+%d)" % pad if pad else ""
        cases.append(Case("colsum", "colsum %s %dx%d%s" % (T, M, N, sfx),
                          small, build, "memory"))
        cases.append(Case("colsum_split", "colsum_split %s %dx%d%s"
                          % (T, M, N, sfx), small, build_split, "memory"))
    return cases


def grouped_gemm_cases(cfg, heads):
    """grouped_gemm.tl: rows of A sorted by expert, C[r] = A[r] @ W[e]^T."""
    T = heads["grouped_gemm"]["argdoc"]["A"]["dtype"]
    # (M rows, N, K, E experts), small; random splits with empty experts.
    sizes = [((77, 133, 72, 3), True), ((300, 96, 64, 8), True),
             ((5, 64, 40, 4), True), ((8192, 14336, 4096, 8), False),
             ((16384, 2048, 7168, 64), False)]
    cases = []
    for (M, N, K, E), small in sizes:
        def build(ctx, g, M=M, N=N, K=K, E=E):
            A = ctx.rand(g, (M, K), T)
            W = ctx.rand(g, (E, N, K), T, scale=K ** -0.5)
            # Expert sizes like a router's: random weights, a few empty.
            w = torch.rand(E, generator=g, device=DEV)
            w[torch.rand(E, generator=g, device=DEV) < 0.2] = 0
            w = w / w.sum() if float(w.sum()) > 0 else torch.ones(E, device=DEV) / E
            ends = torch.round(torch.cumsum(w, 0) * M).to(torch.int64)
            ends[-1] = M
            Offsets = torch.zeros(E + 1, dtype=torch.int32, device=DEV)
            Offsets[1:] = ends.to(torch.int32)
            bounds = [int(x) for x in Offsets.cpu()]
            C = ctx.empty((M, N), T)
            def ref():
                out = torch.zeros(M, N, dtype=torch.float64, device=REF_DEV)
                for e in range(E):
                    lo, hi = bounds[e], bounds[e + 1]
                    if hi > lo:
                        out[lo:hi] = R(A[lo:hi]) @ R(W[e]).t()
                return [out]
            def loop():
                for e in range(E):
                    lo, hi = bounds[e], bounds[e + 1]
                    if hi > lo:
                        torch.nn.functional.linear(A[lo:hi], W[e],
                                                   out=None)
            vendors = {"F.linear per expert": loop}
            if hasattr(torch, "_grouped_mm"):
                offs = Offsets[1:].contiguous()
                vendors["torch._grouped_mm"] = (
                    lambda: torch._grouped_mm(A, W.transpose(-2, -1),
                                              offs=offs))
            def fake():
                for e in range(E):
                    lo, hi = bounds[e], bounds[e + 1]
                    C[lo:hi] = (A[lo:hi].float() @ W[e].float().t()).to(C.dtype)
            return dict(args=[A, W, Offsets, C], outputs=[("C", C)],
                        reset=nan_(C), ref=ref, fake=fake, vendors=vendors,
                        flops=2.0 * M * N * K,
                        bytes=DTYPE_SIZES[T] * (M * K + E * N * K + M * N),
                        tol=tol_for(T, "gemm"), vendor_no_error=True)
        label = "grouped_gemm %s %dx%dx%d E=%d" % (T, M, N, K, E)
        cases.append(Case("grouped_gemm", label, small, build, "gemm"))
    return cases


def elements_cases(cfg, heads):
    """test/e2e/cpu/Inputs/elements.tl: element access to global tensors."""
    cases = []
    for N, E in [(4097, 5), (300, 7), (1 << 24, 1024)]:
        def build(ctx, g, N=N, E=E):
            X = torch.randint(-3, E + 3, (N,), generator=g, device=DEV,
                              dtype=torch.int32)
            Counts = torch.zeros(E, dtype=torch.int32, device=DEV)
            Blocks = torch.zeros(1, dtype=torch.int32, device=DEV)
            def reset():
                Counts.zero_()
                Blocks.zero_()
            def ref():
                x = X[(X >= 0) & (X < E)].long()
                return [R(torch.bincount(x, minlength=E)),
                        R(torch.full((1,), (N + 255) // 256, device=DEV))]
            return dict(args=[X, Counts, Blocks],
                        outputs=[("Counts", Counts), ("Blocks", Blocks)],
                        reset=reset, ref=ref, fake=None,
                        vendors={"torch.bincount": lambda: torch.bincount(
                            X[(X >= 0) & (X < E)].long(), minlength=E)},
                        flops=None, bytes=4.0 * N, tol=(0.0, 0.0),
                        vendor_no_error=True)
        cases.append(Case("histogram", "histogram i32 N=%d E=%d" % (N, E),
                          N < 10000, build, "memory"))
    for R_, M, D in [(33, 17, 64), (9, 40, 130), (60000, 32000, 1024)]:
        def build(ctx, g, R_=R_, M=M, D=D):
            Idx = torch.randint(-2, M + 2, (R_,), generator=g, device=DEV,
                                dtype=torch.int32)
            X = ctx.rand(g, (M, D), "f32")
            S = ctx.rand(g, (R_,), "f32")
            Y = ctx.empty((R_, D), "f32")
            def ref():
                idx = RD(Idx)
                ok = (idx >= 0) & (idx < M)
                rows = R(X)[idx.clamp(0, M - 1).long()]
                return [rows * R(S)[:, None] * R(ok)[:, None]]
            return dict(args=[Idx, X, S, Y], outputs=[("Y", Y)],
                        reset=nan_(Y), ref=ref, fake=None,
                        vendors={"index_select * s": lambda: X.index_select(
                            0, Idx.clamp(0, M - 1)) * S[:, None]},
                        flops=None, bytes=8.0 * R_ * D, tol=tol_for("f32"))
        cases.append(Case("gather_rows", "gather_rows f32 %dx%dx%d"
                          % (R_, M, D), R_ < 1000, build, "memory"))
    for M, N in [(9, 31), (17, 100), (4096, 4096)]:
        def build(ctx, g, M=M, N=N):
            X = torch.randint(-50, 50, (M, N), generator=g, device=DEV,
                              dtype=torch.int32)
            Sums = torch.empty(M, dtype=torch.int32, device=DEV)
            Total = torch.zeros(1, dtype=torch.int32, device=DEV)
            Mx = torch.full((M,), -1000, dtype=torch.int32, device=DEV)
            Mn = torch.full((M,), 1000, dtype=torch.int32, device=DEV)
            def reset():
                Sums.fill_(-7)
                Total.zero_()
                Mx.fill_(-1000)
                Mn.fill_(1000)
            def ref():
                x = R(X)
                return [x.sum(1), x.sum().reshape(1), x.max(1).values,
                        x.min(1).values]
            return dict(args=[X, Sums, Total, Mx, Mn],
                        outputs=[("Sums", Sums), ("Total", Total),
                                 ("Mx", Mx), ("Mn", Mn)],
                        reset=reset, ref=ref, fake=None, vendors={},
                        flops=None, bytes=4.0 * M * N, tol=(0.0, 0.0))
        cases.append(Case("row_stats", "row_stats i32 %dx%d" % (M, N),
                          M < 1000, build, "memory"))
    return cases


def rope_cases(cfg, heads):
    """rope.tl: rotary embedding of X[B, S, H, D] with [S, D] tables."""
    T = heads["rope"]["argdoc"]["X"]["dtype"]
    D = int(heads["rope"]["params"].get("D", 128))
    sizes = [((2, 37, 3), 3, True), ((1, 5, 2), 0, True),
             ((8, 4096, 32), 0, False), ((1, 32768, 8), 0, False)]
    cases = []
    for (B, S, H), pad, small in sizes:
        def build(ctx, g, B=B, S=S, H=H, pad=pad):
            X = ctx.rand(g, (B, S, H, D), T, pad)
            pos = torch.arange(S, device=DEV, dtype=torch.float64)
            inv = 10000.0 ** (-torch.arange(0, D, 2, device=DEV,
                                             dtype=torch.float64) / D)
            ang = torch.outer(pos, inv)
            Cos = torch.cat([ang.cos(), ang.cos()], -1).float().contiguous()
            Sin = torch.cat([ang.sin(), ang.sin()], -1).float().contiguous()
            Y = ctx.empty((B, S, H, D), T)
            def rotate_half(x):
                return torch.cat([-x[..., D // 2:], x[..., :D // 2]], -1)
            def ref():
                x, c, s = R(X), R(Cos)[None, :, None, :], R(Sin)[None, :, None, :]
                return [x * c + rotate_half(x) * s]
            def torch_rope():
                c, s = Cos[None, :, None, :], Sin[None, :, None, :]
                return (X * c + rotate_half(X) * s).to(X.dtype)
            return dict(args=[X, Cos, Sin, Y], outputs=[("Y", Y)],
                        reset=nan_(Y), ref=ref, fake=None,
                        vendors={"torch eager": torch_rope}, flops=None,
                        bytes=2.0 * DTYPE_SIZES[T] * B * S * H * D
                        + 8.0 * S * D, tol=tol_for(T))
        cases.append(Case("rope", "rope %s B=%d S=%d H=%d D=%d%s" % (
            T, B, S, H, D, " strided(+%d)" % pad if pad else ""), small,
            build, "memory"))
    return cases


def splitk_cases(cfg, heads):
    """splitk_gemm.tl: C += A @ B, K split over blocks adding atomically."""
    T = heads["splitk_gemm"]["argdoc"]["A"]["dtype"]
    sizes = [((16, 64, 1000), True), ((37, 70, 129), True),
             ((16, 8192, 8192), False), ((64, 8192, 8192), False),
             ((128, 4096, 14336), False)]
    cases = []
    for (M, N, K), small in sizes:
        def build(ctx, g, M=M, N=N, K=K):
            A = ctx.rand(g, (M, K), T)
            B = ctx.rand(g, (K, N), T)
            C = torch.zeros(M, N, dtype=torch.float32, device=DEV)
            return dict(args=[A, B, C], outputs=[("C", C)],
                        reset=lambda: C.zero_(), ref=lambda: [R(A) @ R(B)],
                        fake=None,
                        vendors={"cuBLAS": lambda: torch.matmul(A, B)},
                        flops=2.0 * M * N * K,
                        bytes=DTYPE_SIZES[T] * (M * K + K * N) + 4.0 * M * N,
                        tol=tol_for(T, "gemm"), deterministic=False)
        cases.append(Case("splitk_gemm", "splitk_gemm %s %dx%dx%d" % (
            T, M, N, K), small, build, "gemm"))
    return cases


def moe_topk_cases(cfg, heads):
    """moe_topk.tl: router softmax + top-k (+ renormalization)."""
    h = heads["moe_topk"]
    T = h["argdoc"]["Logits"]["dtype"]
    K = int(h["params"].get("TopK", 2))
    renorm = str(h["params"].get("Renorm", "true")).lower() == "true"
    sizes = [((37, 8), True), ((100, 60), True), ((65536, 8), False),
             ((65536, 64), False)]
    cases = []
    for (Tk, E), small in sizes:
        def build(ctx, g, Tk=Tk, E=E):
            X = ctx.rand(g, (Tk, E), T, scale=2.0)
            W = torch.empty(Tk, K, dtype=torch.float32, device=DEV)
            I = torch.empty(Tk, K, dtype=torch.int32, device=DEV)
            def reset():
                W.fill_(float("nan"))
                I.fill_(-1)
            def ref():
                p = torch.softmax(R(X), -1)
                # Largest first, ties to the lower expert (stable sort).
                vals, idx = torch.sort(p, dim=-1, descending=True, stable=True)
                w, i = vals[:, :K], idx[:, :K]
                if renorm:
                    w = w / w.sum(-1, keepdim=True)
                return [w, i.to(torch.float64)]
            def torch_router():
                w, i = torch.topk(torch.softmax(X.float(), -1), K, -1)
                return w / w.sum(-1, keepdim=True) if renorm else w
            return dict(args=[X, W, I], outputs=[("Weights", W), ("Ids", I)],
                        reset=reset, ref=ref, fake=None,
                        vendors={"softmax + topk": torch_router},
                        flops=None, bytes=DTYPE_SIZES[T] * Tk * E + 8.0 * Tk * K,
                        tol=(1e-5, 1e-4), vendor_no_error=True)
        cases.append(Case("moe_topk", "moe_topk %s T=%d E=%d top%d" % (
            T, Tk, E, K), small, build, "memory"))
    return cases


def paged_decode_cases(cfg, heads):
    """paged_decode.tl: one query token per sequence over a paged KV cache
    (pages of 16 tokens, NHD, in random order; G query heads per KV head)."""
    h = heads["paged_decode"]
    T = h["argdoc"]["Q"]["dtype"]
    D = int(h["params"].get("D", 128))
    G = int(h["params"].get("G", 4))
    PS = int(h["params"].get("PS", 16))
    # (B, Hkv, max length, all sequences that long), small
    sizes = [((3, 2, 50, False), True), ((2, 1, 17, True), True),
             ((8, 8, 4096, True), False), ((64, 8, 2048, False), False),
             ((1, 8, 32768, True), False)]
    # The kernel, and the operation that splits the pages over more blocks
    # (split KV + combine, scratch allocated by its stub).
    names = [n for n in ("paged_decode", "paged_decode_split_kv")
             if n in heads]
    cases = []
    for name, ((B, Hkv, L, full), small) in [(n, z) for z in sizes
                                              for n in names]:
        def build(ctx, g, B=B, Hkv=Hkv, L=L, full=full):
            H = Hkv * G
            lens = (torch.full((B,), L, dtype=torch.int64) if full else
                    torch.randint(1, L + 1, (B,), generator=torch.Generator()
                                  .manual_seed(B * 7 + L)))
            npages = [(int(n) + PS - 1) // PS for n in lens]
            total = sum(npages) + 1
            perm = torch.randperm(total, generator=torch.Generator()
                                  .manual_seed(L))
            maxp = max(npages)
            table = torch.full((B, maxp), -1, dtype=torch.int32)
            at = 0
            for b in range(B):
                table[b, :npages[b]] = perm[at:at + npages[b]].to(torch.int32)
                at += npages[b]
            Table = table.to(DEV)
            Lens = lens.to(torch.int32).to(DEV)
            Q = ctx.rand(g, (B, H, D), T)
            K = ctx.rand(g, (total, PS, Hkv, D), T)
            V = ctx.rand(g, (total, PS, Hkv, D), T)
            O = ctx.empty((B, H, D), T)
            scale = D ** -0.5
            def gathered(X, b):
                n = int(lens[b])
                rows = X[Table[b, :npages[b]].long()].reshape(-1, Hkv, D)[:n]
                return rows.permute(1, 0, 2)  # [Hkv, n, D]
            def ref():
                outs = []
                for b in range(B):
                    k = R(gathered(K, b)).repeat_interleave(G, 0)
                    v = R(gathered(V, b)).repeat_interleave(G, 0)
                    q = R(Q[b])[:, None, :]
                    p = torch.softmax((q @ k.transpose(1, 2)) * scale, -1)
                    outs.append((p @ v)[:, 0, :])
                return [torch.stack(outs)]
            vendors = {}
            if full and hasattr(F, "scaled_dot_product_attention"):
                # Contiguous KV of the same size: what a non-paged decode
                # reads (no gather timed).
                Kc = torch.stack([gathered(K, b) for b in range(B)])
                Vc = torch.stack([gathered(V, b) for b in range(B)])
                q4 = Q[:, :, None, :]
                def sdpa():
                    return F.scaled_dot_product_attention(
                        q4, Kc, Vc, enable_gqa=True)
                vendors["SDPA (contiguous KV)"] = sdpa
            return dict(args=[Q, K, V, Table, Lens, scale, O],
                        outputs=[("O", O)], reset=nan_(O), ref=ref,
                        fake=None, vendors=vendors, flops=None,
                        bytes=2.0 * DTYPE_SIZES[T] * int(lens.sum()) * Hkv * D,
                        tol=tol_for(T), vendor_no_error=True)
        cases.append(Case(name, "%s %s B=%d Hkv=%d G=%d L=%d%s" % (
            name, T, B, Hkv, G, L, "" if full else " (random lengths)"),
            small, build, "memory"))
    return cases


def layernorm_bwd_cases(cfg, heads):
    """layernorm_bwd.tl: dX, dW, dB from saved Mean/Rstd (dW, dB added)."""
    T = heads["layernorm_bwd"]["argdoc"]["X"]["dtype"]
    sizes = [((37, 100), 3, True), ((5, 1000), 0, True),
             ((8192, 8192), 0, False), ((32768, 1024), 0, False),
             ((4096, 12288), 0, False)]
    cases = []
    for (M, N), pad, small in sizes:
        def build(ctx, g, M=M, N=N, pad=pad):
            X = ctx.rand(g, (M, N), T, pad)
            dY = ctx.rand(g, (M, N), T, pad)
            W = ctx.rand(g, (N,), T)
            xf = X.float()
            mean = xf.mean(1)
            rstd = torch.rsqrt(xf.var(1, unbiased=False) + 1e-5)
            dX = ctx.empty((M, N), T, pad)
            dW = torch.zeros(N, dtype=torch.float32, device=DEV)
            dB = torch.zeros(N, dtype=torch.float32, device=DEV)
            def reset():
                dX.fill_(float("nan"))
                dW.zero_()
                dB.zero_()
            def ref():
                x, dy, w = R(X), R(dY), R(W)
                xhat = (x - R(mean)[:, None]) * R(rstd)[:, None]
                gg = dy * w
                c1 = (gg * xhat).mean(1, keepdim=True)
                c2 = gg.mean(1, keepdim=True)
                dx = R(rstd)[:, None] * (gg - c2 - xhat * c1)
                return [dx, (dy * xhat).sum(0), dy.sum(0)]
            Bias = torch.zeros(N, dtype=X.dtype, device=DEV)
            def torch_bwd():
                return torch.ops.aten.native_layer_norm_backward(
                    dY, X, [N], mean, rstd, W, Bias, [True, True, True])[0]
            return dict(args=[X, dY, W, mean, rstd, dX, dW, dB],
                        outputs=[("dX", dX), ("dW", dW), ("dB", dB)],
                        reset=reset, ref=ref, fake=None,
                        vendors={"aten layer_norm backward": torch_bwd},
                        flops=None, bytes=3.0 * DTYPE_SIZES[T] * M * N,
                        tol=tol_for(T), vendor_no_error=True,
                        deterministic=False)
        cases.append(Case("layernorm_bwd", "layernorm_bwd %s %dx%d%s" % (
            T, M, N, " strided(+%d)" % pad if pad else ""), small, build,
            "memory"))
    return cases


def conv2d_cases(cfg, heads):
    """conv2d.tl: NHWC x KRSC -> NPQK implicit GEMM (R x S from the stub)."""
    h = heads["conv2d"]
    T = h["argdoc"]["X"]["dtype"]
    KR = int(h["params"].get("R", 3))
    KS = int(h["params"].get("S", 3))
    # N, H, W, C, K, stride, pad, dilation; small
    sizes = [((2, 9, 7, 3, 5, 1, 1, 1), True), ((3, 10, 12, 8, 33, 1, 2, 2), True),
             ((32, 56, 56, 64, 64, 1, 1, 1), False),
             ((16, 28, 28, 256, 256, 1, 1, 1), False),
             ((8, 56, 56, 128, 128, 2, 1, 1), False)]
    cases = []
    for (N, H, W, C, K, st, pad, dil), small in sizes:
        P = (H + 2 * pad - dil * (KR - 1) - 1) // st + 1
        Q = (W + 2 * pad - dil * (KS - 1) - 1) // st + 1
        def build(ctx, g, N=N, H=H, W=W, C=C, K=K, st=st, pad=pad, dil=dil,
                  P=P, Q=Q):
            X = ctx.rand(g, (N, H, W, C), T)
            Wt = ctx.rand(g, (K, KR * KS * C), T, scale=(KR * KS * C) ** -0.5)
            Y = ctx.empty((N * P * Q, K), T)
            x4 = X.permute(0, 3, 1, 2)                       # channels_last
            w4 = Wt.view(K, KR, KS, C).permute(0, 3, 1, 2)
            def ref():
                y = F.conv2d(R(x4), R(w4), stride=st, padding=pad,
                             dilation=dil)
                return [y.permute(0, 2, 3, 1).reshape(N * P * Q, K)]
            def cudnn():
                return F.conv2d(x4, w4, stride=st, padding=pad, dilation=dil)
            return dict(args=[X, Wt, Y, P, Q, st, st, pad, pad, dil, dil],
                        outputs=[("Y", Y)], reset=nan_(Y), ref=ref,
                        fake=None, vendors={"cuDNN (F.conv2d)": cudnn},
                        flops=2.0 * N * P * Q * K * KR * KS * C,
                        bytes=DTYPE_SIZES[T] * (N * H * W * C + K * KR * KS * C
                                                + N * P * Q * K),
                        tol=tol_for(T, "gemm"), vendor_no_error=True)
        cases.append(Case("conv2d", "conv2d %s %dx%d %dx%dx%dx%d->%d s%d p%d "
                          "d%d" % (T, KR, KS, N, H, W, C, K, st, pad, dil),
                          small, build, "gemm"))
    return cases


def block_sparse_cases(cfg, heads):
    """block_sparse_attention.tl: each query block attends to its own list of
    key blocks (here a local window of W blocks plus block 0)."""
    h = heads["block_sparse_attn"]
    T = h["argdoc"]["Q"]["dtype"]
    BM = int(h["params"].get("BM", 128))
    BN = int(h["params"].get("BN", 128))
    D = int(h["params"].get("D", 128))
    sizes = [((1, 2, 3 * BM + 7, 2), True), ((4, 16, 8192, 4), False),
             ((1, 16, 16384, 8), False)]
    cases = []
    for (B, H, S, Wn), small in sizes:
        def build(ctx, g, B=B, H=H, S=S, Wn=Wn):
            NQ, NK = -(-S // BM), -(-S // BN)
            Q = ctx.rand(g, (B, H, S, D), T)
            K = ctx.rand(g, (B, H, S, D), T)
            V = ctx.rand(g, (B, H, S, D), T)
            O = ctx.empty((B, H, S, D), T)
            lists = []
            for qb in range(NQ):
                last = min(NK - 1, (qb * BM + BM - 1) // BN)
                blocks = sorted({0} | set(range(max(0, last - Wn + 1),
                                                last + 1)))
                lists.append(blocks)
            maxb = max(len(x) for x in lists)
            blk = torch.full((NQ, maxb), -1, dtype=torch.int32)
            cnt = torch.zeros(NQ, dtype=torch.int32)
            for qb, x in enumerate(lists):
                blk[qb, :len(x)] = torch.tensor(x, dtype=torch.int32)
                cnt[qb] = len(x)
            Blocks = blk.expand(B, H, NQ, maxb).contiguous().to(DEV)
            Count = cnt.expand(B, H, NQ).contiguous().to(DEV)
            keys = sum(min(S, (kb + 1) * BN) - kb * BN for x in lists
                       for kb in x) * BM
            def ref():
                mask = torch.zeros(S, S, dtype=torch.bool, device=REF_DEV)
                for qb, x in enumerate(lists):
                    for kb in x:
                        mask[qb * BM:(qb + 1) * BM, kb * BN:(kb + 1) * BN] = True
                # SDPA in float32 with the block mask (as attention_ref).
                return [F.scaled_dot_product_attention(
                    RD(Q).float(), RD(K).float(), RD(V).float(),
                    attn_mask=mask)]
            vendors = {}
            if not small:
                vendors["dense SDPA (flash)"] = (
                    lambda: F.scaled_dot_product_attention(Q, K, V))
            return dict(args=[Q, K, V, Blocks, Count, O], outputs=[("O", O)],
                        reset=nan_(O), ref=ref, fake=None, vendors=vendors,
                        flops=4.0 * B * H * keys * D, bytes=None,
                        tol=tol_for(T), vendor_no_error=True)
        cases.append(Case("block_sparse_attn", "block_sparse_attn %s B=%d H=%d "
                          "S=%d window=%d" % (T, B, H, S, Wn), small, build,
                          "attention"))
    return cases


def gather_cases(cfg, heads):
    """test/e2e/cpu/Inputs/gather.tl: gathers and scatters through index
    tiles (rows of an embedding table, rows scattered, image patches
    through three index tiles, gathers issued ahead in a pipelined loop);
    indices outside the tensor read 0 / write nothing."""
    T = heads["gather_rows"]["argdoc"]["X"]["dtype"]
    i32 = torch.int32
    cases = []

    def ints(g, n, lo, hi):
        return torch.randint(lo, hi, (n,), generator=g, device=DEV,
                             dtype=i32)

    def take_rows(x, rows):
        """x[rows] with zero rows where rows is outside x."""
        inside = (rows >= 0) & (rows < x.shape[0])
        out = x[rows.clamp(0, x.shape[0] - 1).long()].clone()
        out[~inside] = 0
        return out

    for (V, D, M, shift), small in [((50, 70, 37, 0), True),
                                    ((200, 100, 129, -2), True),
                                    ((131072, 4096, 16384, 0), False)]:
        def build_rows(ctx, g, V=V, D=D, M=M, shift=shift):
            X = ctx.rand(g, (V, D), T)
            Y = ctx.empty((M, D), T)
            lo, hi = (-3, V + 3) if small else (0, V)
            Rows = ints(g, M, lo, hi)
            return dict(args=[X, Rows, Y, shift], outputs=[("Y", Y)],
                        reset=nan_(Y),
                        ref=lambda: [take_rows(R(X), RD(Rows) + shift)],
                        fake=None,
                        vendors={"torch X[rows]": lambda: X[Rows]},
                        vendor_no_error=small, flops=None,
                        bytes=2.0 * DTYPE_SIZES[T] * M * D, tol=tol_for(T))
        cases.append(Case("gather_rows", "gather_rows %s %dx%d M=%d shift=%d"
                          % (T, V, D, M, shift), small, build_rows, "memory"))
    for (V, D, M), small in [((60, 70, 37), True), ((300, 40, 200), True),
                             ((131072, 4096, 16384), False)]:
        def build_scatter(ctx, g, V=V, D=D, M=M):
            X = ctx.rand(g, (M, D), T)
            Y = ctx.empty((V, D), T)
            Rows = torch.randperm(V, generator=g, device=DEV)[:M].to(i32)
            if small:
                Rows[4::5] = -1
                Rows[6::7] = V + 1

            def reset():
                Y.fill_(7.0)

            def ref():
                y = torch.full((V, D), 7.0, dtype=torch.float64,
                               device=REF_DEV)
                rows = RD(Rows).long()
                keep = (rows >= 0) & (rows < V)
                y[rows[keep]] = R(X)[keep]
                return [y]
            return dict(args=[X, Rows, Y], outputs=[("Y", Y)], reset=reset,
                        ref=ref, fake=None,
                        vendors={"torch index_copy_": lambda: Y.index_copy_(
                            0, Rows.long(), X)},
                        vendor_no_error=True, flops=None,
                        bytes=2.0 * DTYPE_SIZES[T] * M * D, tol=tol_for(T))
        cases.append(Case("scatter_rows", "scatter_rows %s %dx%d M=%d"
                          % (T, V, D, M), small, build_scatter, "memory"))
    for (B, H, W, C, M, P, Q), small in [((2, 5, 7, 40, 45, 1, 2), True),
                                         ((1, 9, 3, 70, 33, 2, -1), True)]:
        def build_patches(ctx, g, B=B, H=H, W=W, C=C, M=M, P=P, Q=Q):
            X = ctx.rand(g, (B, H, W, C), T)
            Y = ctx.empty((M, C), T)
            Img, Top, Left = (ints(g, M, 0, B + 1), ints(g, M, -1, H + 3),
                              ints(g, M, -3, W + 1))

            def ref():
                b, h, w = RD(Img).long(), RD(Top).long() - P, \
                    RD(Left).long() + Q
                inside = (b < B) & (h >= 0) & (h < H) & (w >= 0) & (w < W)
                y = R(X)[b.clamp(0, B - 1), h.clamp(0, H - 1),
                         w.clamp(0, W - 1)]
                y[~inside] = 0
                return [y]
            return dict(args=[X, Img, Top, Left, Y, P, Q], outputs=[("Y", Y)],
                        reset=nan_(Y), ref=ref, fake=None, vendors={},
                        flops=None, bytes=2.0 * DTYPE_SIZES[T] * M * C,
                        tol=tol_for(T))
        cases.append(Case("patches", "patches %s %dx%dx%dx%d M=%d"
                          % (T, B, H, W, C, M), small, build_patches,
                          "memory"))
    for (V, M, J), small in [((100, 70, 5), True), ((500, 100, 12), True),
                             ((65536, 16384, 16), False)]:
        def build_sum(ctx, g, V=V, M=M, J=J):
            D = 64
            X = ctx.rand(g, (V, D), T)
            Y = ctx.empty((M, D), T)
            Rows = ints(g, M, -2 if small else 0, V if small else V - J)

            def ref():
                x, rows = R(X), RD(Rows)
                return [sum(take_rows(x, rows + j) for j in range(J))]

            def vendor():
                idx = Rows[:, None].long() + torch.arange(J, device=DEV)
                return X[idx].float().sum(1).to(X.dtype)
            return dict(args=[X, Rows, Y, J], outputs=[("Y", Y)],
                        reset=nan_(Y), ref=ref, fake=None,
                        vendors={"torch X[rows + j].sum": vendor},
                        vendor_no_error=True, flops=None,
                        bytes=(J + 1.0) * DTYPE_SIZES[T] * M * D,
                        tol=tol_for(T))
        cases.append(Case("gather_sum", "gather_sum %s V=%d M=%d J=%d"
                          % (T, V, M, J), small, build_sum, "memory"))
    return cases


def views_cases(cfg, heads):
    """test/e2e/cpu/Inputs/views.tl: reshaped views of contiguous tensors
    (heads merged through a view in a pipelined loop; tile copies and
    element stores through views of flat outputs)."""
    T = heads["merge"]["argdoc"]["X"]["dtype"]
    W = int(heads["split"]["params"].get("W", 48))
    cases = []
    for (B, S, H, D), small in [((2, 37, 3, 20), True), ((3, 5, 1, 100), True),
                                ((8, 4096, 32, 128), False)]:
        def build_merge(ctx, g, B=B, S=S, H=H, D=D):
            X = ctx.rand(g, (B, S, H, D), T)
            Y = ctx.empty((B * S, H * D), T)
            return dict(args=[X, Y], outputs=[("Y", Y)], reset=nan_(Y),
                        ref=lambda: [2 * R(X).reshape(B * S, H * D)],
                        fake=None,
                        vendors={"torch 2 * X.view": lambda: (2 * X).view(
                            B * S, H * D)},
                        vendor_no_error=True, flops=None,
                        bytes=2.0 * DTYPE_SIZES[T] * X.numel(),
                        tol=tol_for(T))
        cases.append(Case("merge", "merge %s %dx%dx%dx%d" % (T, B, S, H, D),
                          small, build_merge, "memory"))
    for M in (20, 5):
        def build_split(ctx, g, M=M):
            X = ctx.rand(g, (M, W), T)
            Y, Z = ctx.empty((M * W,), T), ctx.empty((M * W,), T)

            def ref():
                x = R(X)
                rows = torch.arange(M, dtype=torch.float64,
                                    device=x.device)[:, None]
                z = x.reshape(M, W // 2, 2).flip(2).reshape(-1)
                return [(x + rows).reshape(-1), z]
            return dict(args=[X, Y, Z], outputs=[("Y", Y), ("Z", Z)],
                        reset=nan_(Y, Z), ref=ref, fake=None, vendors={},
                        flops=None, bytes=3.0 * DTYPE_SIZES[T] * M * W,
                        tol=tol_for(T))
        cases.append(Case("split", "split %s M=%d W=%d" % (T, M, W), True,
                          build_split, "memory"))
    return cases


def ordering_cases(cfg, heads):
    """test/e2e/cpu/Inputs/ordering.tl: a block reads back what it wrote and
    overwrites what it read (barriers of tile-gpu-order-global-memory)."""
    cases = []
    for (M, N), small in [((37, 200), True), ((100, 129), True),
                          ((8192, 8192), False)]:
        def build(ctx, g, M=M, N=N):
            X = ctx.rand(g, (M, N), "f32")
            Y0 = ctx.rand(g, (M, N), "f32")
            Y, Z = Y0.clone(), ctx.empty((M, N), "f32")

            def reset():
                Y.copy_(Y0)
                Z.fill_(float("nan"))
            return dict(args=[X, Y, Z], outputs=[("Y", Y), ("Z", Z)],
                        reset=reset, ref=lambda: [R(Y0) + R(X)] * 2,
                        fake=None, vendors={"torch Y + X": lambda: Y0 + X},
                        vendor_no_error=True, flops=None,
                        bytes=4.0 * 4 * M * N, tol=tol_for("f32"))
        cases.append(Case("roundtrip", "roundtrip f32 %dx%d" % (M, N), small,
                          build, "memory"))
    return cases


def packed_cases(cfg, heads):
    """test/e2e/cpu/Inputs/packed.tl: the packed u4/i4 (element reads of
    tiles and tensors, byte copies of whole tiles and slices, paired writes
    in parallels, fill), torch on uint8 buffers as the reference."""
    cases = []

    def unpack(b):  # [M, K / 2] bytes -> [M, K] nibbles, low first
        return torch.stack([b & 15, b >> 4], -1).reshape(b.shape[0], -1)

    def pack(q):  # [M, K] values -> bytes
        q = q.to(torch.int64) & 15
        return (q[:, 0::2] | (q[:, 1::2] << 4)).to(torch.uint8)
    for (M, K), small in [((37, 70), True), ((5, 6), True),
                          ((8192, 8192), False)]:
        def build_unpack(ctx, g, M=M, K=K):
            Qb = torch.randint(0, 256, (M, K // 2), generator=g, device=DEV,
                               dtype=torch.int32).to(torch.uint8)
            Sb = torch.randint(0, 256, (M, K // 2), generator=g, device=DEV,
                               dtype=torch.int32).to(torch.uint8)
            Y = ctx.empty((M, K), "i32")

            def ref():
                q = unpack(RD(Qb)).to(torch.float64)
                s = unpack(RD(Sb)).to(torch.float64)
                s = torch.where(s >= 8, s - 16, s)
                swapped = q.reshape(M, K // 2, 2).flip(2).reshape(M, K)
                return [100 * q + s + 10000 * swapped]
            return dict(args=[Packed4(Qb), Packed4(Sb, signed=True), Y],
                        outputs=[("Y", Y)], reset=lambda: Y.fill_(-1),
                        ref=ref, fake=None, vendors={}, flops=None,
                        bytes=M * K * (1.0 + 4.0), tol=(0.0, 0.0))
        cases.append(Case("unpack", "unpack u4/i4 %dx%d" % (M, K), small,
                          build_unpack, "memory"))

        def build_pack(ctx, g, M=M, K=K):
            X = torch.randint(-24, 40, (M, K), generator=g, device=DEV,
                              dtype=torch.int32)
            Qb = torch.empty((M, K // 2), device=DEV, dtype=torch.uint8)
            Sb, Fb = torch.empty_like(Qb), torch.zeros_like(Qb)

            def reset():
                Qb.fill_(0xa5)
                Sb.fill_(0xa5)
            return dict(args=[X, Packed4(Qb), Packed4(Sb, signed=True),
                              Packed4(Fb)],
                        outputs=[("Q", Qb), ("S", Sb)], reset=reset,
                        ref=lambda: [pack(RD(X)).to(torch.float64),
                                     pack(RD(X) - 8).to(torch.float64)],
                        fake=None, vendors={}, flops=None,
                        bytes=M * K * (4.0 + 1.0), tol=(0.0, 0.0))
        cases.append(Case("pack", "pack u4/i4 %dx%d" % (M, K), small,
                          build_pack, "memory"))
    return cases


def slices_cases(cfg, heads):
    """test/e2e/cpu/Inputs/slices.tl: windows with slices (a head of a
    [B, S, H, D] tensor), in a plain and in a pipelined loop."""
    T = heads["heads"]["argdoc"]["X"]["dtype"]
    cases = []
    for (B, S, H), small in [((2, 37, 3), True), ((1, 100, 2), True),
                             ((8, 4096, 32), False)]:
        def build_heads(ctx, g, B=B, S=S, H=H):
            X = ctx.rand(g, (B, S, H, 64), T)
            Y = ctx.empty((B, S, H, 64), T)
            hidx = torch.arange(H, device=DEV, dtype=torch.float32)
            return dict(args=[X, Y], outputs=[("Y", Y)], reset=nan_(Y),
                        ref=lambda: [2 * R(X) + R(hidx)[None, None, :, None]],
                        fake=None, vendors={}, flops=None,
                        bytes=2.0 * DTYPE_SIZES[T] * X.numel(),
                        tol=tol_for(T))
        def build_sums(ctx, g, B=B, S=S, H=H):
            X = ctx.rand(g, (B, S, H, 64), T)
            Y = ctx.empty((B, H, 64), "f32")
            return dict(args=[X, Y], outputs=[("Y", Y)], reset=nan_(Y),
                        ref=lambda: [R(X).sum(1)], fake=None,
                        vendors={"torch.sum": lambda: X.sum(
                            1, dtype=torch.float32)},
                        flops=None, bytes=DTYPE_SIZES[T] * X.numel(),
                        tol=(1e-5, 1e-4), vendor_no_error=True)
        cases.append(Case("heads", "heads %s %dx%dx%dx64" % (T, B, S, H),
                          small, build_heads, "memory"))
        cases.append(Case("head_sums", "head_sums %s %dx%dx%dx64 (pipelined "
                          "slice)" % (T, B, S, H), small, build_sums,
                          "memory"))
    if "strided" not in heads:
        return cases
    for (M, N), small in [((37, 40), True), ((2, 5), True),
                          ((8192, 8192), False)]:
        def build_strided(ctx, g, M=M, N=N):
            MY = (M + 1) // 2
            X = ctx.rand(g, (M, N), T)
            Y, Z = ctx.empty((MY, N), T), ctx.empty((MY, N), T)
            V, W = ctx.empty((MY, 8), T), ctx.empty((M, N), T)

            def reset():
                for t in (Y, Z, V):
                    t.fill_(float("nan"))
                W.fill_(7.0)

            def ref():
                x = R(X)
                z = torch.zeros(MY, N, dtype=torch.float64, device=x.device)
                z[2:] = x[1::2][:max(0, MY - 2)]  # rows 2r - 3, r >= 2
                v = torch.zeros(MY, 8, dtype=torch.float64, device=x.device)
                cols = x[::2, 1::3][:, :8]
                v[:, :cols.shape[1]] = cols
                w = torch.full((M, N), 7.0, dtype=torch.float64,
                               device=x.device)
                w[::2] = x[::2]
                return [x[::2], z, v, w]
            return dict(args=[X, Y, Z, V, W],
                        outputs=[("Y", Y), ("Z", Z), ("V", V), ("W", W)],
                        reset=reset, ref=ref, fake=None,
                        vendors={"torch X[::2].clone()":
                                 lambda: X[::2].clone()},
                        vendor_no_error=True, flops=None,
                        bytes=DTYPE_SIZES[T] * 3.0 * M * N, tol=tol_for(T))
        cases.append(Case("strided", "strided %s %dx%d (row and column steps)"
                          % (T, M, N), small, build_strided, "memory"))
    return cases


def padding_cases(cfg, heads):
    """test/e2e/cpu/Inputs/padding.tl: windows that start before the tensor
    (shifted loads and stores, slices, a column; a 1-D convolution with
    zero padding in a pipelined loop)."""
    T = heads["shift"]["argdoc"]["X"]["dtype"]
    BM, BN = (int(heads["shift"]["params"].get(k, d))
              for k, d in (("BM", 16), ("BN", 32)))
    cases = []
    for (M, N, P, Q), small in [((40, 70, 3, 5), True), ((33, 64, 0, 8), True),
                                ((50, 100, 17, 40), True),
                                ((8192, 8192, 1, 8), False)]:
        def build(ctx, g, M=M, N=N, P=P, Q=Q):
            X = ctx.rand(g, (M, N), T)
            Y, Z = ctx.empty((M, N), T), ctx.empty((M, N), T)
            C = ctx.empty((M,), T)
            m = 48  # W lies inside a bigger tensor whose margin is checked
            Big = ctx.empty((M + 2 * m, N + 2 * m), T)
            W = Big[m:m + M, m:m + N]

            def reset():
                for t in (Y, Z, C):
                    t.fill_(float("nan"))
                Big.fill_(7.0)

            def ref():
                x = R(X)
                y = torch.zeros_like(x)
                y[P:, Q:] = x[:M - P, :N - Q]
                big = torch.full((M + 2 * m, N + 2 * m), 7.0,
                                 dtype=torch.float64, device=x.device)
                # W[r, c] = X[r + P, c + Q] where a tile covers that element
                # of X (zero past X's end).
                rows = min(M, -(-M // BM) * BM - P)
                cols = min(N, -(-N // BN) * BN - Q)
                src = torch.zeros(rows + P, cols + Q, dtype=torch.float64,
                                  device=x.device)
                src[:min(M, rows + P), :min(N, cols + Q)] = \
                    x[:min(M, rows + P), :min(N, cols + Q)]
                big[m:m + rows, m:m + cols] = src[P:P + rows, Q:Q + cols]
                c = torch.cat([torch.zeros(P, dtype=torch.float64,
                                           device=x.device), x[:M - P, 0]])
                return [y, y, c, big]
            return dict(args=[X, Y, W, Z, C, P, Q],
                        outputs=[("Y", Y), ("Z", Z), ("C", C), ("W", Big)],
                        reset=reset, ref=ref, fake=None,
                        vendors={"torch (pad + slice)": lambda: F.pad(
                            X, (Q, 0, P, 0))[:M, :N]},
                        vendor_no_error=True, flops=None,
                        bytes=4.0 * DTYPE_SIZES[T] * M * N, tol=tol_for(T))
        cases.append(Case("shift", "shift %s %dx%d by (%d, %d)" % (
            T, M, N, P, Q), small, build, "memory"))
    for (B, N, Rt), small in [((3, 200, 5), True), ((2, 7, 5), True),
                              ((4096, 8192, 5), False)]:
        def build_conv(ctx, g, B=B, N=N, Rt=Rt):
            X = ctx.rand(g, (B, N), T)
            Wt = ctx.rand(g, (Rt,), "f32")
            Y = ctx.empty((B, N), T)

            def ref():
                x = R(X)[:, None, :]
                w = R(Wt)[None, None, :]
                return [F.conv1d(x, w, padding=Rt // 2)[:, 0, :]]
            return dict(args=[X, Wt, Y], outputs=[("Y", Y)], reset=nan_(Y),
                        ref=ref, fake=None,
                        vendors={"F.conv1d": lambda: F.conv1d(
                            X[:, None, :], Wt.to(X.dtype)[None, None, :],
                            padding=Rt // 2)[:, 0, :]},
                        vendor_no_error=True, flops=2.0 * B * N * Rt,
                        bytes=2.0 * DTYPE_SIZES[T] * B * N, tol=tol_for(T))
        cases.append(Case("conv1d", "conv1d %s B=%d N=%d R=%d" % (
            T, B, N, Rt), small, build_conv, "memory"))
    return cases


def same_values(a, b):
    """Equal tensors, NaN equal to NaN (f8 ones compared by their bits:
    torch has no nan_to_num for them)."""
    if a.is_floating_point() and a.element_size() == 1:
        return torch.equal(a.view(torch.uint8), b.view(torch.uint8))
    return torch.equal(torch.nan_to_num(a), torch.nan_to_num(b))


def f8_saturate(x, Fd):
    """x (float) as tlc converts it to Fd: clamped to the largest finite
    value (torch's own conversion keeps infinities or gives NaN), then
    rounded to nearest even by torch."""
    fmax = 448.0 if Fd == "f8e4m3" else 57344.0
    return x.clamp(-fmax, fmax).to(TORCH_DTYPES[Fd])


def fp8_cases(cfg, heads):
    """fp8.tl (test input): f8 conversions in copies, casts and element
    access, against torch's round-to-nearest-even with saturation."""
    Fd = heads["f8_convert"]["argdoc"]["Q"]["dtype"]
    Gd = heads["f8_elements"]["argdoc"]["U"]["dtype"]
    cases = []
    for N, small in [(1500, True), (37, True), (1 << 24, False)]:
        def build(ctx, g, N=N):
            X = ctx.rand(g, (N,), "f32", scale=100.0)
            # First the values that probe the rounding: every finite code,
            # the midpoints between neighbours (ties) and the floats beside
            # them, subnormals, infinities (saturate), both signs.
            every = torch.arange(128, device=DEV).to(torch.uint8)
            v = every.view(TORCH_DTYPES[Fd]).float()
            v = v[torch.isfinite(v)].sort().values
            mid = (v[1:] + v[:-1]) / 2
            probes = torch.cat([v, mid, mid.nextafter(v[1:]),
                                mid.nextafter(v[:-1]),
                                torch.tensor([float("inf"), 1e30, 1e-30],
                                             device=DEV)])
            probes = torch.cat([probes, -probes])[:N]
            X[:probes.numel()] = probes
            Q, Z = ctx.empty((N,), Fd), ctx.empty((N,), Fd)
            Y = ctx.empty((N,), "f32")
            return dict(args=[X, Q, Y, Z],
                        outputs=[("Q", Q), ("Y", Y), ("Z", Z)],
                        reset=nan_(Q, Y, Z),
                        ref=lambda: [f8_saturate(RD(X), Fd)] * 3, fake=None,
                        vendors={}, flops=None, bytes=N * 6.0,
                        tol=(0.0, 0.0))
        cases.append(Case("f8_convert", "f8_convert f32->%s N=%d" % (Fd, N),
                          small, build, "memory"))
    for N, small in [(256, True), (1027, True)]:
        def build(ctx, g, N=N):
            # every finite code (the harness fails non-finite outputs; the
            # CPU and Vulkan tests cover infinities and NaN)
            every = torch.arange(256, device=DEV).to(torch.uint8)
            finite = every[torch.isfinite(
                every.view(TORCH_DTYPES[Fd]).float())]
            Q = finite.repeat(N // finite.numel() + 1)[:N].contiguous()
            Q = Q.view(TORCH_DTYPES[Fd])
            W = ctx.empty((N,), "f32")
            V, U = ctx.empty((N,), Fd), ctx.empty((N,), Gd)

            def ref():
                q = RD(Q).float()
                return [q, f8_saturate(2.0 * q - 1.0, Fd), f8_saturate(q, Gd)]
            return dict(args=[Q, W, V, U],
                        outputs=[("W", W), ("V", V), ("U", U)],
                        reset=nan_(W, V, U), ref=ref, fake=None,
                        vendors={}, flops=None, bytes=N * 6.0,
                        tol=(0.0, 0.0))
        cases.append(Case("f8_elements", "f8_elements %s N=%d" % (Fd, N),
                          small, build, "memory"))
    return cases


def fp8_quant_cases(cfg, heads):
    """fp8_quant.tl: per-row FP8 quantization of X[M, N]: Q and scales S."""
    T = heads["fp8_quant"]["argdoc"]["X"]["dtype"]
    Fd = heads["fp8_quant"]["argdoc"]["Q"]["dtype"]
    fmax = 448.0 if Fd == "f8e4m3" else 57344.0
    sizes = [((5, 100), 3, True), ((3, 3000), 0, True), ((17, 1024), 0, True),
             ((4096, 4096), 0, False), ((8192, 8192), 0, False),
             ((65536, 1024), 0, False), ((16, 32768), 0, False)]
    cases = []
    for (M, N), pad, small in sizes:
        def build(ctx, g, M=M, N=N, pad=pad):
            X = ctx.rand(g, (M, N), T, pad)
            Q = ctx.empty((M, N), Fd)
            S = ctx.empty((M,), "f32")

            def quantize(x):  # as the kernel: f32 division, one rounding
                amax = x.abs().amax(-1, keepdim=True).float()
                s = torch.where(amax > 0, amax / fmax, torch.ones_like(amax))
                return (x.float() / s).to(TORCH_DTYPES[Fd]), s[:, 0]

            def ref():
                q, s = quantize(RD(X))
                return [q, s]
            return dict(args=[X, Q, S], outputs=[("Q", Q), ("S", S)],
                        reset=nan_(Q, S), ref=ref, fake=None,
                        vendors={"torch eager": lambda: quantize(X)[0]},
                        flops=None,
                        bytes=M * N * (DTYPE_SIZES[T] + 1.0) + 4.0 * M,
                        tol=tol_for(Fd))
        cases.append(Case("fp8_quant", "fp8_quant %s->%s %dx%d%s" % (
            T, Fd, M, N, " strided(+%d)" % pad if pad else ""), small, build,
            "memory"))
    return cases


def fp8_gemm_cases(cfg, heads):
    """fp8_gemm.tl: C = (A @ W^T) * SA[:, None] * SB[None, :], FP8 A and W;
    cuBLASLt's FP8 GEMM (torch._scaled_mm, row-wise scales) as the vendor."""
    T = heads["fp8_gemm"]["argdoc"]["C"]["dtype"]
    Fd = heads["fp8_gemm"]["argdoc"]["A"]["dtype"]
    sizes = [((37, 45, 70), True), ((130, 260, 129), True),
             ((128, 128, 256), True), ((4096, 4096, 4096), False),
             ((64, 8192, 8192), False)]
    cases = []
    for (M, N, K), small in sizes:
        def build(ctx, g, M=M, N=N, K=K):
            A = ctx.rand(g, (M, K), Fd)
            W = ctx.rand(g, (N, K), Fd)
            SA = ctx.rand(g, (M,), "f32").abs_().add_(0.01)
            SB = ctx.rand(g, (N,), "f32").abs_().add_(0.01)
            C = ctx.empty((M, N), T)

            def ref():
                return [(R(A) @ R(W).T) * R(SA)[:, None] * R(SB)[None, :]]

            def scaled_mm():
                return torch._scaled_mm(A, W.t(), scale_a=SA[:, None],
                                        scale_b=SB[None, :],
                                        out_dtype=TORCH_DTYPES[T])
            vendors = {}
            if M % 16 == 0 and N % 16 == 0 and K % 16 == 0:
                vendors["cuBLASLt fp8"] = scaled_mm
            return dict(args=[A, W, SA, SB, C], outputs=[("C", C)],
                        reset=nan_(C), ref=ref, fake=None, vendors=vendors,
                        flops=2.0 * M * N * K,
                        bytes=1.0 * (M * K + N * K)
                        + DTYPE_SIZES[T] * M * N,
                        tol=tol_for(T, "gemm"))
        cases.append(Case("fp8_gemm", "fp8_gemm %s->%s %dx%dx%d" % (
            Fd, T, M, N, K), small, build, "gemm"))
    return cases


def w4a16_cases(cfg, heads):
    """w4a16_gemm.tl: C = A @ dequant(Wq)^T with u4 weights (a uint8
    [N, K / 2] buffer, two per byte along K) and a scale per group of G. Vendors: cuBLAS on the
    dense bf16 weights (what the layer costs unquantized) and torch eager
    dequantizing first."""
    T = heads["w4a16_gemm"]["argdoc"]["A"]["dtype"]
    G = int(heads["w4a16_gemm"]["params"].get("G", 128))
    sizes = [((5, 130, 3 * G), True), ((33, 77, 2 * G), True),
             ((1, 4096, 4096), False), ((16, 4096, 4096), False),
             ((1, 14336, 4096), False), ((16, 4096, 14336), False),
             ((128, 14336, 4096), False), ((4096, 4096, 4096), False)]
    cases = []
    for (M, N, K), small in sizes:
        def build(ctx, g, M=M, N=N, K=K):
            A = ctx.rand(g, (M, K), T)
            Wq = torch.randint(0, 256, (N, K // 2), generator=g, device=DEV,
                               dtype=torch.int32).to(torch.uint8)
            S = (ctx.rand(g, (K // G, N), "f32").abs() * 0.01
                 + 0.001).to(TORCH_DTYPES[T])
            C = ctx.empty((M, N), T)

            def dequant(wq, s):  # element 2c in the low nibble of byte c
                q = torch.stack([wq & 15, wq >> 4], -1).reshape(N, K)
                return (q.to(s.dtype) - 8) * s.T.repeat_interleave(G, dim=1)
            Wd = dequant(Wq, S.float()).to(TORCH_DTYPES[T])
            return dict(args=[A, Packed4(Wq), S, C], outputs=[("C", C)],
                        reset=nan_(C),
                        ref=lambda: [R(A) @ dequant(RD(Wq), R(S)).T],
                        fake=None,
                        vendors={"F.linear bf16 W": lambda: F.linear(A, Wd),
                                 "torch dequant + F.linear":
                                 lambda: F.linear(A, dequant(Wq, S))},
                        flops=2.0 * M * N * K,
                        bytes=DTYPE_SIZES[T] * (M * K + M * N + N * K / G)
                        + N * K / 2.0,
                        tol=tol_for(T, "gemm"))
        cases.append(Case("w4a16_gemm", "w4a16_gemm %s G=%d %dx%dx%d" % (
            T, G, M, N, K), small, build, "gemm"))
    return cases


def topk_gating_cases(cfg, heads):
    """topk_gating.tl: group-limited top-k gating (DeepSeek-V3's router):
    sigmoid scores plus a bias, top-2 group scores, TG groups, TopK
    experts, weights renormalized and scaled; torch eager as the vendor."""
    p = heads["topk_gating"]["params"]
    T = heads["topk_gating"]["argdoc"]["Logits"]["dtype"]
    NG, GS = int(p.get("NG", 8)), int(p.get("GS", 32))
    TG, TopK = int(p.get("TG", 4)), int(p.get("TopK", 8))
    scale = float(p.get("Scale", 2.5))
    E = NG * GS

    def gate(logits, bias):
        n = logits.shape[0]
        s = logits.float().sigmoid()
        c = s + bias
        gs = c.view(n, NG, GS).topk(2, dim=-1)[0].sum(-1)
        gidx = gs.topk(TG, dim=-1)[1]
        mask = torch.zeros(n, NG, device=c.device).scatter_(1, gidx, 1.0)
        keep = mask.bool().unsqueeze(-1).expand(n, NG, GS).reshape(n, E)
        ids = c.masked_fill(~keep, float("-inf")).topk(TopK, dim=-1)[1]
        w = s.gather(1, ids)
        return w / w.sum(-1, keepdim=True) * scale, ids.to(torch.int32)
    cases = []
    for tokens, small in [(37, True), (5, True), (4096, False),
                          (65536, False)]:
        def build(ctx, g, tokens=tokens):
            L = ctx.rand(g, (tokens, E), T, scale=2.0)
            B = ctx.rand(g, (E,), "f32", scale=0.1)
            W = ctx.empty((tokens, TopK), "f32")
            I = ctx.empty((tokens, TopK), "i32")

            def reset():
                W.fill_(float("nan"))
                I.fill_(-1)

            def ref():
                w, ids = gate(RD(L), RD(B))
                return [w, ids]
            return dict(args=[L, B, W, I], outputs=[("Weights", W),
                                                    ("Ids", I)],
                        reset=reset, ref=ref, fake=None,
                        vendors={"torch eager": lambda: gate(L, B)[0]},
                        flops=None,
                        bytes=tokens * E * DTYPE_SIZES[T] + 4.0 * E
                        + 8.0 * tokens * TopK,
                        tol=(1e-5, 1e-4))
        cases.append(Case("topk_gating", "topk_gating %s T=%d E=%d" % (
            T, tokens, E), small, build, "memory"))
    return cases


def mla_split_bounds(length, splits, bn):
    """The token range [s0, s1) of each split (mla_decode.tl's rule)."""
    chunk = -(-(-(-length // splits)) // bn) * bn
    return [(sp * chunk, min(length, sp * chunk + chunk))
            for sp in range(splits)]


def mla_decode_cases(cfg, heads):
    """mla_decode.tl: latent attention decode over a shared compressed KV
    cache, split KV (mla_decode_split: per-split outputs and log-sum-exps)
    then mla_combine; each kernel checked and timed on its own. The vendor
    of the split kernel is SDPA over the whole cache (KV expanded over the
    heads: a stride-0 view), which the two kernels together replace."""
    if "mla_decode_split" not in heads:
        return []
    p = heads["mla_decode_split"]["params"]
    T = heads["mla_decode_split"]["argdoc"]["Q"]["dtype"]
    D, DV = int(p.get("D", 576)), int(p.get("DV", 512))
    splits, bn = int(p.get("Splits", 8)), int(p.get("BN", 32))
    cases = []
    for (B, H, S, ragged), small in [((2, 20, 300, True), True),
                                     ((1, 16, 77, True), True),
                                     ((64, 16, 4096, False), False),
                                     ((8, 128, 8192, False), False)]:
        def build(ctx, g, B=B, H=H, S=S, ragged=ragged):
            Q = ctx.rand(g, (B, H, D), T)
            KV = ctx.rand(g, (B, S, D), T)
            lens = [max(1, (S * (b + 1)) // B) if ragged else S
                    for b in range(B)]
            Lengths = torch.tensor(lens, device=DEV, dtype=torch.int32)
            Op = ctx.empty((B, H, splits, DV), "f32")
            Lp = ctx.empty((B, H, splits), "f32")
            scale = 1.0 / math.sqrt(D)

            def ref():
                q, kv = R(Q), R(KV)
                o = torch.zeros(B, H, splits, DV, dtype=torch.float64,
                                device=q.device)
                lse = torch.full((B, H, splits), float("-inf"),
                                 dtype=torch.float64, device=q.device)
                for b in range(B):
                    for sp, (s0, s1) in enumerate(
                            mla_split_bounds(lens[b], splits, bn)):
                        if s0 >= s1:
                            continue
                        sc = q[b] @ kv[b, s0:s1].T * scale
                        lse[b, :, sp] = torch.logsumexp(sc, -1)
                        o[b, :, sp] = torch.softmax(sc, -1) @ kv[b, s0:s1, :DV]
                return [o, lse]

            def sdpa():
                k = KV[:, None].expand(B, H, S, D)
                return F.scaled_dot_product_attention(
                    Q[:, :, None], k, k[..., :DV], scale=scale)
            return dict(args=[Q, KV, Lengths, Op, Lp, scale],
                        outputs=[("Opart", Op), ("Lpart", Lp)],
                        reset=nan_(Op, Lp), ref=ref, fake=None,
                        vendors={} if ragged else {"SDPA (KV expanded)": sdpa},
                        vendor_no_error=True,  # the whole attention, unsplit
                        flops=2.0 * B * H * S * (D + DV),
                        bytes=DTYPE_SIZES[T] * B * (S * D + H * D)
                        + 4.0 * B * H * splits * (DV + 1),
                        tol=(2e-3, 2e-2))
        cases.append(Case("mla_decode_split", "mla_decode_split %s B=%d H=%d "
                          "S=%d%s" % (T, B, H, S, " ragged" if ragged else ""),
                          small, build, "attention"))
    if "mla_decode" in heads:
        cases += mla_operation_cases(T, D, DV)
    if "mla_combine" not in heads:
        return cases
    for (B, H), small in [((2, 20), True), ((64, 128), False)]:
        def build(ctx, g, B=B, H=H):
            Op = ctx.rand(g, (B, H, splits, DV), "f32")
            Lp = ctx.rand(g, (B, H, splits), "f32", scale=3.0)
            Lp[:, :, splits // 2:] = float("-inf")   # empty splits weigh 0
            O = ctx.empty((B, H, DV), T)

            def ref():
                w = torch.softmax(R(Lp), -1)
                return [(w[..., None] * R(Op)).sum(-2)]
            return dict(args=[Op, Lp, O], outputs=[("O", O)], reset=nan_(O),
                        ref=ref, fake=None, vendors={}, flops=None,
                        bytes=4.0 * B * H * splits * (DV + 1)
                        + DTYPE_SIZES[T] * B * H * DV, tol=tol_for(T))
        cases.append(Case("mla_combine", "mla_combine %s B=%d H=%d" % (
            T, B, H), small, build, "memory"))
    return cases


def mla_operation_cases(T, D, DV):
    """The operation mla_decode of mla_decode.tl: both kernels in one call,
    the scratch allocated (stream-ordered) by the stub; against the whole
    attention, and timed with its allocation against SDPA."""
    cases = []
    for (B, H, S, ragged), small in [((2, 20, 300, True), True),
                                     ((64, 16, 4096, False), False),
                                     ((8, 128, 8192, False), False)]:
        def build(ctx, g, B=B, H=H, S=S, ragged=ragged):
            Q = ctx.rand(g, (B, H, D), T)
            KV = ctx.rand(g, (B, S, D), T)
            lens = [max(1, (S * (b + 1)) // B) if ragged else S
                    for b in range(B)]
            Lengths = torch.tensor(lens, device=DEV, dtype=torch.int32)
            O = ctx.empty((B, H, DV), T)
            scale = 1.0 / math.sqrt(D)

            def ref():
                q, kv = R(Q), R(KV)
                o = torch.zeros(B, H, DV, dtype=torch.float64,
                                device=q.device)
                for b in range(B):
                    sc = q[b] @ kv[b, :lens[b]].T * scale
                    o[b] = torch.softmax(sc, -1) @ kv[b, :lens[b], :DV]
                return [o]

            def sdpa():
                k = KV[:, None].expand(B, H, S, D)
                return F.scaled_dot_product_attention(
                    Q[:, :, None], k, k[..., :DV], scale=scale)[:, :, 0]
            return dict(args=[Q, KV, Lengths, O, scale],
                        outputs=[("O", O)], reset=nan_(O), ref=ref, fake=None,
                        vendors={} if ragged else {"SDPA (KV expanded)": sdpa},
                        flops=2.0 * B * H * S * (D + DV),
                        bytes=DTYPE_SIZES[T] * B * (S * D + H * D + H * DV),
                        tol=tol_for(T))
        cases.append(Case("mla_decode", "mla_decode (operation) %s B=%d H=%d "
                          "S=%d%s" % (T, B, H, S, " ragged" if ragged else ""),
                          small, build, "attention"))
    return cases


def attention_ref(q, k, v, causal):
    """Reference attention: torch SDPA in float32, or by hand in float64
    where torch has no SDPA (--mock on an old torch)."""
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                              is_causal=causal)
    q, k, v = q.double(), k.double(), v.double()
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        S = q.shape[-2]
        mask = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
        s = s.masked_fill(mask, float("-inf"))
    return torch.softmax(s, -1) @ v


def attention_lse_ref(q, k, causal):
    """L of flash_attn_fwd: the natural-log log-sum-exp of each query row's
    scaled (and, with causal, masked) scores, in float64 (what torch's flash
    SDPA returns as logsumexp), one batch at a time to bound the S x S
    scores."""
    out = []
    for b in range(q.shape[0]):
        qb, kb = q[b].double(), k[b].double()
        s = qb @ kb.transpose(-1, -2) / math.sqrt(q.shape[-1])
        if causal:
            S = q.shape[-2]
            mask = torch.ones(S, S, dtype=torch.bool,
                              device=q.device).triu(1)
            s = s.masked_fill(mask, float("-inf"))
        out.append(torch.logsumexp(s, -1))
        del s
    return torch.stack(out)


def sdpa_vendors(Q, K, V, causal):
    vendors = {}
    if not hasattr(F, "scaled_dot_product_attention"):
        return vendors
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        return {"SDPA": lambda: F.scaled_dot_product_attention(
            Q, K, V, is_causal=causal)}
    for name, backend in (("SDPA cuDNN", "CUDNN_ATTENTION"),
                          ("SDPA flash", "FLASH_ATTENTION")):
        be = getattr(SDPBackend, backend, None)
        if be is None:
            continue
        def f(be=be):
            with sdpa_kernel([be]):
                return F.scaled_dot_product_attention(Q, K, V,
                                                      is_causal=causal)
        vendors[name] = f
    return vendors


def attention_cases(cfg, heads):
    h = heads["flash_attn_fwd"]
    T = h["argdoc"]["Q"]["dtype"]
    D = int(h["params"].get("D", "128"))
    causal = h["params"].get("Causal", "false") == "true"
    # ((B, H, S), small[, Hkv]): grouped-query cases have fewer key/value
    # heads (query head h reads h * Hkv / H); the reference and the vendor's
    # SDPA get K and V repeated per group.
    sizes = [((1, 2, 77), True), ((2, 3, 300), True), ((1, 1, 128), True),
             ((1, 4, 77), True, 2), ((2, 6, 300), True, 1),
             ((2, 8, 1000), False), ((4, 16, 4096), False),
             ((4, 16, 4096), False, 4)]
    if T == "bf16":  # the shapes of issue 12's and shared/PERF.md's bars
        sizes.append(((8, 16, 4096), False))
        if D != 128:
            sizes.append(((16, 16, 2048), False))
    cases = []
    for (B, H, S), small, *kv in sizes:
        Hkv = kv[0] if kv else H

        def build(ctx, g, B=B, H=H, S=S, Hkv=Hkv):
            Q = ctx.rand(g, (B, H, S, D), T)
            Kc = ctx.rand(g, (B, Hkv, S, D), T)
            Vc = ctx.rand(g, (B, Hkv, S, D), T)
            # What each query head reads (views for Hkv = H).
            K = Kc.repeat_interleave(H // Hkv, dim=1) if Hkv != H else Kc
            V = Vc.repeat_interleave(H // Hkv, dim=1) if Hkv != H else Vc
            O = ctx.empty((B, H, S, D), T)
            L = ctx.empty((B, H, S), "f32")  # log-sum-exp of each row
            def fake():
                O.copy_(attention_ref(Q, K, V, causal).to(O.dtype))
                L.copy_(attention_lse_ref(Q, K, causal).to(L.dtype))
            flops = 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)
            return dict(args=[Q, Kc, Vc, O, L], outputs=[("O", O), ("L", L)],
                        reset=nan_(O, L),
                        ref=lambda: [attention_ref(RD(Q), RD(K), RD(V),
                                                   causal),
                                     attention_lse_ref(RD(Q), RD(K), causal)],
                        fake=fake, vendors=sdpa_vendors(Q, K, V, causal),
                        flops=flops, bytes=4.0 * B * H * S * D *
                        DTYPE_SIZES[T] + 4.0 * B * H * S, tol=tol_for(T))
        label = "flash_attn %s D=%d%s B=%d H=%d S=%d%s" % (
            T, D, " causal" if causal else "", B, H, S,
            " Hkv=%d" % Hkv if Hkv != H else "")
        cases.append(Case("flash_attn_fwd", label, small, build, "attention"))
    return cases


CASES_BY_EXAMPLE = {"gemm.tl": gemm_cases, "linear.tl": linear_cases,
                    "softmax.tl": softmax_file_cases,
                    "rmsnorm.tl": rmsnorm_file_cases,
                    "layernorm.tl": layernorm_file_cases,
                    "elementwise.tl": elementwise_cases,
                    "colsum.tl": colsum_cases,
                    "grouped_gemm.tl": grouped_gemm_cases,
                    "elements.tl": elements_cases,
                    "rope.tl": rope_cases,
                    "splitk_gemm.tl": splitk_cases,
                    "moe_topk.tl": moe_topk_cases,
                    "paged_decode.tl": paged_decode_cases,
                    "layernorm_bwd.tl": layernorm_bwd_cases,
                    "conv2d.tl": conv2d_cases,
                    "block_sparse_attention.tl": block_sparse_cases,
                    "slices.tl": slices_cases,
                    "padding.tl": padding_cases,
                    "gather.tl": gather_cases,
                    "views.tl": views_cases,
                    "ordering.tl": ordering_cases,
                    "packed.tl": packed_cases,
                    "fp8.tl": fp8_cases,
                    "w4a16_gemm.tl": w4a16_cases,
                    "topk_gating.tl": topk_gating_cases,
                    "mla_decode.tl": mla_decode_cases,
                    "fp8_quant.tl": fp8_quant_cases,
                    "fp8_gemm.tl": fp8_gemm_cases,
                    "flash_attention.tl": attention_cases}


# --------------------------------------------------------------------------
# Worker: runs configurations in this process, one JSON record per event
# --------------------------------------------------------------------------


class Recorder:
    def __init__(self, path):
        self.f = open(path, "a") if path else None

    def __call__(self, rec):
        rec.setdefault("t", time.time())
        if self.f:
            self.f.write(json.dumps(rec) + "\n")
            self.f.flush()


def fmt_err(e):
    return "%.2e" % e if e is not None and math.isfinite(e) else str(e)


def cuda_healthy():
    if DEV != "cuda":
        return True
    try:
        torch.cuda.synchronize()
        return torch.ones(1, device="cuda").add_(1).item() == 2.0
    except Exception:
        return False


def env_record(ctx):
    rec = {"type": "env", "torch": torch.__version__, "device": DEV}
    if DEV == "cuda":
        p = torch.cuda.get_device_properties(0)
        rec.update(gpu=p.name, sms=p.multi_processor_count,
                   mem_gb=round(p.total_memory / 2**30, 1),
                   cuda=torch.version.cuda,
                   capability="%d.%d" % (p.major, p.minor))
        try:
            rec["nvidia_smi"] = subprocess.run(
                ["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,"
                 "clocks.max.sm,clocks.mem,power.limit", "--format=csv,"
                 "noheader"], capture_output=True, text=True,
                timeout=20).stdout.strip()
        except Exception as e:  # noqa: BLE001
            rec["nvidia_smi"] = "n/a (%s)" % e
    return rec


def measure_copy(ctx):
    """Device-to-device copy bandwidth (bytes read + written)."""
    n = (1 << 28) if DEV == "cuda" else (1 << 20)  # 1 GiB of f32
    src = torch.empty(n, dtype=torch.float32, device=DEV).uniform_()
    dst = torch.empty_like(src)
    r = ctx.bench(lambda: dst.copy_(src), flush=False, target_s=0.2)
    return 2.0 * n * 4 / (r["ms"] * 1e-3) / 1e9


def run_case(ctx, kernel, case, timing, rec, cfg):
    base = {"type": "check", "config": cfg, "kernel": case.kernel,
            "check": case.label, "kind": case.kind, "small": case.small}
    g = ctx.gen(case.label)
    d = case.build(ctx, g)
    call = kernel.prepare(d["args"], fake=d["fake"])
    d["reset"]()
    sync()
    call()
    sync()
    if ctx.mock and os.environ.get("TLC_E2E_MOCK_FAULT"):
        mock_fault(os.environ["TLC_E2E_MOCK_FAULT"], case.label, d)
    refs = d["ref"]()
    errs = None
    tol = d["tol"]
    failing = []
    for (name, out), ref in zip(d["outputs"], refs):
        e = dict(compare(out, ref), output=name)
        if errs is None or e["rel_l2"] > errs["rel_l2"]:
            errs = e
        if not (e["nonfinite"] == 0 and e["rel_l2"] <= tol[0] and
                e["max_rel"] <= tol[1]):
            failing.append(e)
    # Every output is judged: the table shows the worst by rel L2, unless
    # another output fails (NaN poison left in it, or a large max rel), which
    # is then the one reported.
    if failing:
        errs = max(failing, key=lambda e: (e["nonfinite"] > 0, e["rel_l2"]))
    ok = not failing
    # A second launch on the same inputs must give the same bits (unless the
    # kernel adds with atomics): a difference means a race.
    rerun_diff = None
    if d.get("deterministic", True):
        first = [out.clone() for _, out in d["outputs"]]
        d["reset"]()
        call()
        sync()
        for a, (_, b) in zip(first, d["outputs"]):
            if not same_values(a, b):
                diff = float((a.double() - b.double()).abs().nan_to_num(
                    float("inf")).max().item())
                rerun_diff = max(rerun_diff or 0.0, diff)
        del first
    r = dict(base, status="PASS" if ok and rerun_diff is None else "FAIL",
             tol=list(tol), **errs)
    if rerun_diff is not None:
        r["rerun_diff"] = rerun_diff
    if r["status"] != "PASS":
        ok = False
        why = []
        if rerun_diff is not None:
            why.append("two launches on the same inputs differ (max %s): a "
                       "race?" % fmt_err(rerun_diff))
        if errs["nonfinite"]:
            why.append("%d non-finite elements in %s (NaN poison: unwritten?)"
                       % (errs["nonfinite"], errs["output"]))
        if errs["rel_l2"] > tol[0]:
            why.append("rel L2 %s > %.0e" % (fmt_err(errs["rel_l2"]), tol[0]))
        if errs["max_rel"] > tol[1]:
            why.append("max rel %s > %.0e" % (fmt_err(errs["max_rel"]),
                                             tol[1]))
        r["message"] = "; ".join(why)
    r["flops"], r["bytes"] = d.get("flops"), d.get("bytes")
    line = "  %-4s %-44s max_abs %-9s max_rel %-9s rel_l2 %-9s" % (
        r["status"], case.label, fmt_err(errs["max_abs"]),
        fmt_err(errs["max_rel"]), fmt_err(errs["rel_l2"]))
    if timing and case.small and not ctx.mock:
        pass  # small sizes check correctness (ragged edges) only
    elif timing and not ok:
        r["timing_skipped"] = "check failed"
    elif timing and time.time() < ctx.deadline:
        rec({"type": "progress", "config": cfg, "case": case.label,
             "what": "timing " + case.label})
        t = ctx.bench(call)
        r["tlc_ms"], r["tlc_reps"] = t["ms"], t["reps"]
        r["tlc_min_ms"], r["tlc_max_ms"] = t["min_ms"], t["max_ms"]
        vend = []
        for vname, vfn in d["vendors"].items():
            v = {"name": vname}
            try:
                vout = vfn()
                sync()
                if not d.get("vendor_no_error"):
                    v["rel_l2"] = compare(vout, refs[0])["rel_l2"]
                del vout
                tv = ctx.bench(vfn)
                v["ms"], v["reps"] = tv["ms"], tv["reps"]
            except Exception as e:  # noqa: BLE001 (vendor n/a: report it)
                v["error"] = str(e).splitlines()[0][:200]
            vend.append(v)
        r["vendors"] = vend
        if case.kind == "memory" and d.get("bytes"):
            # A copy of the same bytes, timed the same way (L2 flushed, one
            # launch per repetition): what the device reaches at this size,
            # launch latency and ramp included, next to the 1 GiB copy.
            half = max(1, int(d["bytes"] // 2))
            src = torch.empty(half, dtype=torch.uint8, device=DEV)
            dst = torch.empty_like(src)
            r["same_copy_ms"] = ctx.bench(lambda: dst.copy_(src))["ms"]
            del src, dst
        line += " | tlc %.4g ms%s" % (t["ms"], perf_text(r, t["ms"], ctx))
        best = best_vendor(r)
        if best:
            line += " | %s %.4g ms%s | %.2fx" % (
                best["name"], best["ms"], perf_text(r, best["ms"], ctx),
                best["ms"] / t["ms"])
    elif timing:
        r["timing_skipped"] = "time budget"
        line += " | timing skipped (time budget)"
    if not ok:
        line += "\n       " + r["message"]
    print(line, flush=True)
    rec(r)
    del d, call, refs


def mock_fault(spec, label, d):
    """--mock only, for testing this harness: TLC_E2E_MOCK_FAULT=KIND:REGEX
    makes the checks matching REGEX leave an element unwritten (wrong),
    change one element slightly in the first launch only (flaky), kill the
    worker (crash) or never return (hang)."""
    kind, _, rx = spec.partition(":")
    if not re.search(rx, label):
        return
    if kind == "wrong":
        out = d["outputs"][0][1]
        out[(-1,) * out.dim()] = float("nan")
    elif kind == "flaky":  # differs slightly from the second launch
        out = d["outputs"][0][1]
        out[(-1,) * out.dim()] *= 1.0 + 1e-6
    elif kind == "crash":
        os._exit(3)
    elif kind == "hang":
        time.sleep(1e6)


def best_vendor(r):
    vs = [v for v in r.get("vendors", []) if v.get("ms")]
    return min(vs, key=lambda v: v["ms"]) if vs else None


def perf_text(r, ms, ctx):
    s = ""
    if r.get("flops"):
        s += " %.1f TFLOP/s" % (r["flops"] / (ms * 1e-3) / 1e12)
    if r.get("bytes") and (not r.get("flops") or r["kind"] == "gemm"):
        gbs = r["bytes"] / (ms * 1e-3) / 1e9
        s += " %.0f GB/s" % gbs
        if ctx is not None and ctx.copy_gbs and r["kind"] != "attention":
            s += " (%.0f%% copy" % (100.0 * gbs / ctx.copy_gbs)
            if r.get("same_copy_ms"):
                s += ", %.0f%% same-size copy" % (100.0 * r["same_copy_ms"] /
                                                  ms)
            s += ")"
    return s


def load_config(gen, cfg, mock):
    d = os.path.join(gen, cfg)
    conf = read_kv(os.path.join(d, "CONFIG"))
    lib_path = os.path.join(d, "libtlc_e2e_%s.so" % cfg)
    lib = ct.CDLL(lib_path, mode=getattr(os, "RTLD_LOCAL", 0) |
                  getattr(os, "RTLD_NOW", 2))
    heads, kernels = {}, {}
    for h in kernel_headers(d):
        info = parse_header(h)
        heads[info["name"]] = info
        kernels[info["name"]] = Kernel(lib, info, mock=mock)
    return conf, heads, kernels


def die_with_parent():
    """A worker must not outlive the parent (e2e.sh's timeout kills the
    parent): PR_SET_PDEATHSIG = SIGKILL."""
    try:
        import signal
        ct.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)
    except Exception:  # noqa: BLE001 (not Linux: nothing to do)
        pass


def worker(args):
    die_with_parent()
    rec = Recorder(args.jsonl)
    try:
        init_torch(args.mock, cpu_ref=args.small)
    except Exception as e:  # noqa: BLE001
        rec({"type": "fatal", "message": "torch: %s" % e})
        print("harness: cannot initialize torch/CUDA: %s" % e)
        return 2
    ctx = Ctx(args)
    rec(env_record(ctx))
    timing = not (args.no_timing or args.small)
    if timing and args.copy_gbs:
        ctx.copy_gbs = args.copy_gbs  # measured by an earlier worker
    elif timing:
        try:
            ctx.copy_gbs = measure_copy(ctx)
            rec({"type": "copy", "gbs": ctx.copy_gbs})
            print("device copy bandwidth: %.0f GB/s (read + write)"
                  % ctx.copy_gbs)
        except Exception as e:  # noqa: BLE001
            print("copy bandwidth: %s" % e)
    case_re = re.compile(args.case) if args.case else None
    # After a crash the parent restarts us at the same configuration, past
    # the check that crashed (--resume-after LABEL).
    skipping = bool(args.resume_after)
    for cfg in args.configs.split(","):
        rec({"type": "start", "config": cfg})
        print("== %s" % cfg, flush=True)
        try:
            conf, heads, kernels = load_config(args.gen, cfg, args.mock)
            example = os.path.basename(conf.get("example", ""))
            builder = CASES_BY_EXAMPLE.get(example)
            if builder is None:
                raise RuntimeError("no checks for example %r" % example)
            cases = builder(cfg, heads)
        except Exception as e:  # noqa: BLE001
            msg = "%s: %s" % (type(e).__name__, e)
            print("  FAIL %s: %s" % (cfg, msg))
            rec({"type": "check", "config": cfg, "kernel": "-",
                 "check": cfg + " (load)", "status": "FAIL", "message": msg})
            rec({"type": "done", "config": cfg})
            continue
        for case in cases:
            if skipping:
                skipping = case.label != args.resume_after
                continue
            if (args.small or args.mock) and not case.small:
                continue  # --mock runs on the CPU: small sizes only
            if case_re and not case_re.search(case.label):
                continue
            base = {"type": "check", "config": cfg, "kernel": case.kernel,
                    "check": case.label, "kind": case.kind,
                    "small": case.small}
            if time.time() > ctx.deadline + args.grace and not case.small:
                print("  SKIP %s (time budget)" % case.label)
                rec(dict(base, status="SKIP", message="time budget"))
                continue
            rec({"type": "progress", "config": cfg, "case": case.label,
                 "what": case.label})
            kernel = kernels.get(case.kernel)
            if kernel is None:
                print("  FAIL %s: no kernel %s in %s" % (case.label,
                                                         case.kernel, cfg))
                rec(dict(base, status="FAIL", message="no kernel %s"
                         % case.kernel))
                continue
            try:
                run_case(ctx, kernel, case, timing, rec, cfg)
            except Exception as e:  # noqa: BLE001
                msg = "%s: %s" % (type(e).__name__, str(e).strip())
                print("  FAIL %s: %s" % (case.label, msg))
                if args.verbose:
                    traceback.print_exc()
                rec(dict(base, status="FAIL", message=msg[:2000]))
                if not cuda_healthy():
                    print("  CUDA context is broken; restarting the worker "
                          "after %s" % cfg, flush=True)
                    rec({"type": "crashed", "config": cfg,
                         "message": "CUDA context broken after " + case.label})
                    sys.stdout.flush()
                    os._exit(3)
            if DEV == "cuda":
                torch.cuda.empty_cache()
        skipping = False  # --resume-after applies to the first one only
        rec({"type": "done", "config": cfg})
    return 0


# --------------------------------------------------------------------------
# Parent: discovers configurations, runs workers, writes the report
# --------------------------------------------------------------------------


def discover(gen):
    """[(name, status, detail)] in prepare's order."""
    out = []
    for line in read_text(os.path.join(gen, "CONFIGS")).splitlines():
        parts = line.split(None, 2)
        if len(parts) < 2:
            continue
        name, status = parts[0], parts[1]
        d = os.path.join(gen, name)
        if status != "ok":
            out.append((name, "MISSING", "tlc failed to compile it "
                        "(gen-e2e/FAILED.txt)"))
        elif os.path.exists(os.path.join(d, "BUILD_FAILED")):
            log = read_text(os.path.join(d, "build.log"), 2000).strip()
            out.append((name, "MISSING", "stub library did not build: " +
                        " | ".join(log.splitlines()[:3])))
        elif not os.path.exists(os.path.join(d, "libtlc_e2e_%s.so" % name)):
            out.append((name, "MISSING", "no libtlc_e2e_%s.so (run e2e.sh "
                        "run, which builds it)" % name))
        else:
            out.append((name, "ok", ""))
    return out


def read_records(path):
    recs = []
    for line in read_text(path).splitlines():
        try:
            recs.append(json.loads(line))
        except ValueError:
            pass
    return recs


def run_workers(args, todo, jsonl):
    """Runs todo in workers; restarts after a crash or a hang."""
    resume_after, crashes, copy_gbs = None, {}, None
    while todo:
        if time.time() > args.deadline + args.grace:
            for cfg in todo:
                Recorder(jsonl)({"type": "check", "config": cfg,
                                 "kernel": "-", "check": cfg,
                                 "status": "SKIP", "message": "time budget "
                                 "spent after worker restarts"})
            return
        n_before = len(read_records(jsonl))
        cmd = [sys.executable, os.path.abspath(__file__), "--worker",
               "--configs", ",".join(todo), "--jsonl", jsonl,
               "--gen", args.gen, "--seed", str(args.seed),
               "--deadline", str(args.deadline), "--grace", str(args.grace)]
        for flag in ("small", "no_timing", "mock", "verbose"):
            if getattr(args, flag):
                cmd.append("--" + flag.replace("_", "-"))
        if args.case:
            cmd += ["--case", args.case]
        if resume_after:
            cmd += ["--resume-after", resume_after]
        if copy_gbs:
            cmd += ["--copy-gbs", str(copy_gbs)]
        proc = subprocess.Popen(cmd)
        last_size, last_change, hung = -1, time.time(), False
        while proc.poll() is None:
            time.sleep(0.5)
            try:
                size = os.path.getsize(jsonl)
            except OSError:
                size = 0
            if size != last_size:
                last_size, last_change = size, time.time()
            elif time.time() - last_change > args.hang_timeout:
                hung = True
                print("harness: no progress for %d s; killing the worker"
                      % args.hang_timeout, flush=True)
                proc.kill()
                proc.wait()
                break
        recs = read_records(jsonl)[n_before:]
        copy_gbs = copy_gbs or next((r["gbs"] for r in recs
                                     if r["type"] == "copy"), None)
        started = [r["config"] for r in recs if r["type"] == "start"]
        done = {r["config"] for r in recs if r["type"] == "done"}
        if any(r["type"] == "fatal" for r in recs) or not started:
            fatal = [r["message"] for r in recs if r["type"] == "fatal"]
            for cfg in todo:
                if cfg not in done:
                    Recorder(jsonl)({"type": "check", "config": cfg,
                                     "kernel": "-", "check": cfg,
                                     "status": "FAIL",
                                     "message": "worker failed before "
                                     "running it (exit %s)%s" % (
                                         proc.returncode,
                                         ": " + fatal[0] if fatal else "")})
            return
        unfinished = [c for c in started if c not in done]
        if not unfinished:
            return  # every configuration ran
        bad = unfinished[0]
        last = [r for r in recs if r.get("config") == bad and
                r["type"] == "progress"]
        where = last[-1]["what"] if last else "loading"
        crashed_case = last[-1].get("case") if last else None
        why = ("hung (no progress for %d s)" % args.hang_timeout if hung else
               "worker exited with %s" % proc.returncode)
        if not any(r["type"] == "crashed" and r["config"] == bad
                   for r in recs):
            Recorder(jsonl)({"type": "check", "config": bad, "kernel": "-",
                             "check": crashed_case or where, "status": "FAIL",
                             "message": "%s during %s" % (why, where)})
        crashes[bad] = crashes.get(bad, 0) + 1
        if crashed_case and crashes[bad] >= 2:
            print("harness: %s crashed twice; skipping its other checks"
                  % bad, flush=True)
            Recorder(jsonl)({"type": "check", "config": bad, "kernel": "-",
                             "check": bad + " (rest)", "status": "FAIL",
                             "message": "checks after %s not run: the "
                             "configuration crashed twice" % crashed_case})
            todo, resume_after = todo[todo.index(bad) + 1:], None
        elif crashed_case:
            print("harness: %s %s during %s; going on after it" % (
                bad, why, where), flush=True)
            todo, resume_after = todo[todo.index(bad):], crashed_case
        else:
            print("harness: %s %s during %s; going on with the next "
                  "configuration" % (bad, why, where), flush=True)
            todo, resume_after = todo[todo.index(bad) + 1:], None


def md_num(x, f="%.3g"):
    if x is None:
        return ""
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return f % x


def resource_tables(gen, names):
    lines = []
    rows, res_rows, sass_rows = [], [], []
    for cfg in names:
        d = os.path.join(gen, cfg)
        conf = read_kv(os.path.join(d, "CONFIG"))
        heads = {}
        if os.path.isdir(d):
            for h in kernel_headers(d):
                try:
                    info = parse_header(h)
                    if not info["operation"]:
                        heads["tlc_" + info["name"]] = info
                except (ValueError, OSError):
                    pass
        bins = {}
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.endswith(".bin"):
                    bins["tlc_" + f[:-4]] = os.path.getsize(
                        os.path.join(d, f))
        ptx = parse_ptxas(read_text(os.path.join(d, "ptxas.txt")))
        entries = sorted(set(ptx) | set(heads))
        for e in entries:
            p, h = ptx.get(e, {}), heads.get(e, {})
            rows.append("| %s | %s | %s | %s | %s / %s | %s | %s | %s | %s | "
                        "%s | %s |" % (
                            cfg, e, h.get("threads", ""), p.get("regs", ""),
                            p.get("spill_st", ""), p.get("spill_ld", ""),
                            p.get("stack", ""), p.get("smem", ""),
                            p.get("barriers", ""), h.get("shared", ""),
                            bins.get(e, ""), conf.get("tlc_seconds", "")))
        if os.path.isdir(d):
            for f in sorted(os.listdir(d)):
                if f.endswith(".res.txt"):
                    for fn, u in parse_res_usage(
                            read_text(os.path.join(d, f))).items():
                        res_rows.append("| %s | %s | %s | %d | %d | %d | %d |"
                                        % (cfg, f[:-8], fn, u["regs"],
                                           u["stack"], u["smem"], u["local"]))
            sass_files = [f for f in sorted(os.listdir(d))
                          if f.endswith(".bin.sass")]
            if not sass_files:
                sass_files = [f for f in sorted(os.listdir(d))
                              if f.endswith(".cubin.sass")]
            for f in sass_files:
                for fn, counts in parse_sass(
                        read_text(os.path.join(d, f))).items():
                    cells = [str(sum(counts.get(o, 0) for o in ops))
                             for _, ops in SASS_GROUPS]
                    sass_rows.append("| %s | %s | %s | %s | %d |" % (
                        cfg, f[:-5], fn, " | ".join(cells),
                        sum(counts.values())))
    lines += ["## Resources: ptxas -v (tlc -emit=ptx, ptxas -arch=sm_90a)", "",
              "threads and dynamic shared memory from the stub header; "
              "static smem from ptxas; binary = bytes embedded in the stub; "
              "tlc s = compile time of the configuration.", "",
              "| config | entry | threads | regs | spill st / ld (B) | "
              "stack (B) | static smem (B) | barriers | dyn smem (B) | "
              "binary (B) | tlc s |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    lines += rows or ["| (no ptxas reports) |||||||||||"]
    lines.append("")
    if res_rows:
        lines += ["## Resources of the binaries (cuobjdump "
                  "--dump-resource-usage)", "",
                  "| config | file | function | REG | STACK | SHARED | LOCAL |",
                  "|---|---|---|---|---|---|---|"] + res_rows + [""]
    if sass_rows:
        lines += ["## SASS instruction mix (cuobjdump --dump-sass; "
                  "TMA = UTMALDG/UBLKCP/UTMASTG)", "",
                  "| config | file | function | " +
                  " | ".join(g for g, _ in SASS_GROUPS) + " | total |",
                  "|---|---|---|" + "---|" * (len(SASS_GROUPS) + 1)]
        lines += sass_rows + [""]
    return lines


def write_report(args, configs, recs, path_md, path_json):
    commit = read_kv(os.path.join(args.gen, "COMMIT"))
    env = next((r for r in recs if r["type"] == "env"), {})
    copy = next((r["gbs"] for r in recs if r["type"] == "copy"), None)
    checks = [r for r in recs if r["type"] == "check"]

    class C:  # perf_text wants a ctx with copy_gbs
        copy_gbs = copy

    n_pass = sum(r["status"] == "PASS" for r in checks)
    n_fail = sum(r["status"] in ("FAIL", "MISSING") for r in checks)
    n_skip = sum(r["status"] == "SKIP" for r in checks)
    L = ["# tlc CUDA end-to-end results", "",
         "- date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime(
             "%Y-%m-%d %H:%M UTC"),
         "- commit: %s%s (%s); prepared %s" % (
             commit.get("commit", "unknown"),
             "" if commit.get("dirty", "no") == "no" else " + uncommitted "
             "changes", commit.get("subject", ""), commit.get("date", "?")),
         "- tlc: %s; ptxas: %s; arch %s" % (commit.get("tlc", "?"),
                                           commit.get("ptxas", "?"),
                                           commit.get("arch", "?")),
         "- GPU: %s (%s SMs, %s GiB, cc %s); nvidia-smi: %s" % (
             env.get("gpu", env.get("device", "?")), env.get("sms", "?"),
             env.get("mem_gb", "?"), env.get("capability", "?"),
             env.get("nvidia_smi", "?")),
         "- torch %s, CUDA %s; mode: %s%s" % (
             env.get("torch", "?"), env.get("cuda", "?"),
             "small" if args.small else "full",
             ", no timing" if (args.no_timing or args.small) else ""),
         "- device copy bandwidth (torch copy_, 1 GiB, read + write): %s" % (
             "%.0f GB/s" % copy if copy else "not measured"),
         "- timing: CUDA events, L2 flushed (256 MiB memset) before each "
         "repetition, median of `reps` after warm-up; speed = vendor time / "
         "tlc time (> 1: tlc faster), against the fastest vendor path",
         "- errors against float64 torch (attention: SDPA float32); max rel "
         "= max|out - ref| / max|ref|; rel L2 = ||out - ref|| / ||ref||",
         "", "**%d passed, %d failed, %d skipped**" % (n_pass, n_fail, n_skip),
         "",
         "| config | check | result | max abs | max rel | rel L2 | tol (L2, "
         "max) | tlc ms | tlc | vendor | vendor ms | vendor | speed | "
         "vendor rel L2 | reps |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in checks:
        best = best_vendor(r)
        tl = r.get("tol")
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | "
                 "%s | %s | %s | %s |" % (
                     r["config"], r["check"], "**%s**%s" % (
                         r["status"], " (%d non-finite)" % r["nonfinite"]
                         if r.get("nonfinite") else "")
                     if r["status"] != "PASS" else "PASS",
                     md_num(r.get("max_abs")), md_num(r.get("max_rel")),
                     md_num(r.get("rel_l2")),
                     "%.0e, %.0e" % tuple(tl) if tl else "",
                     md_num(r.get("tlc_ms"), "%.4g"),
                     perf_text(r, r["tlc_ms"], C).strip()
                     if r.get("tlc_ms") else r.get("timing_skipped", ""),
                     best["name"] if best else "",
                     md_num(best["ms"], "%.4g") if best else "",
                     perf_text(r, best["ms"], C).strip() if best else "",
                     "%.2fx" % (best["ms"] / r["tlc_ms"])
                     if best and r.get("tlc_ms") else "",
                     md_num(best.get("rel_l2")) if best else "",
                     r.get("tlc_reps", "")))
    other_vendors = [(r, v) for r in checks for v in r.get("vendors", [])
                     if v is not best_vendor(r)]
    if other_vendors:
        L += ["", "Other vendor paths:", "",
              "| check | vendor | ms | perf | rel L2 |", "|---|---|---|---|---|"]
        for r, v in other_vendors:
            L.append("| %s | %s | %s | %s | %s |" % (
                r["check"], v["name"], md_num(v.get("ms"), "%.4g"),
                perf_text(r, v["ms"], C).strip() if v.get("ms") else
                v.get("error", ""), md_num(v.get("rel_l2"))))
    bad = [r for r in checks if r["status"] != "PASS"]
    if bad:
        L += ["", "## Failures and skips", ""]
        for r in bad:
            L.append("- %s / %s: **%s** %s" % (
                r["config"], r["check"], r["status"],
                r.get("message", "").replace("\n", " ")[:600]))
    failed_txt = read_text(os.path.join(args.gen, "FAILED.txt"), 12000)
    if failed_txt.strip():
        L += ["", "## Compile failures (gen-e2e/FAILED.txt)", "", "```",
              failed_txt.rstrip(), "```"]
    L.append("")
    L += resource_tables(args.gen, [c for c, _, _ in configs])
    with open(path_md, "w") as f:
        f.write("\n".join(L) + "\n")
    with open(path_json, "w") as f:
        json.dump({"commit": commit, "env": env, "copy_gbs": copy,
                   "checks": checks}, f, indent=1)
    return n_pass, n_fail, n_skip


def main_parent(args):
    out = args.out or os.environ.get("OUT") or os.path.join(args.gen, "out")
    os.makedirs(out, exist_ok=True)
    configs = discover(args.gen)
    if not configs:
        print("harness: no configurations in %s/CONFIGS (run e2e.sh prepare)"
              % args.gen)
    if args.only:
        rx = re.compile(args.only)
        configs = [c for c in configs if rx.search(c[0])]
    jsonl = os.path.join(out, "records.jsonl.tmp")
    if os.path.exists(jsonl):
        os.remove(jsonl)
    rec = Recorder(jsonl)
    for name, status, detail in configs:
        if status != "ok":
            print("== %s\n  FAIL MISSING: %s" % (name, detail))
            rec({"type": "check", "config": name, "kernel": "-",
                 "check": name, "status": "MISSING", "message": detail})
    todo = [c for c, s, _ in configs if s == "ok"]
    args.deadline = time.time() + args.budget
    if todo:
        run_workers(args, todo, jsonl)
    recs = read_records(jsonl)
    os.remove(jsonl)
    n_pass, n_fail, n_skip = write_report(
        args, configs, recs, os.path.join(out, "results.md"),
        os.path.join(out, "results.json"))
    checks = [r for r in recs if r["type"] == "check"]
    print("\n== summary")
    w = max([len(r["check"]) for r in checks] + [10])
    for r in checks:
        best = best_vendor(r)
        extra = ""
        if r.get("tlc_ms"):
            extra = "tlc %.4g ms" % r["tlc_ms"]
            if best:
                extra += ", %.2fx %s" % (best["ms"] / r["tlc_ms"],
                                         best["name"])
        print("%-7s %-16s %-*s %s" % (r["status"], r["config"], w, r["check"],
                                      extra))
    print("%d passed, %d failed, %d skipped" % (n_pass, n_fail, n_skip))
    print("results: %s" % os.path.join(out, "results.md"))
    return 1 if (n_fail or not checks) else 0


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gen", default=os.path.join(HERE, "gen-e2e"),
                    help="prepare's output (default: bench/cuda/gen-e2e)")
    ap.add_argument("--out", help="where results.md goes (default: $OUT, "
                    "else GEN/out)")
    ap.add_argument("--only", help="run the configurations matching REGEX")
    ap.add_argument("--case", help="run the checks whose label matches REGEX")
    ap.add_argument("--small", action="store_true",
                    help="small sizes only, no timing (for compute-sanitizer)")
    ap.add_argument("--no-timing", action="store_true",
                    help="check correctness only")
    ap.add_argument("--budget", type=float, default=240.0,
                    help="seconds after which timing stops (default 240)")
    ap.add_argument("--grace", type=float, default=60.0,
                    help="seconds past the budget after which large checks "
                    "are skipped (default 60)")
    ap.add_argument("--hang-timeout", type=float, default=120.0,
                    help="kill a worker silent for this long (default 120)")
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--verbose", action="store_true",
                    help="print tracebacks of failed checks")
    ap.add_argument("--check-abi", action="store_true",
                    help=argparse.SUPPRESS)
    ap.add_argument("--extract-binaries", action="store_true",
                    help=argparse.SUPPRESS)
    ap.add_argument("--mock", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--configs", help=argparse.SUPPRESS)
    ap.add_argument("--jsonl", help=argparse.SUPPRESS)
    ap.add_argument("--resume-after", help=argparse.SUPPRESS)
    ap.add_argument("--copy-gbs", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--deadline", type=float, default=0.0,
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.gen = os.path.abspath(args.gen)
    if args.check_abi:
        return check_abi()
    if args.extract_binaries:
        return extract_binaries(args.gen)
    if args.worker:
        return worker(args)
    return main_parent(args)


if __name__ == "__main__":
    sys.exit(main())
