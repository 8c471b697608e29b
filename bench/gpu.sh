#!/usr/bin/env bash
# The GPU half of `make bench`: gpulab's real runs beside PyTorch's, taken by
# the measurement kit (kit/measure.py) on the same machine in the same run,
# as ratios. Usage: bench/gpu.sh BUILD
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/bin/gpulab"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" run transfer --backend cuda --json >"$tmp/transfer.json"
"$bin" run timing --backend cuda --size 2048 --json >"$tmp/timing.json"
for n in 256 1024 2048 4096; do "$bin" run timing --backend cuda --size $n --json >"$tmp/timing_$n.json"; done
python3 kit/measure.py --only transfer,timing,precision --out "$tmp/kit.json" >"$tmp/kit.log" 2>&1 || true
python3 - "$tmp" <<'PY'
import json, os, sys
tmp = sys.argv[1]
load = lambda name: json.load(open(os.path.join(tmp, name)))
tr, ti = load("transfer.json"), load("timing.json")
try:
    kit = {r["experiment"]: r for r in load("kit.json")["results"]}
except (OSError, ValueError, KeyError) as e:
    print(f"  PyTorch side unavailable (measurement kit: {e.__class__.__name__}; see its log)")
    kit = {}
km = lambda exp, key: (kit.get(exp) or {}).get("metrics", {}).get(key)
def row(label, ours, peer, unit):
    ratio = f"{ours / peer:6.2f}x" if peer else "     -"
    print(f"  {label:34s} {ours:10.3f} {unit:6s} torch {peer if peer else float('nan'):10.3f}  gpulab/torch {ratio}")
print(f"GPU bench on {tr['device']['name']}; events, median of samples (PyTorch by the measurement kit)")
for k in ("h2d_pinned_gbps", "h2d_pageable_gbps", "d2h_pinned_gbps", "d2h_pageable_gbps"):
    row(k, tr["metrics"][k], km("transfer", k), "GB/s")
row("launch overhead", ti["metrics"]["launch_us"], km("timing", "launch_us"), "us")
fp32 = {p[0]: p[1] for s in (kit.get("precision") or {}).get("series", []) if s["id"] == "tflops_fp32" for p in s["points"]}
for n in (256, 1024, 2048, 4096):
    env = load(f"timing_{n}.json")
    row(f"sgemm fp32 N={n}", env["metrics"]["tflops"], fp32.get(n), "TFLOPS")
PY
