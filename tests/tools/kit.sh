#!/usr/bin/env bash
# The measurement kit (kit/measure.py) and gpulab compare, end to end on
# this machine with Debian's PyTorch (/usr/bin/python3, a CPU build; make
# deps installs it): its preflight on public reports and its GPU code
# against a stand-in torch.cuda (tests/kit/test_kit.py), --plan FILE on
# small planned configurations and bad plan files (tests/kit/test_plan.py), a real run on the
# CPU that reports the CPU wheel, writes a valid file and a trace gpulab
# doctor reads, every envelope drawn by the client's views
# (build/tests/kit_views), gpulab compare on it, a doctored file flagged,
# bad files refused with their codes, the notebook that is the script, and
# the kit's words that are explain's. PyTorch missing fails this, never
# skips it. TAP. Usage: kit.sh BUILD/bin/lessonc
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
build=$(dirname "$(dirname "${1:-build/bin/lessonc}")")
bin=$build/bin/gpulab
py=/usr/bin/python3
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
n=0 bad=0
ok() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; bad=1; fi; }
show() { sed 's/^/#   /' "$1" | tail -"${2:-30}"; }
json() { $py -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$2"; }

ok "Debian's PyTorch is there for the kit ($py)" '$py -c "import torch" 2>"$dir/torch.err"' || show "$dir/torch.err"

GPULAB_BIN=$bin GPULAB_KIT_OUT=$dir $py -m unittest -v tests/kit/test_kit.py tests/kit/test_plan.py >"$dir/unit.log" 2>&1
rc=$?
ok "preflight on public reports, each finding pasted into gpulab explain, GPU code on a stand-in torch.cuda, --plan on this CPU and the stand-in, bad plan files ($(grep -cE ' \.\.\. ok$' "$dir/unit.log") tests)" '[ $rc -eq 0 ]' || show "$dir/unit.log" 40

"$build/tests/kit_views" "$dir/standin.json" >"$dir/views_gpu.tap" 2>&1
rc=$?
ok "the GPU path's envelopes carry what every view reads ($(grep -c '^ok' "$dir/views_gpu.tap") checks)" '[ $rc -eq 0 ]' || grep -v '^ok' "$dir/views_gpu.tap" | head -20

start=$SECONDS
(cd "$dir" && timeout 300 $py "$OLDPWD/kit/measure.py" --out run.json >out.txt 2>err.txt)
rc=$? secs=$((SECONDS - start))
ok "a real run on this CPU ends in under 60 s ($secs s) and says so" '[ $rc -eq 0 ] && [ $secs -lt 60 ] && grep -q "Running on the CPU" "$dir/out.txt"' || { show "$dir/out.txt"; show "$dir/err.txt"; }
ok "its preflight reports the CPU wheel: no CUDA build, no GPU, the layers agree" 'grep -q "CUDA used to build PyTorch: None" "$dir/out.txt" && grep -qE "\[(env_consistent|setup_no_driver)\]" "$dir/out.txt"'
sed -n '/^Preflight:/,/^Running on/p' "$dir/out.txt" | sed '1d;$d' >"$dir/finding.txt"
want=$(grep -oE '\[[a-z_]+\]' "$dir/finding.txt" | head -1 | tr -d '[]')
"$bin" explain "$dir/finding.txt" --json >"$dir/explained.json" 2>&1
ok "its finding, pasted into gpulab explain, gets the same diagnosis ($want)" 'json "len(d[\"items\"]) == 1 and d[\"items\"][0][\"diagnosis\"][\"id\"] == \"$want\"" "$dir/explained.json"' || show "$dir/explained.json"
ok "it ran what a CPU can and said why the rest was skipped" 'json "{r[\"experiment\"] for r in d[\"results\"]} >= {\"device\",\"placement\",\"train_step\",\"crossover\",\"profile\"} and all(s[\"why\"] for s in d[\"skipped\"]) and len(d[\"skipped\"]) == 7 and not d[\"failed\"]" "$dir/run.json"'
ok "its file is at most 1 MiB, every envelope backend pytorch" '[ "$(stat -c %s "$dir/run.json")" -le 1048576 ] && json "all(r[\"backend\"] == \"pytorch\" for r in d[\"results\"])" "$dir/run.json"'
"$build/tests/kit_views" "$dir/run.json" >"$dir/views_cpu.tap" 2>&1
rc=$?
ok "the CPU run's envelopes carry what every view reads, the rest declared with why ($(grep -c '^ok' "$dir/views_cpu.tap") checks)" '[ $rc -eq 0 ]' || grep -v '^ok' "$dir/views_cpu.tap" | head -20
"$bin" compare "$dir/run.json" --json >"$dir/compare.json" 2>"$dir/compare.err"
rc=$?
ok "gpulab compare imports it: predictions beside each figure, no ratio for a CPU run" '[ $rc -eq 0 ] && json "d[\"run\"][\"kind\"] == \"cpu\" and d[\"experiments\"] and all(f[\"ratio\"] is None for e in d[\"experiments\"] for f in e[\"figures\"])" "$dir/compare.json"' || show "$dir/compare.err"
"$bin" doctor "$dir/run.trace.json" --json >"$dir/doctor.json" 2>&1
ok "gpulab doctor reads its profiler trace, in profiler steps" 'json "d[\"trace\"][\"profiler_steps\"] >= 3" "$dir/doctor.json"' || show "$dir/doctor.json" 5

# The stand-in's file as a T4's, doctored: a copy faster than its PCIe Gen3 link, a host clock that did not wait.
$py - "$dir/standin.json" "$dir/doctored.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["provenance"]["device"].update({"name": "Tesla T4", "compute_capability": "7.5"})
for r in d["results"]:
    r["device"]["name"] = "Tesla T4"
    if r["experiment"] == "transfer":
        r["metrics"]["h2d_pinned_gbps"] = 40.0
    if r["experiment"] == "timing":
        r["metrics"]["host_sync_ms"] = r["metrics"]["events_ms"] / 100
json.dump(d, open(sys.argv[2], "w"))
PY
"$bin" compare "$dir/doctored.json" --json >"$dir/doctored_report.json" 2>&1
ok "a doctored file (a copy faster than the link, a timing without synchronize) is flagged, not drawn as measured" 'json "[f[\"plausible\"] for e in d[\"experiments\"] for f in e[\"figures\"] if (e[\"experiment\"], f[\"metric\"]) in ((\"transfer\", \"h2d_pinned_gbps\"), (\"timing\", \"host_sync_ms\"))] == [False, False] and d[\"profile\"][\"name\"] == \"t4\"" "$dir/doctored_report.json"' || show "$dir/doctored_report.json" 20

head -c $(($(stat -c %s "$dir/run.json") / 2)) "$dir/run.json" >"$dir/cut.json"
{ cat "$dir/run.json"; head -c 1100000 /dev/zero | tr '\0' ' '; } >"$dir/big.json"
sed 's/"backend":"pytorch"/"backend":"cuda"/' "$dir/run.json" >"$dir/schema.json"
$py -c 'import json,sys; d=json.load(open(sys.argv[1])); d["provenance"]["device"]["name"]="\x1b[2J"+"x"*300; json.dump(d,open(sys.argv[2],"w"))' "$dir/run.json" "$dir/hostile.json"
codes=""
for f in cut big schema hostile; do
  "$bin" compare "$dir/$f.json" --json >"$dir/$f.out" 2>&1
  codes="$codes $f:$?:$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["error"]["code"])' "$dir/$f.out" 2>/dev/null)"
done
ok "bad files get clear errors:$codes" '[ "$codes" = " cut:1:kit_not_json big:1:kit_too_large schema:1:kit_invalid hostile:1:kit_invalid" ]'

ok "the notebook is the script: /measure.ipynb's code cells are /measure.py, which is kit/measure.py" '
  cmp -s kit/measure.py "$build/web/measure.py" &&
  $py -c "import json,sys; nb=json.load(open(sys.argv[1])); code=[c for c in nb[\"cells\"] if c[\"cell_type\"]==\"code\" and c[\"metadata\"].get(\"gpulab\")!=\"run\"]; sys.exit(0 if \"\".join(\"\".join(c[\"source\"]) for c in code)==open(sys.argv[2]).read() else 1)" "$build/web/measure.ipynb" kit/measure.py'
ok "the kit's words are explain's (tools/kit_diagnoses.py --check)" '$py tools/kit_diagnoses.py "$bin" --check 2>"$dir/diag.err"' || show "$dir/diag.err"
(cd "$dir" && $py -S "$OLDPWD/kit/measure.py" --out none.json >/dev/null 2>torchless.err)
rc=$?
ok "without PyTorch the kit stops with a clear message and writes nothing" '[ $rc -eq 1 ] && grep -q "PyTorch is not installed" "$dir/torchless.err" && [ ! -e "$dir/none.json" ]'
echo "1..$n"
exit $bad
