#!/usr/bin/env bash
# `make gpu-check`: every GPU test against a usable device, plus
# compute-sanitizer memcheck over each experiment. Prints TAP per test and
# one summary line. PART is `checks` (the tests), `memcheck`, or both (the
# default); the GPU lease (tools/gpu_session.sh) gives each its own time
# limit. Usage: tests/gpu/run.sh BUILD [checks|memcheck|all]
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
part=${2:-all}
case "$part" in checks | memcheck | all) ;; *) echo "usage: tests/gpu/run.sh BUILD [checks|memcheck|all]" >&2; exit 2 ;; esac
bin="$build/bin/gpulab"
if ! "$bin" device --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["verdict"]["usable"] else 1)'; then
  "$bin" device
  echo "gpu-check: no usable GPU here, nothing to check"
  exit 1
fi
pass=0 fail=0
if [ "$part" != memcheck ]; then
  for t in tests/gpu/check_*.py; do
    [ -e "$t" ] || continue
    out=$(python3 "$t" "$build" 2>&1); echo "$out"
    pass=$((pass + $(grep -cE '^ok ' <<<"$out"))); fail=$((fail + $(grep -cE '^not ok ' <<<"$out")))
  done
fi
# memcheck (with leak checking: the worker resets the device as it exits, so
# what was never freed is reported) over every experiment at its smallest
# sizes, which keeps the sanitizer's slowdown bearable; a run whose smallest
# values break a cross-parameter rule falls back to the defaults. Nothing
# here is timed, so MEMCHECK_JOBS experiments (default 4) run at once: the
# sanitizer spends most of its time on the CPU.
small_args() {
  "$bin" experiments --json | python3 -c 'import json,sys
e = next(x for x in json.load(sys.stdin)["experiments"] if x["name"] == sys.argv[1])
print(" ".join("--%s=%s" % (p["name"], p["min"]) for p in e["params"] if p["type"] in ("integer", "number")))' "$1"
}
memcheck_one() { # NAME DIR: prints its TAP line as soon as it ends, and DIR/NAME.rc
  local args log rc
  args=$(small_args "$1")
  "$bin" run "$1" $args --backend simulated --json >/dev/null 2>&1 || args=""
  log=$(compute-sanitizer --tool memcheck --leak-check full --target-processes all --error-exitcode 9 \
    "$bin" run "$1" $args --backend cuda --json 2>&1 >"$2/$1.json")
  rc=$?
  # A run that failed by itself (not the sanitizer's 9) says why in its envelope.
  [ $rc -eq 0 ] || [ $rc -eq 9 ] || log="$log
args: $args
$(python3 -c 'import json,sys
e = json.load(open(sys.argv[1])).get("error") or {}
print("error:", e.get("code"), e.get("param"), e.get("message"))' "$2/$1.json" 2>&1 | head -c 600)"
  # Some GPU machines (gVisor sandboxes) refuse compute-sanitizer: said as
  # a skip with the reason; the CPU-reference checks still stand.
  if grep -q 'Device not supported' <<<"$log"; then
    echo "ok - memcheck $1 # SKIP compute-sanitizer refused this device (Device not supported): rely on the CPU-reference validation"
    rc=skip
  elif [ $rc -eq 0 ]; then echo "ok - memcheck $1"
  else printf 'not ok - memcheck %s (exit %d)\n%s\n' "$1" $rc "$(tail -20 <<<"$log")"; fi
  echo $rc >"$2/$1.rc"
}
if [ "$part" = checks ]; then
  :
elif command -v compute-sanitizer >/dev/null; then
  dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
  running=0
  for name in $("$bin" experiments --live); do
    memcheck_one "$name" "$dir" &
    running=$((running + 1))
    if [ $running -ge "${MEMCHECK_JOBS:-4}" ]; then wait -n; running=$((running - 1)); fi
  done
  wait
  pass=$((pass + $(cat "$dir"/*.rc | grep -cx 0))); fail=$((fail + $(cat "$dir"/*.rc | grep -cvxE '0|skip')))
else
  echo "ok - memcheck # SKIP compute-sanitizer not found"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
