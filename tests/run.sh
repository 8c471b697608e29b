#!/usr/bin/env bash
# Runs every test of gpulab against a build (and its sanitizer twin) and
# prints one summary line: "N passed, N failed, N skipped in T s", after the
# list of what was skipped and why; each stage's line ends with its wall
# time, to see where a slow run goes. Usage: tests/run.sh BUILD [SAN_BUILD]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
san=${2:-}
passed=0 failed=0 skipped=0
skips=()
failures=()
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT
stage_limit=${GPULAB_STAGE_LIMIT:-1200} # seconds: a hung stage fails instead of hanging CI (the longest, e2e, takes about 380 s here, twice that with four busy loops beside)
run_start=$(date +%s)
stage_start=$run_start

cpu_seen=0
children_cpu() { # CPU seconds (user + system) of every child process reaped so far (times runs in this shell, not a subshell)
  times >"$logdir/times"
  tail -1 "$logdir/times" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d", t }'
}
add() { # stage passed failed skipped [seconds]: its line, with the seconds since the last stage ended (or those given) and the CPU seconds its processes (and any stage beside it that ended meanwhile) used
  local now cpu
  now=$(date +%s)
  children_cpu >"$logdir/cpu"; cpu=$(cat "$logdir/cpu")
  passed=$((passed + $2)); failed=$((failed + $3)); skipped=$((skipped + $4))
  printf '  %-28s %4d passed, %d failed, %d skipped  (%d s, %d s CPU)\n' "$1" "$2" "$3" "$4" "${5:-$((now - stage_start))}" $((cpu - cpu_seen))
  cpu_seen=$cpu
  stage_start=$now
  [ "$3" -gt 0 ] && failures+=("$1")
  return 0
}

# The unit runner as two processes at once, one per core: the test cases
# tagged "apart" (half of the advice scan, which is most of the stage: every
# experiment at each parameter's bounds and between, on every profile) and
# every other case (Check's CK_INCLUDE_TAGS, CK_EXCLUDE_TAGS). Their counts
# are added up.
#
# The sanitizer build's cases run in one process per half (CK_FORK=no, the
# third argument): under AddressSanitizer a forked case costs about 0.15 s
# of its own (the leak check at each child's exit), 706 cases 2.3 times the
# CPU of the cases themselves; in one process a leak anywhere is still found
# at exit, with the case's stack. Cases must leave no state behind (a test
# for it: the plain build forks, the sanitizer build does not, both pass).
check_stage() { # name binary [fork: yes|no]
  local log="$logdir/${1//[^A-Za-z0-9]/_}" rc=0 part n=0 f=0 e=0 line apart fork=${3:-yes}
  if [ ! -x "$2" ]; then skips+=("$1: $2 was not built (Check missing?)"); add "$1" 0 0 1; return; fi
  CK_FORK=$fork CK_INCLUDE_TAGS=apart timeout --kill-after=10 "$stage_limit" "$2" >"$log.apart.log" 2>&1 &
  apart=$!
  CK_FORK=$fork CK_EXCLUDE_TAGS=apart timeout --kill-after=10 "$stage_limit" "$2" >"$log.rest.log" 2>&1 || rc=1
  wait $apart || rc=1
  for part in "$log.apart.log" "$log.rest.log"; do
    line=$(grep -E '^[0-9]+%: Checks: ' "$part" | tail -1)
    if [ -z "$line" ]; then f=$((f + 1)); tail -5 "$part"; continue; fi
    n=$((n + $(sed -E 's/.*Checks: ([0-9]+).*/\1/' <<<"$line")))
    f=$((f + $(sed -E 's/.*Failures: ([0-9]+).*/\1/' <<<"$line")))
    e=$((e + $(sed -E 's/.*Errors: ([0-9]+).*/\1/' <<<"$line")))
  done
  [ $rc -ne 0 ] && [ $((f + e)) -eq 0 ] && f=1 &&
    grep -hE -A14 'ERROR: (LeakSanitizer|AddressSanitizer)|runtime error' "$log.apart.log" "$log.rest.log" | head -40
  [ $((f + e)) -gt 0 ] && cat "$log.apart.log" "$log.rest.log" | grep -vE '^(Running suite|100%)' | grep -E ':[EF]:|Assert|error' | head -20
  add "$1" $((n - f - e)) $((f + e)) 0
}

tap_stage() { # name command...
  local name=$1
  shift
  timeout --kill-after=10 "$stage_limit" "$@" >"$logdir/${name//[^A-Za-z0-9]/_}.log" 2>&1
  tap_report "$name" $?
}

# A stage run beside the next ones (it mostly waits: servers starting):
# tap_begin starts it, tap_end waits for it and reports it, with its own
# time (from its start to its end, not to the report).
tap_begin() { # name command...
  local name=$1 log="$logdir/${1//[^A-Za-z0-9]/_}.log"
  shift
  date +%s >"$log.t0"
  ( timeout --kill-after=10 "$stage_limit" "$@" >"$log" 2>&1; echo $? >"$log.rc"; date +%s >"$log.t1" ) &
  echo $! >"$log.pid"
}
tap_end() { # name
  local log="$logdir/${1//[^A-Za-z0-9]/_}.log"
  wait "$(cat "$log.pid")"
  tap_report "$1" "$(cat "$log.rc" 2>/dev/null || echo 1)" $(($(cat "$log.t1" 2>/dev/null || date +%s) - $(cat "$log.t0")))
}

tap_report() { # name rc [seconds]: counts the TAP log of a stage that has ended
  local name=$1 log="$logdir/${1//[^A-Za-z0-9]/_}.log" rc=$2 secs=${3:-}
  local p f s
  if grep -qE '^# (pass|fail) ' "$log"; then
    p=$(grep -E '^# pass ' "$log" | awk '{s+=$3} END {print s+0}')
    f=$(grep -E '^# fail ' "$log" | awk '{s+=$3} END {print s+0}')
    s=$(grep -E '^# (skipped|todo) ' "$log" | awk '{s+=$3} END {print s+0}')
  else
    p=$(grep -cE '^ok ' "$log"); f=$(grep -cE '^not ok ' "$log"); s=$(grep -cE '^ok .*# SKIP' "$log")
    p=$((p - s))
  fi
  [ $rc -eq 124 ] && echo "---- $name: stopped after ${stage_limit}s ----"
  [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
  if [ "$f" -gt 0 ]; then
    echo "---- $name: failures ----"; grep -E -B2 -A25 '^not ok ' "$log" | head -120
    [ "$(grep -cE '^not ok ' "$log")" -eq 0 ] && tail -40 "$log"
  fi
  while IFS= read -r line; do skips+=("$name: $line"); done < <(grep -E '# SKIP' "$log" | sed -E 's/^ *ok [0-9]+ - //')
  add "$name" "$p" "$f" "$s" $secs
}

echo "gpulab tests (build: $build${san:+, sanitizer build: $san})"
check_stage unit "$build/tests/check_all"
if [ -x "$build/tests/fidelity" ]; then
  tap_stage fidelity "$build/tests/fidelity" tests/fidelity/published.json
else
  skips+=("fidelity: $build/tests/fidelity was not built"); add fidelity 0 0 1
fi
# The training planner's references (tests/plan/README.md): published
# training memory on real GPUs, held out (no planner file cites a row's
# source); and real PyTorch (Debian's torch 1.13 on the CPU, in
# /usr/bin/python3) building the same models: a missing torch fails.
if [ -x "$build/tests/plan_fidelity" ]; then
  tap_stage "plan fidelity" "$build/tests/plan_fidelity" tests/plan/published.json lab/plan/*.[ch]
else
  skips+=("plan fidelity: $build/tests/plan_fidelity was not built"); add "plan fidelity" 0 0 1
fi
tap_stage "plan pytorch" "${GPULAB_TORCH_PYTHON:-/usr/bin/python3}" tests/plan/torch_ref.py "$build/bin/gpulab"
# ... and the kit's --plan runs on real GPUs (tests/plan/lease/), planned
# again by today's planner: every measured counter in today's band.
tap_stage "plan lease" python3 tests/plan/lease.py "$build/bin/gpulab"
# Every lesson claim (lessons/*/claims.json, compiled by lessonc into
# BUILD/claims.json) on every profile it names, simulated: a failure names
# the lesson line (or the quiz line, for a claim backing a quiz answer) and
# the numbers; a claim marked pending counts as skipped. Each lesson's line
# counts its claims, checks and quiz items (bound, conceptual).
if [ -x "$build/bin/claimcheck" ] && [ -f "$build/claims.json" ]; then
  tap_stage claims "$build/bin/claimcheck" "$build/claims.json"
  grep -hE '^# lesson ' "$logdir/claims.log" | sed 's/^# /  /'
  # The same claims against the real GPU's recordings (web/recorded/, from
  # the last lease): each claim whose runs a recording holds, so a lesson
  # edit that breaks a claim on that card fails here, without a GPU.
  tap_stage "claims recorded" "$build/bin/claimcheck" --recorded web/recorded "$build/claims.json"
else
  skips+=("claims: $build/bin/claimcheck or $build/claims.json was not built (make lessons)"); add claims 0 0 1
fi
# A class on a cluster: PostgreSQL, Slurm and HAProxy, started by the stage
# (it says it skipped, and why, where it cannot: it needs root). It mostly
# waits for those to start and answer (six minutes, most of it heartbeats,
# failovers and restarts), so it runs beside the tool, API, fuzz and browser
# stages (its line comes after theirs, with its own time); all of them hold
# on a busy machine. GPULAB_SCALE_APART=1 runs it alone.
scale_beside=0
if [ -x tests/scale/run.sh ]; then
  if [ "${GPULAB_SCALE_APART:-0}" = 1 ]; then tap_stage scale tests/scale/run.sh "$build"
  else tap_begin scale tests/scale/run.sh "$build"; scale_beside=1; fi
fi
# A tool test that mostly waits (its own servers and sub-processes) and
# writes only to its own temporary folder says "make test runs this beside
# the other tools" and runs beside them, its line after theirs.
tools_beside=()
for t in tests/tools/*.sh; do
  grep -q '^# make test runs this beside the other tools' "$t" || continue
  tools_beside+=("tools/$(basename "$t" .sh)")
  tap_begin "tools/$(basename "$t" .sh)" bash "$t" "$build/bin/lessonc"
done
for t in tests/tools/*.sh; do
  [[ " ${tools_beside[*]} " == *" tools/$(basename "$t" .sh) "* ]] && continue
  [ -f "$t" ] && tap_stage "tools/$(basename "$t" .sh)" bash "$t" "$build/bin/lessonc"
done
for t in "${tools_beside[@]}"; do tap_end "$t"; done
# The API and CLI test files each start their own servers on free ports
# with their own temporary folders, and mostly wait on them (deadlines,
# idle timeouts, workers): several files run at once (api_jobs; node's
# default is one fewer than the cores, one file at a time on two). A file
# that times an answer against a bound of the product's own (a second or
# so) says "make test runs this file alone" and runs after the others, by
# itself, so that the other files' load is not what it measures.
api_jobs=${GPULAB_API_JOBS:-4}
api_files=(tests/api/*.test.mjs tests/cli/*.test.mjs)
api_alone=$(grep -l '^// make test runs this file alone' "${api_files[@]}" 2>/dev/null | tr '\n' ' ')
api_together=()
for f in "${api_files[@]}"; do [[ " $api_alone " == *" $f "* ]] || api_together+=("$f"); done
run_api() { # jobs FILE... -- FILE...: the first files together, the rest one at a time; TAP
  local jobs=$1 rc=0 together=() alone=()
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do together+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  alone=("$@")
  node --test --test-concurrency="$jobs" --test-reporter=tap "${together[@]}" || rc=1
  if [ ${#alone[@]} -gt 0 ]; then node --test --test-concurrency=1 --test-reporter=tap "${alone[@]}" || rc=1; fi
  return $rc
}
export -f run_api
api_stage() { # name gpulab-binary
  GPULAB_BIN="$2" GPULAB_WEB="$build/web" tap_stage "$1" bash -c 'run_api "$@"' run_api "$api_jobs" "${api_together[@]}" -- $api_alone
}
if [ -e "${api_files[0]}" ]; then
  api_stage api+cli "$build/bin/gpulab"
fi
# The libFuzzer harnesses (make fuzz-bins) replay their seed corpora: fast
# and deterministic; `make fuzz` is where they explore.
if ls tests/fuzz/fuzz_*.c >/dev/null 2>&1; then
  tap_stage "fuzz corpora" tests/fuzz/run.sh replay "${GPULAB_FUZZ_BUILD:-build-fuzz}"
fi
# The browser tests: each file starts its own server and Chromium, and much
# of a test is waiting (a server that never answers for 10 s, a worker
# starting, a page settling), so two files run at once.
if ls tests/e2e/*.test.mjs >/dev/null 2>&1; then
  GPULAB_BIN="$build/bin/gpulab" GPULAB_SCREENSHOTS="$build/screenshots" \
    tap_stage e2e node --test --test-concurrency=2 --test-reporter=tap tests/e2e/
fi
[ "$scale_beside" = 1 ] && tap_end scale
if [ -n "$san" ]; then
  export ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
  # The advice scan at each number's bounds only (tests/unit/check_advice.c,
  # scan_bounds_only): the plain build scanned the points between.
  GPULAB_ADVICE_SCAN=bounds check_stage "unit (sanitizers)" "$san/tests/check_all" no
  if [ -e "${api_files[0]}" ]; then
    api_stage "api+cli (sanitizers)" "$san/bin/gpulab"
  fi
fi

# GPU tests need a usable device; without one they are counted as skipped,
# with the reason. A machine that has an NVIDIA GPU (a device node, or
# nvidia-smi listing one) must not skip them: there a broken device check,
# or a verdict of "not usable", is a failure.
gpu_tests=(tests/gpu/check_*.py)
if [ -e "${gpu_tests[0]}" ]; then
  verdict=$("$build/bin/gpulab" device --json 2>/dev/null | python3 -c 'import json,sys; v=json.load(sys.stdin)["verdict"]; print(("1 " if v["usable"] else "0 ")+v["summary"])' 2>/dev/null || echo "x the device check itself failed")
  has_gpu=0
  if ls /dev/nvidia[0-9]* >/dev/null 2>&1 || { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }; then
    has_gpu=1
  fi
  if [ "${verdict%% *}" = 1 ]; then
    for t in "${gpu_tests[@]}"; do tap_stage "gpu/$(basename "$t" .py)" python3 "$t" "$build"; done
  elif [ "$has_gpu" = 1 ]; then
    echo "---- gpu: this machine has an NVIDIA GPU but gpulab cannot use it: ${verdict#* } ----"
    "$build/bin/gpulab" device 2>&1 | tail -20
    add "gpu (device check)" 0 1 0
  else
    for t in "${gpu_tests[@]}"; do skips+=("gpu/$(basename "$t" .py): ${verdict#* } (run make gpu-check on a GPU machine)"); done
    add "gpu" 0 0 ${#gpu_tests[@]}
  fi
fi

if [ ${#skips[@]} -gt 0 ]; then
  echo "skipped:"
  for s in "${skips[@]}"; do echo "  - $s"; done
fi
[ ${#failures[@]} -gt 0 ] && echo "failed stages: ${failures[*]}"
children_cpu >"$logdir/cpu"
echo "$passed passed, $failed failed, $skipped skipped in $(($(date +%s) - run_start)) s ($(cat "$logdir/cpu") s CPU)"
[ "$failed" -eq 0 ]
