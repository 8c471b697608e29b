#!/usr/bin/env bash
# The planner's fidelity runner (tests/plan/plan_fidelity.c) refuses a
# malformed row, settings the planner refuses, a row whose source a planner
# file cites (it would not be held out), too few rows, and a share of rows
# out of the band below the goal: each case edits the real document (jq) and
# checks the runner's verdict by its TAP line, not its wording.
# Usage: plan_rows.sh BUILD/bin/lessonc   (tests/run.sh passes lessonc; the runner sits beside it)
set -uo pipefail
cd "$(dirname "$0")/../.."
bin="$(dirname "$(dirname "${1:-build/bin/lessonc}")")/tests/plan_fidelity"
n=0 fails=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }
if [ ! -x "$bin" ]; then echo "1..0 # SKIP $bin was not built"; exit 0; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
doc=tests/plan/published.json
planner=(lab/plan/*.[ch])

# case NAME JQ-FILTER CHECK-PATTERN [PLANNER FILES...]: the runner on the
# edited document must fail, and the TAP line matching CHECK-PATTERN say "not ok".
case_fails() {
  local name=$1 filter=$2 pattern=$3
  shift 3
  jq "$filter" "$doc" >"$tmp/doc.json" || { ok 1 "$name (jq filter)"; return; }
  "$bin" "$tmp/doc.json" "${@:-${planner[@]}}" >"$tmp/out.txt" 2>&1
  local rc=$?
  grep -qE "^not ok [0-9]+ - $pattern" "$tmp/out.txt" && [ $rc -ne 0 ]
  ok $? "$name"
}

"$bin" "$doc" "${planner[@]}" >"$tmp/out.txt" 2>&1
ok $? "the published rows pass as they are"
case_fails "an unknown key is refused" '.rows[0].derived = 1' 'every row is well formed'
case_fails "a missing source is refused" 'del(.rows[1].source)' 'every row is well formed'
case_fails "a source that is not https is refused" '.rows[2].source = "http://example.com/x"' 'every row is well formed'
case_fails "a unit that is not a byte unit is refused" '.rows[3].unit = "ms"' 'every row is well formed'
case_fails "an unknown counter is refused" '.rows[4].counter = "active"' 'every row is well formed'
case_fails "a duplicate id is refused" '.rows[5].id = .rows[4].id' 'every row is well formed'
case_fails "a where with quotation marks is refused" '.rows[6].where = "the line that says \"peak\" in the table"' 'every row is well formed'
case_fails "a measured context in place of the planner's is refused" '.rows[0].context_mib = 1341' 'every row is well formed'
case_fails "a CUDA version the planner does not know is refused" '.rows[0].settings.cuda = 9.2' 'every row is well formed'
case_fails "lazy loading on a CUDA before 11.7 is refused" '.rows[1].settings.module_loading = "lazy"' 'every row is well formed'
case_fails "settings the planner refuses are refused" '.rows[7].settings.precision = "fp8"' 'every row is well formed'
case_fails "fewer than 20 rows fail the goal" '.rows |= .[0:19]' 'at least 20 rows'
case_fails "a counter no row measures fails" '.rows |= map(select(.counter != "reserved"))' 'every counter is measured'
case_fails "three rows of 20 out of the band miss the 90 % goal" \
  '.rows[0].published = (.rows[0].published * 2) | .rows[1].published = (.rows[1].published * 2) | .rows[2].published = (.rows[2].published * 2)' \
  'at least 90%'
echo "// $(jq -r '.rows[0].source' "$doc")" >"$tmp/cites.c"
case_fails "a planner file citing a row's source makes the rows not held out" '.' 'held out' "${planner[@]}" "$tmp/cites.c"
echo "1..$n"
exit $((fails > 0))
