#!/usr/bin/env bash
# Tests for lesson claims (lessons/README.md, "claims.json"): lessonc binds a
# claim to its lesson line and rejects malformed ones with FILE:LINE and
# what to do; claimcheck passes a true claim, fails a false one with the
# lesson line and the numbers, and reports a pending one as TODO.
# Usage: tests/tools/claims.sh BUILD/bin/lessonc (from the repository root). Prints TAP.
set -u
LESSONC=${1:?usage: tests/tools/claims.sh PATH/TO/lessonc}
CHECK=$(dirname "$LESSONC")/claimcheck
[ -x "$LESSONC" ] && [ -x "$CHECK" ] || { echo "Bail out! $LESSONC or $CHECK is not an executable"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
N=0
FAILED=0
ok() { N=$((N + 1)); echo "ok $N - $1"; }
not_ok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $1"; sed 's/^/# /' "$TMP/out" 2>/dev/null; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }

MD='# Claims lesson

A one-line summary.

## Placement {#placement}

Some text first.

Run it as it is: all five tensors end up on the GPU
and the layer runs there.

::: experiment placement
'
QUIZ='{"pass_pct": 75, "questions": [{"id": "q1", "prompt": "Pick b.", "options": [{"id": "a", "text": "A"},
 {"id": "b", "text": "B"}], "correct": ["b"], "explanation": "Because."}]}'

# lesson NAME CLAIMS_JSON: a lesson folder whose claims.json is CLAIMS_JSON.
lesson() {
  mkdir -p "$TMP/$1"
  printf '%s' "$MD" >"$TMP/$1/lesson.md"
  printf '%s' "$QUIZ" >"$TMP/$1/quiz.json"
  printf '%s' "$2" >"$TMP/$1/claims.json"
}
# claim EXPECT [EXTRA]: one claim on the quoted sentence with these conditions.
claim() {
  printf '{\n  "claims": [\n    {\n      "id": "five-on-gpu",\n      "quote": "all five tensors end up on the GPU and the layer runs there.",\n      "experiment": "placement",\n      "profiles": ["t4", "h100-sxm"],%s\n      "expect": %s\n    }\n  ]\n}\n' "${2:-}" "$1"
}
compile() { "$LESSONC" --web "$TMP/web" --keys "$TMP/keys" --claims "$TMP/$1.checks.json" "$TMP/$1" >"$TMP/out" 2>&1; }
# rejects NAME LINE MESSAGE_PART: lessonc fails with claims.json:LINE and the message, writing nothing.
rejects() {
  compile "$1"
  local rc=$?
  if [ $rc = 1 ] && grep -qF "$TMP/$1/claims.json:$2: " "$TMP/out" && grep -qF -- "$3" "$TMP/out" &&
    [ ! -e "$TMP/$1.checks.json" ]; then
    ok "lessonc rejects $1 at claims.json:$2 ($3)"
  else
    not_ok "lessonc rejects $1 at claims.json:$2 ($3)"
  fi
}

# The real lessons: every claim compiles, bound to a line of its lesson.
"$LESSONC" --web "$TMP/realweb" --keys "$TMP/realkeys" --claims "$TMP/real.json" lessons/*/ >"$TMP/out" 2>&1
check "the lessons' claims compile into one checks file" '[ $? = 0 ] && [ -s "$TMP/real.json" ]'
check "every lesson has claims, each bound to a line of its lesson.md" 'python3 - "$TMP/real.json" <<PY
import json, sys, glob
claims = json.load(open(sys.argv[1]))["claims"]
lessons = {c["lesson"] for c in claims}
assert lessons == {p.split("/")[1] for p in glob.glob("lessons/*/lesson.md")}, lessons
for c in claims:
    lines = open(c["file"]).read().split("\n")
    assert 1 <= c["line"] <= len(lines), c["id"]
    assert c["quote"].split()[0] in lines[c["line"] - 1], (c["id"], lines[c["line"] - 1])
PY'

# A true claim passes on each profile; the line is the one the quote starts on.
lesson good "$(claim '[{"left": "metrics.tensors_on_gpu", "op": "==", "value": 5}, {"left": "findings[0]", "op": "contains", "value": "cuda:0"}]')"
compile good
"$CHECK" "$TMP/good.checks.json" >"$TMP/out" 2>&1
check "a true claim passes on every profile it names" '[ $? = 0 ] && grep -qF "ok 1 - $TMP/good/lesson.md:9 claim '"'five-on-gpu'"' on t4" "$TMP/out" && grep -q "^# pass 2$" "$TMP/out"'

# A false claim fails with the lesson line, the claims line and the numbers.
lesson wrong "$(claim '[{"left": "metrics.tensors_on_gpu", "op": "<", "right": "metrics.tensors_on_cpu", "times": 2}]')"
compile wrong
"$CHECK" "$TMP/wrong.checks.json" >"$TMP/out" 2>&1
rc=$?
check "a false claim fails with its lesson line and the numbers that broke it" \
  '[ $rc = 1 ] && grep -qF "not ok 1 - $TMP/wrong/lesson.md:9: claim '"'five-on-gpu'"' on t4: metrics.tensors_on_gpu = 5 is not < metrics.tensors_on_cpu = 0 × 2 = 0" "$TMP/out" && grep -qF "the claim: $TMP/wrong/claims.json:3" "$TMP/out" && grep -q "^# fail 2$" "$TMP/out"'

lesson wrongval "$(claim '[{"left": "metrics.copy_ms", "op": "~", "value": 5, "tol": 0.1}]')"
compile wrongval
"$CHECK" "$TMP/wrongval.checks.json" >"$TMP/out" 2>&1
check "a wrong value fails with the figure measured and the tolerance" \
  '[ $? = 1 ] && grep -qE "metrics.copy_ms = [0-9.e-]+ is not ~ 5 within 10%" "$TMP/out"'

# A pending claim that fails is a TODO, not a failure.
lesson pending "$(claim '[{"left": "metrics.tensors_on_gpu", "op": "==", "value": 4}]' '
      "pending": "issue 22: waiting for the fair crossover",')"
compile pending
"$CHECK" "$TMP/pending.checks.json" >"$TMP/out" 2>&1
check "a failing pending claim is reported as TODO and does not fail" \
  '[ $? = 0 ] && grep -q "# TODO pending: issue 22" "$TMP/out" && grep -q "^# todo 2$" "$TMP/out" && grep -q "^# fail 0$" "$TMP/out"'

# A refused run: the claim holds when the run is refused with that code.
lesson refusal '{"claims": [{"id": "too-big", "quote": "Some text first.", "experiment": "allocator",
  "params": {"layers": 32, "weight_mib": 1024}, "profiles": ["t4"], "refused": "invalid_param"}]}'
compile refusal
"$CHECK" "$TMP/refusal.checks.json" >"$TMP/out" 2>&1
check "a claim that a run is refused passes when it is" '[ $? = 0 ] && grep -q "^# pass 1$" "$TMP/out"'

# --gpu runs each claim that holds on every profile once through the CLI;
# here a stand-in for gpulab answers with the simulator's H100 instead of a GPU.
GPULAB=$(dirname "$LESSONC")/gpulab
[ -x "$GPULAB" ] || GPULAB=build/bin/gpulab
cat >"$TMP/fakegpu" <<SH
#!/usr/bin/env bash
args=(); for a in "\$@"; do [ "\$a" = cuda ] && a=simulated; args+=("\$a"); done
exec "$GPULAB" "\${args[@]}" --profile h100-sxm
SH
chmod +x "$TMP/fakegpu"
"$CHECK" --gpu "$TMP/fakegpu" "$TMP/real.json" >"$TMP/out" 2>&1
check "--gpu runs every claim that holds on all profiles through gpulab run, and skips the others" \
  '[ $? = 0 ] && grep -q "# SKIP it names some profiles only" "$TMP/out" && grep -q "# SKIP it is about simulated results only" "$TMP/out" && [ "$(grep -c "^ok .* on this GPU$" "$TMP/out")" -ge 40 ] && grep -q "^# fail 0$" "$TMP/out"'
lesson wrongall "$(claim '[{"left": "metrics.tensors_on_gpu", "op": "<", "value": 5}]' | sed 's/\["t4", "h100-sxm"\]/"all"/')"
compile wrongall
"$CHECK" --gpu "$TMP/fakegpu" "$TMP/wrongall.checks.json" >"$TMP/out" 2>&1
check "--gpu fails a false claim with its line and numbers too" \
  '[ $? = 1 ] && grep -qF "wrongall/lesson.md:9: claim '"'five-on-gpu'"' on this GPU: metrics.tensors_on_gpu = 5 is not <" "$TMP/out"'

# Malformed claims: FILE:LINE, what is wrong and what to do; nothing written.
lesson badjson '{"claims": [ {"id": "x",, } ]}'
rejects badjson 1 "invalid JSON"
lesson noquote "$(claim '[{"left": "metrics.tensors_on_gpu", "op": "==", "value": 5}]' | sed 's/all five tensors/all six tensors/')"
rejects noquote 5 "the quote is not in"
lesson twice "$(claim '[{"left": "metrics.tensors_on_gpu", "op": "==", "value": 5}]' | sed 's/"all five tensors end up on the GPU and the layer runs there."/"the"/')"
rejects twice 5 "appears"
lesson badop "$(claim '[{"left": "metrics.tensors_on_gpu", "op": "=>", "value": 5}]')"
rejects badop 8 '"op" must be one of'
lesson badpath "$(claim '[{"left": "metrics..tensors_on_gpu", "op": "==", "value": 5}]')"
rejects badpath 8 "a key must follow the '.'"
lesson badsel "$(claim '[{"left": "series[id=gpu.points[0]", "op": "==", "value": 5}]')"
rejects badsel 8 "close each selector"
lesson badidx "$(claim '[{"left": "findings[first]", "op": "contains", "value": "cuda"}]')"
rejects badidx 8 "is neither an index nor key=value"
lesson badrun "$(claim '[{"left": "@other.metrics.tensors_on_gpu", "op": "==", "value": 5}]')"
rejects badrun 8 "names run 'other'"
lesson notol "$(claim '[{"left": "metrics.copy_ms", "op": "~", "value": 5}]')"
rejects notol 8 "'~' needs \"tol\""
lesson noeach "$(claim '[{"left": "series[id=cpu].points[x=$].y", "op": ">", "value": 0}]')"
rejects noeach 8 "no \"each\" list"
lesson both "$(claim '[{"left": "metrics.copy_ms", "op": "<", "value": 5, "right": "metrics.forward_ms"}]')"
rejects both 8 "exactly one of \"right\""
lesson badexp "$(claim '[{"left": "metrics.copy_ms", "op": "<", "value": 5}]' | sed 's/"placement"/"placements"/')"
rejects badexp 6 "must name an experiment"
lesson badprofile "$(claim '[{"left": "metrics.copy_ms", "op": "<", "value": 5}]' | sed 's/"h100-sxm"/"h200"/')"
rejects badprofile 7 "unknown profile 'h200'"
lesson badparam "$(claim '[{"left": "metrics.copy_ms", "op": "<", "value": 5}]' '
      "params": {"batch": 0},')"
rejects badparam 8 "placement: "
lesson badkey "$(claim '[{"left": "metrics.copy_ms", "op": "<", "value": 5, "within": 2}]')"
rejects badkey 8 "unknown key 'within' in a condition"
lesson notrefused '{"claims": [{"id": "fits", "quote": "Some text first.", "experiment": "allocator",
  "params": {"layers": 2}, "profiles": ["t4"], "refused": "invalid_param"}]}'
rejects notrefused 2 "accepts these parameters"
lesson dupid "$(claim '[{"left": "metrics.copy_ms", "op": "<", "value": 5}]' | python3 -c 'import json,sys; d=json.load(sys.stdin); d["claims"].append(dict(d["claims"][0])); print(json.dumps(d, indent=1))')"
rejects dupid 20 "is used twice"

echo "1..$N"
exit $((FAILED > 0))
