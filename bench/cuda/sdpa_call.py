#!/usr/bin/env python3
"""Runs torch's SDPA three times on random bf16 inputs, for Nsight Compute
(bench/cuda/profile.sh cmd NAME REGEX 2 python3 sdpa_call.py ...): the
third call's kernel is the one to profile.

  sdpa_call.py B H S D [causal] [cudnn|flash] [bwd]

With bwd each call is a backward (torch.autograd.grad) after one forward.
"""
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

B, H, S, D = (int(x) for x in sys.argv[1:5])
flags = set(sys.argv[5:])
backend = (SDPBackend.FLASH_ATTENTION if "flash" in flags
           else SDPBackend.CUDNN_ATTENTION)
q, k, v, do = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16)
               for _ in range(4))
with sdpa_kernel([backend]):
    if "bwd" in flags:
        q, k, v = (t.requires_grad_() for t in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v,
                                             is_causal="causal" in flags)
        for _ in range(3):
            torch.autograd.grad(out, (q, k, v), do, retain_graph=True)
    else:
        for _ in range(3):
            F.scaled_dot_product_attention(q, k, v,
                                           is_causal="causal" in flags)
torch.cuda.synchronize()
