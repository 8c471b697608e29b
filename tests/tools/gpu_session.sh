#!/usr/bin/env bash
# The GPU session kit (tools/gpu_session.sh, bench/gpu_compare.py) checked
# here without a GPU: it travels in the bundle, and the comparison finds
# every figure it pairs in the experiments' envelopes (simulated runs stand
# in for real ones, a made-up PyTorch answer for the peer's), so a renamed
# metric breaks this test instead of a GPU session. TAP output.
# Usage: gpu_session.sh BUILD/bin/lessonc
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
build=$(dirname "$(dirname "${1:-build/bin/lessonc}")")
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
n=0 bad=0
ok() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; bad=1; fi; }
echo "1..6"
tools/bundle.sh "$build" "$dir/b" >/dev/null 2>&1
ok "the kit travels in the bundle" '[ -x "$dir/b/tools/gpu_session.sh" ] && [ -f "$dir/b/bench/torch_peer.py" ] && [ -f "$dir/b/bench/gpu_compare.py" ] && [ -f "$dir/b/bench/cold_peer.py" ]'
ok "the lesson claims and their runner travel in the bundle" '[ -x "$dir/b/bin/claimcheck" ] && [ -s "$dir/b/claims.json" ] && "$dir/b/bin/claimcheck" --help >/dev/null'
out=$dir/out; mkdir -p "$out/runs" "$out/sim"
for name in $("$build/bin/gpulab" experiments --names); do
  "$build/bin/gpulab" run "$name" --backend simulated --profile a100-sxm --json >"$out/runs/$name.json"
  "$build/bin/gpulab" run "$name" --backend simulated --profile h100-sxm --json >"$out/sim/$name.json"
done
# A peer that reads 5 % slower than every paired figure.
python3 - "$out" <<'PY'
import json, sys, os
sys.path.insert(0, "bench")
from gpu_compare import PAIRS
root = sys.argv[1]
peer = {"torch": "test", "cuda": "test"}
for exp, key, path, unit, why in PAIRS:
    v = json.load(open(os.path.join(root, "runs", exp + ".json")))["metrics"].get(key)
    if v is None:
        continue
    node = peer
    parts = path.split(".")
    for p in parts[:-1]:
        node = node.setdefault(p, {})
    node[parts[-1]] = v / 1.05
json.dump(peer, open(os.path.join(root, "torch.json"), "w"))
PY
python3 bench/gpu_compare.py "$out" h100-sxm >"$out/compare.txt" 2>&1
rc=$?
ok "gpu_compare.py answers" '[ $rc -eq 0 ] && [ -s "$out/compare.json" ]'
ok "every figure it pairs with PyTorch is in the runs" '! grep -q "no such figure" "$out/compare.txt"'
ok "each pair reads 1.05x, within the 10 % goal" 'python3 -c "import json,sys; r=json.load(open(sys.argv[1]))[\"torch\"]; sys.exit(0 if r and all(x[\"ratio\"] and abs(x[\"ratio\"]-1.05)<1e-9 and not x[\"note\"] for x in r) else 1)" "$out/compare.json"'
ok "every simulator headline is in both runs (a100 against h100: some outside 25 %)" 'python3 -c "import json,sys; r=json.load(open(sys.argv[1]))[\"simulator\"]; sys.exit(0 if all(x[\"ratio\"] is not None for x in r) and any(\"OUTSIDE\" in x[\"note\"] for x in r) else 1)" "$out/compare.json"'
exit $bad
