#!/usr/bin/env bash
# The GPU half of `make bench`: gpulab's real runs beside PyTorch's, taken on
# the same machine in the same run, as ratios. Usage: bench/gpu.sh BUILD
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/bin/gpulab"
transfer=$("$bin" run transfer --backend cuda --json)
timing=$("$bin" run timing --backend cuda --size 2048 --json)
declare -A tf
for n in 256 1024 2048 4096; do tf[$n]=$("$bin" run timing --backend cuda --size $n --json); done
torch=$(python3 bench/torch_peer.py)
python3 - "$transfer" "$timing" "$torch" "${tf[256]}" "${tf[1024]}" "${tf[2048]}" "${tf[4096]}" <<'PY'
import json, sys
tr, ti, to = (json.loads(a) for a in sys.argv[1:4])
tfl = [json.loads(a) for a in sys.argv[4:8]]
m, t = tr["metrics"], ti["metrics"]
if "error" in to:
    print(f"  PyTorch peer unavailable: {to['error']}")
    to = {}
def row(label, ours, peer, unit):
    ratio = f"{ours / peer:6.2f}x" if peer else "     -"
    print(f"  {label:34s} {ours:10.3f} {unit:6s} torch {peer if peer else float('nan'):10.3f}  gpulab/torch {ratio}")
print(f"GPU bench on {tr['device']['name']} (torch {to.get('torch', '-')}); events, median of samples")
for k in ("h2d_pinned_gbps", "h2d_pageable_gbps", "d2h_pinned_gbps", "d2h_pageable_gbps"):
    row(k, m[k], to.get(k), "GB/s")
best = max(m["h2d_pinned_gbps"], to.get("best_h2d_gbps", 0))
print(f"  pinned H2D as a share of the best copy seen on this machine: {100 * m['h2d_pinned_gbps'] / best:.1f}% (best {best:.2f} GB/s)")
row("launch overhead", t["launch_us"], to.get("launch_us"), "us")
for env in tfl:
    n = env["params"]["size"]
    row(f"sgemm fp32 N={n}", env["metrics"]["tflops"], (to.get("sgemm_tflops") or {}).get(str(n)), "TFLOPS")
PY
