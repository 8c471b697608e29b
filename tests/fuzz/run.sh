#!/usr/bin/env bash
# Runs the libFuzzer harnesses built by `make fuzz-bins` (tests/fuzz/fuzz_*.c).
#   run.sh replay BUILD        each harness over its seed corpus, once: TAP,
#                              one line per harness (make test's stage)
#   run.sh explore BUILD SECS  each harness for SECS seconds from its seeds
#                              (make fuzz): executions reached, findings;
#                              fails on any crash, leak or timeout
# Findings are written to BUILD/findings/ as libFuzzer's crash-*, leak-*,
# timeout-* files; a finding worth keeping goes into the seed corpus once fixed.
set -uo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-replay}
build=${2:-build-fuzz}
secs=${3:-60}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
names=()
for src in tests/fuzz/fuzz_*.c; do names+=("$(basename "$src" .c)"); done
[ ${#names[@]} -gt 0 ] || { echo "no harnesses in tests/fuzz" >&2; exit 1; }
mkdir -p "$build/findings" "$build/logs"
flags=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
failed=0

if [ "$mode" = replay ]; then
  echo "TAP version 13"
  n=0
  for name in "${names[@]}"; do
    n=$((n + 1))
    bin="$build/$name" seeds="tests/fuzz/corpus/${name#fuzz_}"
    if [ ! -x "$bin" ]; then
      echo "ok $n - $name # SKIP not built (needs clang with libFuzzer: make deps, then make fuzz-bins)"
      continue
    fi
    log="$build/logs/$name.replay.log"
    if "$bin" "${flags[@]}" -runs=0 "$seeds" >"$log" 2>&1; then
      echo "ok $n - $name replays its $(ls "$seeds" | wc -l) seeds"
    else
      echo "not ok $n - $name failed on its seed corpus"
      grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$log" | head -10 | sed 's/^/  # /'
      failed=1
    fi
  done
  echo "1..$n"
  exit $failed
fi

[ "$mode" = explore ] || { echo "usage: tests/fuzz/run.sh replay|explore BUILD [SECS]" >&2; exit 2; }
printf '%-22s %12s %8s %8s  %s\n' harness executions exec/s corpus findings
for name in "${names[@]}"; do
  bin="$build/$name" seeds="tests/fuzz/corpus/${name#fuzz_}"
  [ -x "$bin" ] || { echo "$name: not built (needs clang with libFuzzer)" >&2; failed=1; continue; }
  # The corpus grows in the build folder; the committed seeds stay as they are.
  work="$build/corpus/$name"
  mkdir -p "$work"
  log="$build/logs/$name.log"
  before=$(ls "$build/findings" | grep -c "^$name-" || true)
  "$bin" "${flags[@]}" -max_total_time="$secs" -artifact_prefix="$build/findings/$name-" "$work" "$seeds" >"$log" 2>&1
  rc=$?
  execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -1)
  speed=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+).*/\1/p' "$log" | tail -1)
  found=$(( $(ls "$build/findings" | grep -c "^$name-" || true) - before ))
  printf '%-22s %12s %8s %8s  %s\n' "$name" "${execs:-?}" "${speed:-?}" "$(ls "$work" | wc -l)" \
    "$([ $rc -eq 0 ] && [ "$found" -eq 0 ] && echo none || echo "$found new, exit $rc: see $log")"
  if [ $rc -ne 0 ] || [ "$found" -gt 0 ]; then
    failed=1
    grep -E "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY" "$log" | head -5 | sed 's/^/    /'
  fi
done
[ $failed -eq 0 ] && echo "fuzz: no findings" || echo "fuzz: FINDINGS (inputs in $build/findings/)"
exit $failed
