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
if command -v compute-sanitizer >/dev/null; then
  for name in $("$bin" experiments --json | python3 -c 'import json,sys; print(" ".join(e["name"] for e in json.load(sys.stdin)["experiments"]))'); do
    log=$(compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$bin" run "$name" --backend cuda --json 2>&1 >/dev/null)
    rc=$?
    if [ $rc -eq 0 ]; then echo "ok - memcheck $name"; pass=$((pass + 1));
    else echo "not ok - memcheck $name (exit $rc)"; tail -20 <<<"$log"; fail=$((fail + 1)); fi
  done
else
  echo "ok - memcheck # SKIP compute-sanitizer not found"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
