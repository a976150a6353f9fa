#!/usr/bin/env bash
# profile.sh - Nsight Compute profiles of one GEMM shape: cuBLAS (through
# torch) and one prepared tlc configuration, side by side.
#
#   bash bench/cuda/profile.sh CFG M N K [layout]   # GPU machine, after
#                                                   # e2e.sh prepare
#   bash bench/cuda/profile.sh cmd NAME REGEX SKIP COMMAND...
#       # any other kernel: the first launch after SKIP launches whose name
#       # matches REGEX while COMMAND runs (fa_bwd.sh profile uses it)
#
# layout: "nn" (C = A @ B, torch.matmul) or "nt" (C = A @ W^T, F.linear);
# the dtype is the configuration's. For each kernel it writes under
# $OUT (or gen-e2e/out): NAME.txt (launch, speed of light, occupancy,
# warp states, scheduler) and NAME-stalls.txt (the SASS instructions with
# the most warp-stall samples, with the stall reasons). Needs ncu.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
gen="${E2E_GEN:-$here/gen-e2e}"
out="${OUT:-$gen/out}"
mkdir -p "$out"
sections=(--section LaunchStats --section SpeedOfLight --section Occupancy
  --section WarpStateStats --section SchedulerStats
  --section SourceCounters --section MemoryWorkloadAnalysis)

profile() { # NAME KERNEL-REGEX LAUNCH-SKIP COMMAND...
  local name="$1" regex="$2" skip="$3"
  shift 3
  ncu --kernel-name "regex:$regex" --launch-skip "$skip" --launch-count 1 \
    "${sections[@]}" --import-source no -f -o "$out/$name" "$@" \
    >"$out/$name.log" 2>&1
  ncu -i "$out/$name.ncu-rep" --print-units base >"$out/$name.txt" 2>&1
  ncu -i "$out/$name.ncu-rep" --page source --print-source sass --csv \
    >"$out/$name-source.csv" 2>/dev/null
  python3 - "$out/$name-source.csv" >"$out/$name-stalls.txt" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
head = next((i for i, r in enumerate(rows) if "Source" in r), None)
if head is None:
    print("no source page"); sys.exit()
cols = rows[head]
data = [dict(zip(cols, r)) for r in rows[head + 1:] if len(r) == len(cols)]
key = next((c for c in cols if c.startswith("Warp Stall Sampling (All")), None)
if key is None:
    print("columns:", cols); sys.exit()
num = lambda v: float(v.replace(",", "") or 0)
total = sum(num(d[key]) for d in data) or 1
reasons = [c for c in cols if c.startswith("stall_") or "Stall" in c and c != key]
print("samples: %d" % total)
for d in sorted(data, key=lambda d: -num(d[key]))[:40]:
    top = sorted(((num(d[c]), c) for c in reasons if c in d and d[c]), reverse=True)[:3]
    print("%5.1f%%  %-60s %s" % (100 * num(d[key]) / total, d["Source"][:60],
          ", ".join("%s %d" % (c, v) for v, c in top if v)))
PY
  echo "== $name"; grep -E "^  [a-z_]+.*\(|Duration|Elapsed Cycles|Throughput|Registers|Cluster|Block Size|Grid Size|Shared Memory Config|Issued Warp|Warp Cycles Per Issued" "$out/$name.txt" | head -n 30
  head -n 15 "$out/$name-stalls.txt"
}
if [ "${1:-}" = cmd ]; then
  shift
  profile "$@"
  exit 0
fi
cfg="$1" M="$2" N="$3" K="$4" layout="${5:-nn}"
dtype="$(sed -n 's/.*T=\([a-z0-9]*\).*/\1/p' "$gen/$cfg/CONFIG" | head -n 1)"
kernel=gemm
[ "$layout" = nt ] && kernel=linear
# cuBLAS: the one kernel of the third call (after warm-up).
cat >"$out/cublas_call.py" <<PY
import torch, torch.nn.functional as F
t = getattr(torch, "$dtype" if "$dtype" != "f16" else "float16") \
    if "$dtype" != "bf16" else torch.bfloat16
a = torch.randn($M, $K, device="cuda", dtype=t)
if "$layout" == "nt":
    w = torch.randn($N, $K, device="cuda", dtype=t)
    for _ in range(3): F.linear(a, w)
else:
    b = torch.randn($K, $N, device="cuda", dtype=t)
    for _ in range(3): torch.matmul(a, b)
torch.cuda.synchronize()
PY
profile cublas "gemm|nvjet|xmma|cutlass|sm90" 2 python3 "$out/cublas_call.py"
profile "tlc_$cfg" "tlc_" 0 python3 "$here/harness.py" --gen "$gen" \
  --only "^$cfg\$" --case "$kernel $dtype ${M}x${N}x${K}\$" --no-timing \
  --out "$out/harness-profile"
