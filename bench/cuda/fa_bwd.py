#!/usr/bin/env python3
"""FlashAttention backward of examples/flash_attention_bwd.tl on a GPU.

For each configuration prepared by fa_bwd.sh: random Q, K, V, dO (fresh per
size, outputs poisoned with NaN), the forward for O and L, the backward's
three kernels, then dQ, dK, dV (and O, L) against torch autograd in float64,
as max |out - ref| / max |ref|. With --time, B x H x S x D = 8 x 16 x 4096 x D
and 4 x 16 x 4096 x D against torch's fastest SDPA backward in the same run
(each of the flash, cuDNN and efficient backends that runs), CUDA events,
median of 20. FLOPs counted as 2.5 forwards (4 S^2 D per head, halved when
causal). Exit status 1 when a check fails. With --profile (under ncu, see
fa_bwd.sh profile), no checks: each configuration runs the forward, the
preprocess and the main kernel once at 8 x 16 x 4096 x D.
"""
import argparse
import math
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", ".."))
sys.path.insert(0, here)
import harness as H  # noqa: E402

TOL = {"bf16": 2e-2, "f16": 1e-2, "f32": 1e-4}


def ref_grads(torch, Q, K, V, dO, causal):
    q, k, v = (t.detach().double().requires_grad_() for t in (Q, K, V))
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        S = q.shape[-2]
        mask = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
        s = s.masked_fill(mask, float("-inf"))
    o = torch.softmax(s, -1) @ v
    lse = torch.logsumexp(s, -1)
    o.backward(dO.double())
    return o.detach(), lse.detach(), q.grad, k.grad, v.grad


def max_rel(torch, out, ref):
    o = out.double()
    if not torch.isfinite(o).all():
        return float("nan")  # NaN poison left: something was not written
    m = ref.abs().max().item()
    return (o - ref).abs().max().item() / (m if m > 0 else 1.0)


def events_ms(torch, fn, reps=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--gen", required=True)
    p.add_argument("--small", action="store_true")
    p.add_argument("--time", action="store_true")
    p.add_argument("--profile", action="store_true")
    p.add_argument("configs", nargs="*")
    args = p.parse_args()
    H.init_torch(False)
    torch, F = H.torch, H.F
    out_dir = os.environ.get("OUT") or os.path.join(args.gen, "out")
    os.makedirs(out_dir, exist_ok=True)
    log = open(os.path.join(out_dir, "fa_bwd.txt"), "w")

    def say(text):
        print(text, flush=True)
        log.write(text + "\n")

    cfgs = sorted(c for c in os.listdir(args.gen)
                  if os.path.isfile(os.path.join(args.gen, c, "CONFIG"))
                  and (not args.configs or c in args.configs))
    builds = []
    for cfg in cfgs:
        d = os.path.join(args.gen, cfg)
        srcs = [os.path.join(d, f) for f in sorted(os.listdir(d))
                if f.endswith(".tlc.cpp")]
        builds.append(subprocess.Popen(
            ["g++", "-std=c++17", "-O1", "-fPIC", "-shared", "-Wl,-Bsymbolic",
             "-I" + os.path.join(root, "include"), "-I" + d] + srcs +
            ["-o", os.path.join(d, "libtlc_e2e_%s.so" % cfg), "-ldl",
             "-pthread"]))
    if any(b.wait() != 0 for b in builds):
        say("FAIL: a configuration did not build")
        return 1
    say("commit %s" % open(os.path.join(args.gen, "COMMIT")).read().strip()
        if os.path.exists(os.path.join(args.gen, "COMMIT")) else "commit ?")
    fails = 0
    for cfg in cfgs:
        conf, heads, kern = H.load_config(args.gen, cfg, False)
        T = heads["flash_attn_bwd"]["argdoc"]["Q"]["dtype"]
        D = int(heads["flash_attn_bwd_preprocess"]["params"]["D"])
        causal = "Causal=true" in conf["defines"]
        dt = H.TORCH_DTYPES[T]
        say("== %s: %s" % (cfg, conf["defines"]))
        if args.profile:
            B, Hh, S = 8, 16, 4096
            Q, K, V, dO = (torch.randn(B, Hh, S, D, device="cuda").to(dt)
                           for _ in range(4))
            O, dQ, dK, dV = (torch.empty_like(Q) for _ in range(4))
            L = torch.empty(B, Hh, S, device="cuda")
            Delta = torch.empty_like(L)
            dQacc = torch.empty(B, Hh, S, D, device="cuda")
            kern["flash_attn_fwd"].prepare([Q, K, V, O, L])()
            kern["flash_attn_bwd_preprocess"].prepare([O, dO, Delta, dQacc])()
            kern["flash_attn_bwd"].prepare(
                [Q, K, V, dO, L, Delta, dQacc, dK, dV])()
            torch.cuda.synchronize()
            continue
        sizes = [(1, 1, 1), (1, 2, 77), (2, 3, 300), (1, 1, 128)]
        if not args.small:
            sizes += [(2, 8, 1000)]
        for (B, Hh, S) in sizes:
            g = torch.Generator(device="cuda")
            g.manual_seed(B * 1000003 + Hh * 1009 + S)

            def rand():
                return torch.randn(B, Hh, S, D, generator=g,
                                   device="cuda").to(dt)

            def poisoned(shape, dtype=torch.float32):
                return torch.full(shape, float("nan"), device="cuda",
                                  dtype=dtype)

            Q, K, V, dO = rand(), rand(), rand(), rand()
            O = poisoned((B, Hh, S, D), dt)
            L = poisoned((B, Hh, S))
            Delta = poisoned((B, Hh, S))
            dQacc = poisoned((B, Hh, S, D))
            dQ, dK, dV = (poisoned((B, Hh, S, D), dt) for _ in range(3))
            for call in [
                    kern["flash_attn_fwd"].prepare([Q, K, V, O, L]),
                    kern["flash_attn_bwd_preprocess"].prepare(
                        [O, dO, Delta, dQacc]),
                    kern["flash_attn_bwd"].prepare(
                        [Q, K, V, dO, L, Delta, dQacc, dK, dV]),
                    kern["flash_attn_bwd_dq"].prepare([dQacc, dQ])]:
                call()
            torch.cuda.synchronize()
            o, lse, gq, gk, gv = ref_grads(torch, Q, K, V, dO, causal)
            errs = {"O": max_rel(torch, O, o), "L": max_rel(torch, L, lse),
                    "dQ": max_rel(torch, dQ, gq), "dK": max_rel(torch, dK, gk),
                    "dV": max_rel(torch, dV, gv)}
            ok = all(e <= TOL[T] for e in errs.values())  # NaN fails
            fails += not ok
            say("  %s %dx%dx%dx%d %s" % (
                "PASS" if ok else "FAIL", B, Hh, S, D,
                " ".join("%s=%.2e" % kv for kv in errs.items())))
        if not args.time or T == "f32":
            continue
        from torch.nn.attention import SDPBackend, sdpa_kernel
        for (B, Hh, S) in [(8, 16, 4096), (4, 16, 4096)]:
            def rand():
                return torch.randn(B, Hh, S, D, device="cuda").to(dt)
            Q, K, V, dO = rand(), rand(), rand(), rand()
            O, dQ, dK, dV = (torch.empty_like(Q) for _ in range(4))
            L = torch.empty(B, Hh, S, device="cuda")
            Delta = torch.empty_like(L)
            dQacc = torch.empty(B, Hh, S, D, device="cuda")
            kern["flash_attn_fwd"].prepare([Q, K, V, O, L])()
            pre = kern["flash_attn_bwd_preprocess"].prepare(
                [O, dO, Delta, dQacc])
            main_ = kern["flash_attn_bwd"].prepare(
                [Q, K, V, dO, L, Delta, dQacc, dK, dV])
            dq = kern["flash_attn_bwd_dq"].prepare([dQacc, dQ])

            def tlc_bwd():
                pre()
                main_()
                dq()
            t_tlc = events_ms(torch, tlc_bwd)
            t_main = events_ms(torch, main_)
            flops = 2.5 * 4.0 * B * Hh * S * S * D * (0.5 if causal else 1.0)
            vendor = {}
            for name, be in [("flash", SDPBackend.FLASH_ATTENTION),
                             ("cudnn", SDPBackend.CUDNN_ATTENTION),
                             ("efficient", SDPBackend.EFFICIENT_ATTENTION)]:
                try:
                    q, k, v = (t.detach().requires_grad_() for t in (Q, K, V))
                    with sdpa_kernel([be]):
                        out = F.scaled_dot_product_attention(
                            q, k, v, is_causal=causal)

                    def torch_bwd(out=out, q=q, k=k, v=v):
                        torch.autograd.grad(out, (q, k, v), dO,
                                            retain_graph=True)
                    vendor[name] = events_ms(torch, torch_bwd)
                except Exception as e:  # noqa: BLE001 (a backend may not run)
                    say("  (SDPA %s backward does not run: %s)" %
                        (name, str(e).splitlines()[0][:80]))
            best = min(vendor, key=vendor.get)
            say("  time %dx%dx%dx%d: tlc bwd %.3f ms (main kernel %.3f) "
                "%.0f TFLOP/s | SDPA %s %s | fastest %s: %.2fx" % (
                    B, Hh, S, D, t_tlc, t_main, flops / t_tlc / 1e9,
                    ", ".join("%s %.3f ms %.0f TFLOP/s" % (
                        n, t, flops / t / 1e9) for n, t in vendor.items()),
                    "", best, vendor[best] / t_tlc))
    say("FAILURES: %d" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
