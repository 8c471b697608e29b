#!/usr/bin/env bash
# `make gpu-check`: every GPU test against a usable device, plus
# compute-sanitizer memcheck over each experiment. Prints TAP per test and
# one summary line. Usage: tests/gpu/run.sh BUILD
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
bin="$build/bin/gpulab"
if ! "$bin" device --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["verdict"]["usable"] else 1)'; then
  "$bin" device
  echo "gpu-check: no usable GPU here, nothing to check"
  exit 1
fi
pass=0 fail=0
for t in tests/gpu/check_*.py; do
  [ -e "$t" ] || continue
  out=$(python3 "$t" "$build" 2>&1); echo "$out"
  pass=$((pass + $(grep -cE '^ok ' <<<"$out"))); fail=$((fail + $(grep -cE '^not ok ' <<<"$out")))
done
# memcheck (with leak checking: the worker resets the device as it exits, so
# what was never freed is reported) over every experiment at its smallest
# sizes, which keeps the sanitizer's slowdown bearable; a run whose smallest
# values break a cross-parameter rule falls back to the defaults.
small_args() {
  "$bin" experiments --json | python3 -c 'import json,sys
e = next(x for x in json.load(sys.stdin)["experiments"] if x["name"] == sys.argv[1])
print(" ".join("--%s=%s" % (p["name"], p["min"]) for p in e["params"] if p["type"] in ("integer", "number")))' "$1"
}
if command -v compute-sanitizer >/dev/null; then
  for name in $("$bin" experiments --names); do
    args=$(small_args "$name")
    "$bin" run "$name" $args --backend simulated --json >/dev/null 2>&1 || args=""
    log=$(compute-sanitizer --tool memcheck --leak-check full --target-processes all --error-exitcode 9 \
      "$bin" run "$name" $args --backend cuda --json 2>&1 >/dev/null)
    rc=$?
    # Some GPU machines (gVisor sandboxes) refuse compute-sanitizer: said
    # once as a skip with the reason; the CPU-reference checks still stand.
    if grep -q 'Device not supported' <<<"$log"; then
      echo "ok - memcheck # SKIP compute-sanitizer refused this device (Device not supported): rely on the CPU-reference validation"
      break
    fi
    if [ $rc -eq 0 ]; then echo "ok - memcheck $name"; pass=$((pass + 1));
    else echo "not ok - memcheck $name (exit $rc)"; tail -20 <<<"$log"; fail=$((fail + 1)); fi
  done
else
  echo "ok - memcheck # SKIP compute-sanitizer not found"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
