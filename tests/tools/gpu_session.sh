#!/usr/bin/env bash
# The GPU session kit (tools/gpu_session.sh, bench/gpu_compare.py) checked
# here without a GPU: it travels in the bundle with the measurement kit, and
# the comparison finds every figure it pairs in both envelopes (simulated
# runs stand in for gpulab's real ones, and relabelled as the kit's
# pytorch ones for PyTorch's), so a renamed metric breaks this test instead
# of a GPU session. TAP output. Usage: gpu_session.sh BUILD/bin/lessonc
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
build=$(dirname "$(dirname "${1:-build/bin/lessonc}")")
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
n=0 bad=0
ok() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; bad=1; fi; }
echo "1..10"
tools/bundle.sh "$build" "$dir/b" >/dev/null 2>&1
ok "the session's tools travel in the bundle, the measurement kit with them" '[ -x "$dir/b/tools/gpu_session.sh" ] && [ -f "$dir/b/kit/measure.py" ] && [ -f "$dir/b/bench/gpu_compare.py" ] && [ -f "$dir/b/bench/cold_peer.py" ] && [ -x "$dir/b/tools/record_kit.py" ]'
ok "the lesson claims and their runner travel in the bundle" '[ -x "$dir/b/bin/claimcheck" ] && [ -s "$dir/b/claims.json" ] && "$dir/b/bin/claimcheck" --help >/dev/null'
# The first lease on a GPU stopped every step at once: GPULAB_LEASE_LIMITS
# unset was an error under `set -u` (the rehearsal always sets it).
lim=$(env -u GPULAB_LEASE_LIMITS "$dir/b/tools/gpu_session.sh" limits 2>&1)
ok "without GPULAB_LEASE_LIMITS every step has its own limit, 400 s or less in all (under 7 minutes)" \
  '[ "$(grep -v "^total" <<<"$lim" | grep -cE "^[a-z]+ [1-9][0-9]*$")" -eq 10 ] && [ "$(sed -n "s/^total //p" <<<"$lim")" -le 400 ]' || echo "# $lim"
lim=$(GPULAB_LEASE_LIMITS=kit=200,claims=x "$dir/b/tools/gpu_session.sh" limits 2>&1)
ok "GPULAB_LEASE_LIMITS changes the steps it names, a bad value is ignored, and a crash is debugged from the bundle" \
  'grep -qx "kit 200" <<<"$lim" && grep -qx "claims 65" <<<"$lim" && [ -x "$dir/b/tools/lease_debug.sh" ]' || echo "# $lim"
out=$dir/out; mkdir -p "$out/runs" "$out/sim"
for name in $("$build/bin/gpulab" experiments --names); do
  "$build/bin/gpulab" run "$name" --backend simulated --profile a100-sxm --json >"$out/runs/$name.json"
  "$build/bin/gpulab" run "$name" --backend simulated --profile h100-sxm --json >"$out/sim/$name.json"
done
# The kit's file for the same runs, 5 % slower in every figure gpu_compare pairs.
python3 - "$out" <<'PY'
import json, sys, os
sys.path.insert(0, "bench")
from gpu_compare import PAIRS
root = sys.argv[1]
paired = {}
for exp, key, unit, why in PAIRS:
    paired.setdefault(exp, set()).add(key)
results = []
for exp, keys in paired.items():
    env = json.load(open(os.path.join(root, "runs", exp + ".json")))
    env["backend"] = "pytorch"
    env["metrics"] = {k: v / 1.05 if k in keys else v for k, v in env["metrics"].items()}
    env["measured_with"] = {"kit": "1.0", "torch": "test", "platform": None, "date": "2026-11-20"}
    results.append(env)
kit = {"gpulab_measure": "1.0", "provenance": {"device": {"kind": "cuda", "name": "NVIDIA A100-SXM4-80GB"},
       "torch": "test", "cuda_runtime": "test", "kit_version": "1.0"}, "results": results,
       "skipped": [], "failed": []}
json.dump(kit, open(os.path.join(root, "kit.json"), "w"))
PY
python3 bench/gpu_compare.py "$out" h100-sxm >"$out/compare.txt" 2>&1
rc=$?
ok "gpu_compare.py answers" '[ $rc -eq 0 ] && [ -s "$out/compare.json" ]'
ok "every figure it pairs with PyTorch is in the runs" '! grep -q "no such figure" "$out/compare.txt"'
ok "each pair reads 1.05x, within the 10 % goal" 'python3 -c "import json,sys; r=json.load(open(sys.argv[1]))[\"torch\"]; sys.exit(0 if r and all(x[\"ratio\"] and abs(x[\"ratio\"]-1.05)<1e-9 and not x[\"note\"] for x in r) else 1)" "$out/compare.json"'
ok "every simulator headline is in both runs (a100 against h100: some outside 25 %)" 'python3 -c "import json,sys; r=json.load(open(sys.argv[1]))[\"simulator\"]; sys.exit(0 if all(x[\"ratio\"] is not None for x in r) and any(\"OUTSIDE\" in x[\"note\"] for x in r) else 1)" "$out/compare.json"'
python3 tools/record_kit.py "$out/kit.json" "$out/recorded-kit" >/dev/null 2>&1
ok "the kit's run kept as recordings: backend recorded, its measured_with kept, an index" 'python3 -c "import json,sys,os; d=sys.argv[1]; ix=json.load(open(d+\"/index.json\"))[\"recorded\"]; e=json.load(open(d+\"/transfer.json\")); sys.exit(0 if \"transfer\" in ix and e[\"backend\"]==\"recorded\" and e[\"recorded\"][\"device\"]==\"NVIDIA A100-SXM4-80GB\" and e[\"measured_with\"][\"torch\"]==\"test\" else 1)" "$out/recorded-kit"'
# The simulations take each real run's params: a GPU run's view is cuda and its sizes its own.
python3 - "$out/runs/timing.json" <<'PY'
import json, sys
env = json.load(open(sys.argv[1]))
env["params"].update(view="cuda", size=512)
json.dump(env, open(sys.argv[1], "w"))
PY
python3 bench/gpu_compare.py --simulate "$build/bin/gpulab" "$out/runs" "$out/sim2" h100-sxm 2>"$out/sim2.err"
rc=$?
ok "--simulate runs each experiment with its real run's params" '[ $rc -eq 0 ] && python3 -c "import json,sys; p=json.load(open(sys.argv[1]))[\"params\"]; sys.exit(0 if p[\"view\"]==\"cuda\" and p[\"size\"]==512 else 1)" "$out/sim2/timing.json"'
exit $bad
