#!/usr/bin/env bash
# The GPU lease rehearsed without a GPU (tools/gpu_session.sh, docs/gpu-session.md):
# the same command on a bundle of this build, where the GPU is the stand-in
# gpulab of tests/lease/ (the fake GPU's device check, the simulator's
# envelopes answered as cuda runs) and compute-sanitizer one that never
# answers, so that the memcheck step must be cut at its limit and the lease
# go on. Everything a CPU can run runs for real: the simulations, the
# measurement kit's CPU path with Debian's PyTorch, the cold-start peer, the
# claims, the profiler traces and PyTorch's messages. Then: one archive of
# at most 16 MiB with every step's output at its place, also with real GPU
# traces of the expected size; unpacked into a scratch copy of the
# repository, its recordings load in the page (tests/lease/replay.mjs);
# bad archives are refused; the bundle and the tree stay under 48 MiB.
# TAP. Usage: lease.sh BUILD/bin/lessonc
# make test runs this beside the other tools (it writes only to its mktemp folder).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
repo=$PWD
build=$(dirname "$(dirname "${1:-build/bin/lessonc}")")
build=$(cd "$build" && pwd)
torch_py=${GPULAB_TORCH_PYTHON:-/usr/bin/python3}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
t_all=$SECONDS
n=0 bad=0
ok() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; bad=1; fi; }
show() { sed 's/^/#   /' "$1" | tail -"${2:-30}"; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$2"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

t0=$SECONDS
b=$dir/b
tools/bundle.sh "$build" "$b" >"$dir/bundle.log" 2>&1
t_bundle=$((SECONDS - t0))
ok "the bundle carries the lease and what its steps run, and the commit it was built from" '
  (for f in gpu_session.sh lease_archive.py lease_traces.py lease_errors.py lease_gpulab.sh record_runs.py record_kit.py; do
    [ -x "$b/tools/$f" ] || exit 1; done) && [ -x "$b/tests/gpu/run.sh" ] && [ -f "$b/kit/measure.py" ] && [ -s "$b/COMMIT" ]' ||
  show "$dir/bundle.log"
tree=$(git ls-files -z | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
bundle=$(du -sb "$b" | cut -f1)
ok "the bundle and the tree travel in under 48 MiB (tree $(mib "$tree") + bundle $(mib "$bundle"))" \
  '[ "$tree" -gt 0 ] && [ $((tree + bundle)) -lt $((48 << 20)) ]'

# The stand-ins, and python3 the one with PyTorch, as on a GPU machine.
mv "$b/bin/gpulab" "$b/bin/gpulab.real"
cp tests/lease/gpulab_standin.sh "$b/bin/gpulab"
mkdir -p "$dir/path"
cp tests/lease/compute-sanitizer "$dir/path/"
ln -s "$torch_py" "$dir/path/python3"
limits=suite=120,memcheck=6,runs=120,record=60,kit=120,cold=120,claims=120,plan=120,traces=120,errors=120
start=$SECONDS
(cd "$dir" && PATH="$dir/path:$PATH" GPULAB_LEASE_WORK="$dir/work" GPULAB_LEASE_COLD_SAMPLES=1 \
  GPULAB_LEASE_LIMITS=$limits GPULAB_HANG_PIDS="$dir/hang.pids" "$b/tools/gpu_session.sh" lease "$dir/out" >"$dir/lease.log" 2>&1)
rc=$? secs=$((SECONDS - start))
echo "# the lease took $secs s here:"
grep -E '^lease: [a-z]+ .* in [0-9]+ s of [0-9]+' "$dir/lease.log" | sed -E 's/^lease: ([a-z]+) +([A-Za-z]+[^:]*) in ([0-9]+ s) of.*/#   \1 \2 \3/'
sum=0; for kv in ${limits//,/ }; do sum=$((sum + ${kv#*=})); done
ok "the lease ends on its own, within its limits ($secs s of $sum)" '[ $rc -eq 0 ] && [ $secs -lt $((sum + 30)) ]' || show "$dir/lease.log"
out=$dir/out
ok "it leaves two files for the device tool to bring back: the archive and the summary" \
  '[ "$(ls "$out" | tr "\n" " ")" = "gpulab-lease.tar.gz summary.txt " ]'
sum_line() { grep -E "^  [0-9] $1 " "$out/summary.txt"; }
ok "the hanging compute-sanitizer is cut at the memcheck step's limit, with its processes" '
  sum_line memcheck | grep -q "CUT .*cut at its limit of 6 s" && ! { [ -s "$dir/hang.pids" ] && ps -o pid= -p "$(paste -sd, "$dir/hang.pids")" >/dev/null; }' ||
  show "$out/summary.txt"
ok "every step after it ran: every experiment on the GPU (stand-in), recorded, the kit, the traces, the messages" '
  sum_line suite | grep -qE " [0-9]+ passed, [0-9]+ failed" &&
  sum_line runs | grep -q "ok .* 12 of 12 experiments ran on gpulab fake GPU (test); simulated beside them on h100-sxm; calibrate: The simulator reproduces" &&
  sum_line record | grep -q "ok .* 12 recordings" && sum_line kit | grep -q "ok .*the kit ran [0-9]* experiments" &&
  sum_line cold | grep -q " ok " && sum_line claims | grep -qE "pass [0-9]+" &&
  sum_line traces | grep -q "ok .*train-cold.json.gz" && sum_line errors | grep -q "ok .*[1-9] messages"' || show "$out/summary.txt" 60
ok "the planner's step runs the kit's --plan for real on this CPU: 3 configurations, tensor bytes beside the plan's" '
  sum_line plan | grep -q "ok .* 3 of 3 configurations measured by the kit beside the planner" &&
  [ "$(grep -cE "^      [a-z0-9-]+ on cpu: weights 1\.0., gradients 1\.0., optimizer_state 1\.0., activations (0\.9[5-9]|1\.0[0-5])$" "$out/summary.txt")" -eq 3 ]' ||
  show "$out/summary.txt" 60
size=$(stat -c %s "$out/gpulab-lease.tar.gz")
ok "one archive of at most 16 MiB ($(mib "$size")), each part within its budget" \
  '[ "$size" -le $((16 << 20)) ] && grep -qE "^parts .*recordings .*tables .*traces .*errors .*logs" "$out/summary.txt"'

# What the archive holds, at the repository's places.
tar -tzvf "$out/gpulab-lease.tar.gz" | awk '{print $3, $6}' >"$dir/members"
m=tests/gpu/measured/gpulab-fake-gpu-test
has() { grep -qE " $1\$" "$dir/members"; }
ok "every member is a file at one of the lease's places" \
  '! awk "{print \$2}" "$dir/members" | grep -vE "^(web/recorded|tests/doctor/gpu|tests/explain/gpu|$m(/(logs|doctor|plan|recorded-kit))?)/[A-Za-z0-9._-]+$" | grep -q .' ||
  show "$dir/members"
ok "the recordings: one per experiment and an index" '
  (for e in $("$build/bin/gpulab" experiments --live); do has "web/recorded/$e.json" || exit 1; done) && has web/recorded/index.json'
ok "the comparison tables: device, calibrated profile, gpulab beside PyTorch and the simulator, the kit, cold start, claims" '
  (for f in device.json calibrated.json calibrate.txt compare.json compare.txt kit.json kit_compare.json cold.json claims.tap summary.txt \
    plan/comparison.json plan/gpt2-fp32-eager.run.json; do
    has "$m/$f" || exit 1; done)'
ok "the doctor's traces (cold, warm, the kit's) and explain's messages" '
  has "tests/doctor/gpu/gpulab-fake-gpu-test-train-cold.json.gz" && has "tests/doctor/gpu/gpulab-fake-gpu-test-train-warm.json.gz" &&
  has "tests/doctor/gpu/gpulab-fake-gpu-test-kit-profile.json.gz" && has "tests/explain/gpu/gpulab-fake-gpu-test.json" &&
  has "tests/explain/gpu/gpulab-fake-gpu-test-device-mismatch.txt"'
mkdir -p "$dir/x" && tar -xzf "$out/gpulab-lease.tar.gz" -C "$dir/x"
ok "every step's log, cut to its last 200 lines" '
  (for s in suite record kit traces errors; do [ -f "$dir/x/$m/logs/$s.log" ] || exit 1; done
   for f in "$dir/x/$m"/logs/*.log; do [ "$(wc -l <"$f")" -le 201 ] || exit 1; done)'

# Unpacked into a scratch copy of the repository, then served as make serves it.
scratch=$dir/repo
mkdir -p "$scratch" && git ls-files -z | xargs -0 cp --parents -t "$scratch"
"$b/tools/gpu_session.sh" unpack "$out/gpulab-lease.tar.gz" "$scratch" >"$dir/unpack.log" 2>&1
rc=$?
ok "tools/gpu_session.sh unpack puts the recordings in web/recorded/, indexed, and the rest at their places" '
  [ $rc -eq 0 ] && json "len(d[\"recorded\"]) == 12" "$scratch/web/recorded/index.json" &&
  json "d[\"backend\"] == \"recorded\" and d[\"recorded\"][\"device\"] == \"gpulab fake GPU (test)\"" "$scratch/web/recorded/timing.json" &&
  [ -f "$scratch/$m/kit.json" ] && [ -f "$scratch/tests/doctor/gpu/gpulab-fake-gpu-test-train-warm.json.gz" ]' || show "$dir/unpack.log"
# a person labels explain's message; the same archive unpacked again keeps the label of the unchanged text
ej=$scratch/tests/explain/gpu/gpulab-fake-gpu-test.json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=d['cases'][0]; c['facts']={'what': 'labelled'}; c['diagnosis']='setup_cpu_wheel'; json.dump(d, open(sys.argv[1], 'w'))" "$ej"
"$b/tools/gpu_session.sh" unpack "$out/gpulab-lease.tar.gz" "$scratch" >"$dir/unpack2.log" 2>&1
ok "unpacking again keeps a person's facts and diagnosis of an unchanged message" '
  json "d[\"cases\"][0][\"diagnosis\"] == \"setup_cpu_wheel\" and d[\"cases\"][0][\"facts\"] == {\"what\": \"labelled\"}" "$ej" &&
  grep -q "diagnosis of 1 unchanged messages kept" "$dir/unpack2.log"' || show "$dir/unpack2.log"
cp -a "$b/web" "$dir/webroot" && cp "$scratch"/web/recorded/*.json "$dir/webroot/recorded/"
t0=$SECONDS
GPULAB_BIN="$build/bin/gpulab" timeout 120 node tests/lease/replay.mjs "$dir/webroot" "$build/lessons" >"$dir/replay.tap" 2>&1
rc=$? t_page=$((SECONDS - t0))
sed 's/^/#   /' "$dir/replay.tap" | grep -vE '^#   1\.\.'
skip=$(grep -o '# SKIP.*' "$dir/replay.tap")
ok "the unpacked recordings load: the index lists them, every widget offers its own, the page replays one ${skip}" \
  '[ $rc -eq 0 ] && grep -q "^ok .*index lists" "$dir/replay.tap"'

# Bad archives are refused, and nothing of them is written.
"$torch_py" - "$dir/bad" <<'PY'
import io, os, sys, tarfile
d = sys.argv[1]
os.makedirs(d)
def make(name, members):
    with tarfile.open(os.path.join(d, name), "w:gz") as t:
        for m, data, kind in members:
            i = tarfile.TarInfo(m)
            i.size = len(data)
            if kind == "link":
                i.type, i.linkname, i.size = tarfile.SYMTYPE, "/etc/passwd", 0
            t.addfile(i, io.BytesIO(data))
ok = ("web/recorded/timing.json", b"{}", "file")
make("outside.tar.gz", [ok, ("Makefile", b"all:\n", "file")])
make("dotdot.tar.gz", [ok, ("web/recorded/../../Makefile", b"all:\n", "file")])
make("link.tar.gz", [ok, ("web/recorded/device.json", b"", "link")])
with open(os.path.join(d, "big.tar.gz"), "wb") as f:
    f.write(os.urandom((16 << 20) + 1))
PY
codes=""
for a in outside dotdot link big; do
  cp "$scratch/web/recorded/timing.json" "$dir/timing.before"
  "$b/tools/gpu_session.sh" unpack "$dir/bad/$a.tar.gz" "$scratch" >/dev/null 2>&1
  codes="$codes $a:$?$(cmp -s "$dir/timing.before" "$scratch/web/recorded/timing.json" || echo :written)"
done
ok "bad archives are refused before anything is written:$codes" '[ "$codes" = " outside:1 dotdot:1 link:1 big:1" ]'

# The same work folder packed with real GPU traces of the expected size (and
# more: ResNet-50 on a V100, 35 MB of trace JSON) and with one over its budget.
cp tests/doctor/real/kineto-tb-resnet50-v100-workers0.json.gz "$dir/work/traces/train-warm.json.gz"
cp tests/doctor/real/hta-nccl-two-ranks-a100.json.gz "$dir/work/traces/train-cold.json.gz"
gzip -dc tests/doctor/real/hta-alexnet-cold-two-streams-a100.json.gz >"$dir/work/kit/kit.trace.json"
seq 1 500 | sed 's/^/a long log: line /' >"$dir/work/runs/log"
python3 "$b/tools/lease_archive.py" pack "$dir/work" "$dir/real" >/dev/null 2>&1
rc=$?
tar -xzOf "$dir/real/gpulab-lease.tar.gz" "$m/logs/runs.log" >"$dir/runs.log" 2>/dev/null
ok "a long log is cut to its last 200 lines, and says so" '
  [ "$(wc -l <"$dir/runs.log")" -eq 201 ] && head -1 "$dir/runs.log" | grep -qx "\[the first 300 lines of 500 are cut\]" &&
  tail -1 "$dir/runs.log" | grep -qx "a long log: line 500"'
size=$(stat -c %s "$dir/real/gpulab-lease.tar.gz" 2>/dev/null || echo 0)
ok "with real GPU traces of the expected size the archive keeps them and stays under 16 MiB ($(mib "$size"))" '
  [ $rc -eq 0 ] && [ "$size" -le $((16 << 20)) ] && ! grep -q "^left out" "$dir/real/summary.txt" &&
  [ "$(tar -tzf "$dir/real/gpulab-lease.tar.gz" | grep -c "^tests/doctor/gpu/")" -eq 3 ]' || show "$dir/real/summary.txt" 12
head -c $((4 << 20)) /dev/urandom | gzip -1 >"$dir/work/traces/train-cold.json.gz"
python3 "$b/tools/lease_archive.py" pack "$dir/work" "$dir/over" >/dev/null 2>&1
rc=$?
size=$(stat -c %s "$dir/over/gpulab-lease.tar.gz" 2>/dev/null || echo 0)
ok "a trace over its budget is left out and named in the summary; the archive stays under 16 MiB ($(mib "$size"))" '
  [ $rc -eq 0 ] && [ "$size" -le $((16 << 20)) ] && grep -qE "^  tests/doctor/gpu/gpulab-fake-gpu-test-train-cold.json.gz \(4.0 MiB\): over the 3 MiB of one trace" "$dir/over/summary.txt" &&
  ! tar -tzf "$dir/over/gpulab-lease.tar.gz" | grep -q train-cold' || show "$dir/over/summary.txt" 12
echo "# the rehearsal took $((SECONDS - t_all)) s: the bundle $t_bundle s, the lease $secs s, the page $t_page s"
echo "1..$n"
exit $bad
