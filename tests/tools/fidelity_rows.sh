#!/usr/bin/env bash
# The fidelity runner refuses a malformed published.json and a held-out row
# that is not independent: each case edits one row of the real document (jq)
# and checks the runner's verdict by its TAP line, not its wording.
# Usage: fidelity_rows.sh BUILD/bin/lessonc   (tests/run.sh passes lessonc; the runner sits beside it)
set -uo pipefail
cd "$(dirname "$0")/../.."
bin="$(dirname "$(dirname "${1:-build/bin/lessonc}")")/tests/fidelity"
n=0 fails=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }
if [ ! -x "$bin" ]; then echo "1..0 # SKIP $bin was not built"; exit 0; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
doc=tests/fidelity/published.json

# case NAME JQ-FILTER CHECK-PATTERN: runs the runner on the edited document;
# the TAP line matching CHECK-PATTERN must say "not ok" and the run must fail.
case_fails() {
  jq "$2" "$doc" >"$tmp/doc.json" || { ok 1 "$1 (jq filter)"; return; }
  "$bin" "$tmp/doc.json" >"$tmp/out.txt" 2>&1
  local rc=$?
  grep -qE "^not ok [0-9]+ - $3" "$tmp/out.txt" && [ $rc -ne 0 ]
  ok $? "$1"
}

"$bin" "$doc" >"$tmp/out.txt" 2>&1
rc=$?
! grep -qE '^not ok [0-9]+ - (every row is well formed|no held-out row|every fitted row)' "$tmp/out.txt"
ok $? "the published document is well formed and its held-out and fitted rows are classed by the rules"
[ $rc -eq 0 ] || grep -q '^# fail 0$' "$tmp/out.txt"
ok $? "the published document passes (failures: $(grep -E '^# fail' "$tmp/out.txt"))"

row='.rows |= map(if .id == "h100-best-fp16" then'
case_fails "a row without where is refused" "$row del(.where) else . end)" 'every row is well formed'
case_fails "a row with an unknown key is refused" "$row . + {figure: \"x\"} else . end)" 'every row is well formed'
case_fails "a row whose unit is not its quantity's is refused" "$row .unit = \"GB/s\" else . end)" 'every row is well formed'
case_fails "a row without fitted true or false is refused" "$row del(.fitted) else . end)" 'every row is well formed'
case_fails "a where that quotes the source is refused" "$row .where = \"the line \\\"FP16 758\\\" of the table\" else . end)" \
  'every row is well formed'
case_fails "a probe that reads another quantity is refused" "$row .probe.series = \"tflops_bf16\" else . end)" \
  'every row is well formed'
case_fails "a source that is not a link is refused" "$row .source = \"zzc-db\" else . end)" 'every row is well formed'
case_fails "two rows with one id are refused" '.rows += [.rows[0]]' 'every row is well formed'
case_fails "derives names a figure the profile did not take from that source" \
  '.rows |= map(if .id == "h100-bf16-8192" then .derives = ["fp32_tflops"] else . end)' 'every row is well formed'
case_fails "a held-out row from the document its profile's figure came from is refused" \
  '.rows |= map(if .id == "h100-tf32-4096" then .fitted = false else . end)' 'no held-out row cites'
case_fails "a held-out row from the run that derived its own figure is refused" \
  '.rows |= map(if .id == "h100-fp32-8192" then .fitted = false else . end)' 'no held-out row cites'
case_fails "a fitted row that derives nothing and comes from another document is refused" \
  '.rows |= map(if .id == "h100-copy-p2ptest" then .fitted = true else . end)' 'every fitted row derives'
# Another document on a (profile, quantity) that a row derived a figure from
# is independent data the fit never saw: held out, and accepted.
jq '.rows |= map(if .id == "4090-fp32-8192-mli" then .fitted = false else . end)' "$doc" >"$tmp/doc.json"
"$bin" "$tmp/doc.json" >"$tmp/out.txt" 2>&1
! grep -qE '^not ok [0-9]+ - (every row is well formed|no held-out row|every fitted row)' "$tmp/out.txt"
ok $? "a held-out row from another document beside a row that derived the figure is accepted"
echo "1..$n"
[ $fails = 0 ]
