#!/usr/bin/env bash
# The GPU lease: everything a borrowed GPU machine must do (docs/gpu-session.md),
# as one command run from a bundle's root (make bundle) that ends in under 7
# minutes, and the unpacking of what it brings back into the repository.
#
#   tools/gpu_session.sh lease OUT [STEP,...]  the steps below in priority order (or only those
#                                              named), then OUT/gpulab-lease.tar.gz and OUT/summary.txt
#   tools/gpu_session.sh unpack ARCHIVE [REPO] the archive's files into the repository's places
#
# Each step has its own time limit (STEPS: 380 s together; with the device
# check before them and the packing after them, 10 s each, 400 s): at its
# limit a step is stopped with its process group, its log kept, and the
# next one runs. GPULAB_LEASE_LIMITS="step=S,..." sets other
# limits; GPULAB_LEASE_WORK the work folder (default $TMPDIR/gpulab-lease,
# kept, so a second call that names steps packs them with the first call's
# others); GPULAB_LEASE_COLD_SAMPLES the cold-start samples (default 3).
set -uo pipefail
self=$(readlink -f "$0")
root=$(dirname "$(dirname "$self")")
cd "$root" || exit 1
bin=bin/gpulab

# name phase limit_s what (in priority order; the phases are issue 38's).
# The limits come from the first lease (H100, 2026-11-28), which took: suite
# 21 s, memcheck 31, runs 14, record 0, kit 29, cold 34, claims 47 (with
# profile failing at once), plan 25, traces 11, errors 11; about 1.5x that,
# 400 s with the check and the packing.
STEPS=(
  "suite 1 50 the GPU test suite (tests/gpu/run.sh checks)"
  "memcheck 1 45 compute-sanitizer memcheck of every experiment, 4 at once"
  "runs 2 40 every experiment on the GPU, the same simulated on the matching profile, gpulab calibrate"
  "record 3 5 the GPU runs as recordings for the offline page"
  "kit 4 50 the measurement kit on this GPU, gpulab compare on it, PyTorch beside gpulab"
  "cold 4 45 cold start: gpulab's worker against PyTorch"
  "claims 5 65 the lessons' claims on this GPU (claimcheck --gpu)"
  "plan 5 40 the planner against PyTorch's memory counters (kit/measure.py --plan)"
  "traces 6 20 torch.profiler traces of a small training step, cold and warm, read by gpulab doctor"
  "errors 6 20 PyTorch's messages for a device mismatch, an out-of-memory and device-side asserts"
)
CHECK_LIMIT=10 PACK_LIMIT=10

say() { echo "$*" >>"$dir/status"; }           # a line of the step's summary (the first is its headline)
skip() { say "skipped: $*"; exit 77; }         # what the step needs is not built here
py() { python3 "$@"; }                         # the python3 that holds PyTorch on a GPU machine

# ---- the steps: each runs in its own process, in $dir (= $work/STEP), logging to $dir/log ----

step_suite() {
  [ -x tests/gpu/run.sh ] || skip "not built (tests/gpu/run.sh is not in the bundle)"
  tests/gpu/run.sh . checks >"$dir/log" 2>&1
  local rc=$?
  say "$(tail -1 "$dir/log")"
  grep -E '^not ok' "$dir/log" | head -6 | while read -r l; do say "$l"; done
  return $rc
}

step_memcheck() {
  [ -x tests/gpu/run.sh ] || skip "not built (tests/gpu/run.sh is not in the bundle)"
  tests/gpu/run.sh . memcheck >"$dir/log" 2>&1
  local rc=$?
  say "$(tail -1 "$dir/log")"
  grep -E '^not ok|# SKIP' "$dir/log" | head -6 | while read -r l; do say "$l"; done
  return $rc
}

# Every experiment on the GPU at its defaults (these become the recordings),
# then calibrate, whose starting profile is the built-in one matching this
# GPU, then every experiment simulated on it. An experiment with no GPU
# version (a multi-GPU one) answers no_gpu on a usable GPU: it stays
# simulated, and the summary says so.
step_runs() {
  mkdir -p "$dir/gpu" "$dir/sim"
  usable || { say "no usable GPU: $(verdict)"; return 1; }
  local ok=0 n=0 simonly="" failed="" name code t0
  for name in $("$bin" experiments --live); do
    n=$((n + 1))
    t0=$SECONDS
    "$bin" run "$name" --backend cuda --json >"$dir/gpu/$name.json" 2>>"$dir/log"
    code=$?
    echo "runs: $name on the GPU: exit $code in $((SECONDS - t0)) s" >>"$dir/log"
    if [ $code -eq 0 ]; then ok=$((ok + 1)); continue; fi
    code=$(field "$dir/gpu/$name.json" error.code)
    echo "runs: $name: $(field "$dir/gpu/$name.json" error.message)" >>"$dir/log"
    if [ "$code" = no_gpu ]; then simonly="$simonly $name"; else failed="$failed $name ($code)"; fi
    # A crash is run again in the worker alone, and under cuda-gdb: its stack goes to the log.
    [ "$code" != worker_crashed ] || GPULAB_DEBUG_S=15 tools/lease_debug.sh "$name" >>"$dir/log" 2>&1
  done
  "$bin" calibrate --json --out "$dir/calibrated.json" >"$dir/calibrate.json" 2>>"$dir/log"
  local cal=$?
  local profile
  profile=$(field "$dir/calibrate.json" base)
  [ -n "$profile" ] || profile=h100-sxm
  echo "$profile" >"$dir/profile"
  # Each simulated with its GPU run's params (the GPU's view is cuda, the simulator's default pytorch).
  py bench/gpu_compare.py --simulate "$bin" "$dir/gpu" "$dir/sim" "$profile" 2>>"$dir/log"
  py - "$dir/calibrate.json" >"$dir/calibrate.txt" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(0)
for c in r.get("checks", []):
    print(f"  {c['experiment']:10s} {c['metric']:22s} real {c['real']:12.4g} simulated {c['simulated']:12.4g}"
          f" {c['error_pct']:6.1f}% {'ok' if c['ok'] else 'MISS'}")
print("The simulator reproduces this GPU." if r.get("ok") else "The simulator misses this GPU on some figures.")
PY
  say "$ok of $n experiments ran on $(gpu_name); simulated beside them on $profile;" \
    "calibrate: $([ $cal -eq 0 ] && tail -1 "$dir/calibrate.txt" || echo "failed (see the log)")"
  [ -z "$simonly" ] || say "simulated only (no GPU version):$simonly"
  [ -z "$failed" ] || say "failed on the GPU:$failed"
  [ -z "$failed" ] && [ $cal -eq 0 ]
}

step_record() {
  [ -d "$work/runs/gpu" ] || { say "no GPU runs to record (the runs step did not run)"; return 1; }
  py tools/record_runs.py "$work/device.json" "$work/runs/gpu" "$dir/recorded" >"$dir/log" 2>&1
  local rc=$?
  say "$(grep -c '^record: .*json (' "$dir/log") recordings for web/recorded/"
  grep 'left out$' "$dir/log" | while read -r l; do say "${l#record: }"; done
  return $rc
}

# The kit runs every experiment the GPU supports at gpulab's defaults; its
# file is a learner's, so gpulab compare reads it as one, and it is kept as
# recordings of the kit (tools/record_kit.py). bench/gpu_compare.py pairs
# it with the runs step's GPU runs and simulations.
step_kit() {
  py kit/measure.py --out "$dir/kit.json" --trace "$dir/kit.trace.json" >"$dir/log" 2>&1
  local rc=$?
  [ -s "$dir/kit.json" ] || { say "the kit wrote no file (exit $rc)"; return 1; }
  "$bin" compare "$dir/kit.json" >"$dir/kit_compare.txt" 2>>"$dir/log"
  "$bin" compare "$dir/kit.json" --json >"$dir/kit_compare.json" 2>>"$dir/log"
  py tools/record_kit.py "$dir/kit.json" "$dir/recorded-kit" >>"$dir/log" 2>&1
  mkdir -p "$dir/pairs"
  ln -sfn "$work/runs/gpu" "$dir/pairs/runs"
  ln -sfn "$work/runs/sim" "$dir/pairs/sim"
  ln -sfn "$dir/kit.json" "$dir/pairs/kit.json"
  py bench/gpu_compare.py "$dir/pairs" "$(cat "$work/runs/profile" 2>/dev/null || echo h100-sxm)" >"$dir/compare.txt" 2>>"$dir/log"
  mv "$dir/pairs/compare.json" "$dir/compare.json" 2>/dev/null
  py - "$dir" >>"$dir/status" <<'PY'
import json, os, sys
d = sys.argv[1]
kit = json.load(open(os.path.join(d, "kit.json")))
dev = kit.get("provenance", {}).get("device", {})
print(f"the kit ran {len(kit.get('results', []))} experiments on {dev.get('name') or dev.get('kind')} "
      f"(PyTorch {kit.get('provenance', {}).get('torch')}), skipped {len(kit.get('skipped', []))},"
      f" failed {len(kit.get('failed', []))}")
try:
    rep = json.load(open(os.path.join(d, "kit_compare.json")))
    figs = [f for e in rep.get("experiments", []) for f in e.get("figures", [])]
    print(f"gpulab compare: {sum(f.get('plausible') is False for f in figs)} of {len(figs)} figures implausible")
except (OSError, ValueError):
    print("gpulab compare: no answer (see the log)")
try:
    c = json.load(open(os.path.join(d, "compare.json")))
    t = [r for r in c["torch"] if r["ratio"] is not None]
    s = [r for r in c["simulator"] if r["ratio"] is not None]
    print(f"gpulab / PyTorch: {sum(0.9 <= r['ratio'] <= 1.1 for r in t)} of {len(t)} pairs within 10 %;"
          f" simulated / real: {sum(0.75 <= r['ratio'] <= 1.33 for r in s)} of {len(s)} within 25 %")
except (OSError, ValueError, KeyError):
    print("gpu_compare: no table (see the log)")
PY
  [ -d "$dir/recorded-kit" ] || say "no kit recordings: $(grep -m1 '^record_kit:' "$dir/log" | cut -c13-)"
  return $rc
}

step_cold() {
  py bench/cold_peer.py . 2048 "${GPULAB_LEASE_COLD_SAMPLES:-3}" >"$dir/cold.json" 2>"$dir/log"
  local rc=$?
  py - "$dir/cold.json" >>"$dir/status" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["method"])
for k, v in d.items():
    if isinstance(v, dict):
        print(f"{k}: {v['wall_ms_median']:.0f} ms, peak RSS {v['max_rss_mib']:.0f} MiB, exit {v['rc']}")
PY
  return $rc
}

# The claims that hold on every profile, on this GPU; a run at an
# experiment's defaults is the runs step's (tools/lease_gpulab.sh).
step_claims() {
  [ -x bin/claimcheck ] && [ -f claims.json ] || skip "not built (bin/claimcheck or claims.json is not in the bundle)"
  GPULAB_LEASE_RUNS="$work/runs/gpu" bin/claimcheck --gpu tools/lease_gpulab.sh claims.json >"$dir/claims.tap" 2>"$dir/log"
  local rc=$?
  say "$(grep -E '^# (pass|fail|todo|skipped) ' "$dir/claims.tap" | sed 's/^# //' | paste -sd, -)"
  grep -E '^not ok' "$dir/claims.tap" | head -6 | while read -r l; do say "$l"; done
  return $rc
}

# The planner (gpulab plan --json) beside PyTorch's counters: the kit's
# --plan mode builds each planned configuration, trains 2 warm-up steps and
# up to 3 measured ones (none started after 4 s), and reads max_memory_allocated, max_memory_reserved,
# mem_get_info and the event-timed step (docs/measure.md, "--plan"). On a
# machine where PyTorch has no GPU (the rehearsal, tests/tools/lease.sh) the
# same kinds of configuration at toy sizes are planned with the CPU's rules
# and the kit's CPU path measures their tensor bytes: the step's code runs
# for real, and no GPU is pretended.
step_plan() {
  py kit/measure.py --help 2>/dev/null | grep -q -- '--plan' || skip "not built: kit/measure.py has no --plan mode yet"
  local profile n=0 name size args files=() sizes=gpu
  profile=$(cat "$work/runs/profile" 2>/dev/null || echo h100-sxm)
  py -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>>"$dir/log" || sizes=cpu
  while read -r name size args; do
    [ "$size" = "$sizes" ] || continue
    n=$((n + 1))
    # shellcheck disable=SC2086
    "$bin" plan --json $args --profile "$profile" >"$dir/$name.plan.json" 2>>"$dir/log" &&
      files+=(--plan "$dir/$name.plan.json")
  done <<'EOF'
gpt2-fp32-eager gpu --preset gpt2-124m --seq 512 --batch 4 --precision fp32 --optimizer adamw --checkpointing none --attention eager
gpt2-bf16-sdpa gpu --preset gpt2-124m --seq 1024 --batch 8 --precision amp-bf16 --optimizer adamw --checkpointing none --attention sdpa
llama-gqa-bf16-selective gpu --arch llama --layers 8 --hidden 1024 --heads 16 --kv-heads 4 --vocab 32000 --seq 1024 --batch 4 --precision bf16 --optimizer adamw --checkpointing selective --attention sdpa
gpt2m-bf16-full gpu --preset gpt2-355m --seq 1024 --batch 8 --precision amp-bf16 --optimizer adamw --checkpointing full --attention sdpa
gpt2-fp32-eager cpu --backend cpu --arch gpt2 --layers 2 --hidden 64 --heads 4 --vocab 500 --max-positions 64 --seq 32 --batch 2 --precision fp32 --optimizer adamw --checkpointing none --attention eager
llama-gqa-bf16-full cpu --backend cpu --arch llama --layers 2 --hidden 64 --heads 4 --kv-heads 2 --vocab 500 --max-positions 32 --seq 32 --batch 2 --precision bf16 --optimizer adamw --checkpointing full --attention eager
llama-gqa-amp-bf16-selective cpu --backend cpu --arch llama --layers 2 --hidden 64 --heads 4 --kv-heads 1 --vocab 500 --max-positions 32 --seq 32 --batch 2 --precision amp-bf16 --optimizer sgd --checkpointing selective --attention eager
EOF
  [ ${#files[@]} -gt 0 ] || { say "gpulab plan refused every configuration (see the log)"; return 1; }
  py kit/measure.py "${files[@]}" --plan-steps 3 --plan-seconds 4 >>"$dir/log" 2>&1
  local rc=$?
  py - "$dir" "$n" >>"$dir/status" <<'PY'
import glob, json, os, sys
d, n = sys.argv[1], int(sys.argv[2])
table, lines, device = [], [], None
for path in sorted(glob.glob(os.path.join(d, "*.run.json"))):
    name = os.path.basename(path)[:-len(".run.json")]
    try:
        run = json.load(open(path))
    except (OSError, ValueError):
        continue
    pr, device = run.get("plan_run"), run["provenance"]["device"]
    if not pr:
        lines.append(f"{name}: failed: {(run.get('failed') or [{}])[0].get('error', '?')[:150]}")
        continue
    rows = [{"config": name, "counter": c["id"], "measured": c["measured"], "predicted": c["predicted"],
             "ratio": c["ratio"], "in_band": c["in_band"]} for c in pr["counters"]]
    table += rows
    shown = ", ".join(f"{r['counter']} {r['ratio']:.2f}{'' if r['in_band'] else ' OUT'}" for r in rows
                      if r["ratio"] is not None)
    lines.append(f"{name} on {run['ran_on']}: " + (pr["verdict"] if pr.get("oom") or not shown else shown))
with open(os.path.join(d, "comparison.json"), "w") as fh:
    json.dump({"device": device, "rows": table}, fh, indent=1)
print(f"{len(lines)} of {n} configurations measured by the kit beside the planner")
for line in lines:
    print(line[:300])
PY
  [ "$(ls "$dir"/*.run.json 2>/dev/null | wc -l)" -eq "$n" ] && [ $rc -eq 0 ]
}

step_traces() {
  py tools/lease_traces.py "$dir" >"$dir/log" 2>&1 || { say "no traces (see the log)"; return 1; }
  local f
  grep '^traces:' "$dir/log" | cut -c9- | while read -r l; do say "$l"; done
  for f in "$dir"/*.json.gz; do
    "$bin" doctor "$f" --json >"${f%.json.gz}.doctor.json" 2>>"$dir/log"
    say "gpulab doctor on $(basename "$f"): $(py -c 'import json,sys; d=json.load(open(sys.argv[1])); print(", ".join(x.get("id","?") for x in d.get("findings",[])) or "no findings")' "${f%.json.gz}.doctor.json" 2>/dev/null)"
  done
}

step_errors() {
  py tools/lease_errors.py "$dir" >"$dir/log" 2>&1
  local rc=$?
  say "$(ls "$dir"/*.txt 2>/dev/null | wc -l) messages kept for explain's corpus"
  grep '^errors:' "$dir/log" | cut -c9- | while read -r l; do say "$l"; done
  return $rc
}

# ---- helpers ----

field() { # FILE a.b: a field of a JSON file, or nothing
  py -c 'import json,sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v = v.get(k) if isinstance(v, dict) else None
print("" if v is None else v)' "$1" "$2" 2>/dev/null
}
usable() { [ "$(field "$work/device.json" verdict.usable)" = True ]; }
verdict() { field "$work/device.json" verdict.summary; }
gpu_name() { py -c 'import json,sys; print(((json.load(open(sys.argv[1]))["runtime"]["devices"] or [{}])[0]).get("name"))' "$work/device.json" 2>/dev/null; }

# Runs a command stopped by its limit in seconds: TERM two seconds before,
# KILL at it. timeout signals the command's whole process group (a step's
# workers, python, compute-sanitizer).
within() { # LIMIT COMMAND...
  local limit=$1
  shift
  timeout --kill-after=2 "$((limit > 3 ? limit - 2 : 1))" "$@"
}

limit_of() { # STEP DEFAULT: GPULAB_LEASE_LIMITS may change it
  local kv
  local limits=${GPULAB_LEASE_LIMITS:-}
  for kv in ${limits//,/ }; do
    [ "${kv%%=*}" = "$1" ] && [[ "${kv#*=}" =~ ^[0-9]+$ ]] && { echo "${kv#*=}"; return; }
  done
  echo "$2"
}

# A bundle built against CUDA's libraries in /usr/local/cuda may land on a
# machine whose cuBLAS comes with PyTorch's wheels instead: those folders
# are put on LD_LIBRARY_PATH when the worker lacks a library.
find_libraries() { # sets libs to what it did, if anything
  local missing dirs
  libs=""
  missing=$(ldd bin/gpulab-worker 2>/dev/null | awk '/not found/ {print $1}' | paste -sd' ' -)
  [ -n "$missing" ] || return 0
  dirs=$(py -c 'import glob, os, site, sys
want = sys.argv[1].split()
found = sorted({os.path.dirname(p) for s in site.getsitepackages() for w in want for p in glob.glob(os.path.join(s, "nvidia", "*", "lib", w))})
print(":".join(found))' "$missing" 2>/dev/null)
  if [ -n "$dirs" ]; then
    export LD_LIBRARY_PATH="$dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    libs="the worker lacked $missing: found in $dirs"
  else
    libs="the worker lacks $missing, and the wheels of PyTorch have none of them"
  fi
}

lease() {
  local out=${1:?usage: tools/gpu_session.sh lease OUT [STEP,...]} only=${2:-}
  work=${GPULAB_LEASE_WORK:-${TMPDIR:-/tmp}/gpulab-lease}
  local entry name phase limit what t0 rc secs known=" "
  for entry in "${STEPS[@]}"; do known="$known${entry%% *} "; done
  for name in ${only//,/ }; do
    [[ "$known" == *" $name "* ]] || { echo "gpu_session: unknown step '$name' (steps:$known)" >&2; return 2; }
  done
  [ -n "$only" ] || rm -rf "$work"
  mkdir -p "$work" "$out" || return 1
  work=$(readlink -f "$work")
  # Python's output a line at a time, so a step cut at its limit keeps its log.
  export work PYTHONUNBUFFERED=1
  printf '%s\n' "${STEPS[@]}" >"$work/steps" # the packer's order and phases
  local libs
  find_libraries
  within $CHECK_LIMIT "$bin" device --json >"$work/device.json" 2>/dev/null
  py -c 'import json, sys, time
json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": sys.argv[1], "libraries": sys.argv[2]},
          open(sys.argv[3], "w"))' "$(cat COMMIT 2>/dev/null || echo unknown)" "$libs" "$work/started.json"
  echo "lease: $(verdict)${libs:+ ($libs)}"
  local start=$SECONDS
  for entry in "${STEPS[@]}"; do
    read -r name phase limit what <<<"$entry"
    [ -z "$only" ] || [[ ",$only," == *",$name,"* ]] || continue
    limit=$(limit_of "$name" "$limit")
    rm -rf "${work:?}/$name"; mkdir -p "$work/$name"
    t0=$SECONDS
    within "$limit" "$self" _step "$name" "$work/$name"
    rc=$? secs=$((SECONDS - t0))
    echo "$rc $secs $limit" >"$work/$name/rc"
    printf 'lease: %-9s %s in %d s of %d: %s\n' "$name" \
      "$(case $rc in 0) echo ok ;; 77) echo skipped ;; 124 | 137) echo CUT ;; *) echo "FAILED ($rc)" ;; esac)" \
      "$secs" "$limit" "$(head -1 "$work/$name/status" 2>/dev/null)"
  done
  echo "lease: steps took $((SECONDS - start)) s; packing"
  within $PACK_LIMIT python3 tools/lease_archive.py pack "$work" "$out"
}

case "${1:-}" in
  lease) shift; lease "$@" ;;
  unpack)
    [ -f "${2:-}" ] || { echo "usage: tools/gpu_session.sh unpack ARCHIVE [REPO]" >&2; exit 2; }
    python3 tools/lease_archive.py unpack "$2" "${3:-$root}" ;;
  limits) # each step's limit in seconds, GPULAB_LEASE_LIMITS applied, then the total
    total=0
    for s in "${STEPS[@]}"; do
      read -r n _ l _ <<<"$s"
      l=$(limit_of "$n" "$l")
      echo "$n $l"
      total=$((total + l))
    done
    echo "total $((total + CHECK_LIMIT + PACK_LIMIT))" ;;
  _step) # STEP DIR: one step, in its own process (the lease runs it under its limit)
    dir=$3
    "step_$2" ;;
  *) echo "usage: tools/gpu_session.sh lease OUT [STEP,...] | unpack ARCHIVE [REPO] | limits" >&2; exit 2 ;;
esac
