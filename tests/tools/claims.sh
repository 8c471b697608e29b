#!/usr/bin/env bash
# Tests for lesson claims (lessons/README.md, "claims.json"): lessonc binds a
# claim to its lesson line (or, for a quiz claim, to the quiz line it quotes),
# requires every quiz question to be backed or marked conceptual, and rejects
# malformed claims with FILE:LINE and what to do; claimcheck passes a true
# claim, fails a false one with the lesson line and the numbers, reports a
# pending one as TODO and counts each lesson's quiz items.
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
QUIZ='{"pass_pct": 75, "questions": [
 {"id": "q1", "prompt": "Where does the layer run?",
  "options": [{"id": "a", "text": "On the CPU"}, {"id": "b", "text": "On the GPU, with all five tensors"}],
  "correct": ["b"],
  "explanation": "Every tensor was moved, so the layer runs on cuda:0."}]}'
CONCEPTUAL='"quiz_unchecked": {"q1": "conceptual: the test quiz asks nothing an experiment decides"}'

# lesson NAME CLAIMS_JSON: a lesson folder whose claims.json is CLAIMS_JSON.
lesson() {
  mkdir -p "$TMP/$1"
  printf '%s' "$MD" >"$TMP/$1/lesson.md"
  printf '%s' "$QUIZ" >"$TMP/$1/quiz.json"
  printf '%s' "$2" >"$TMP/$1/claims.json"
}
# claim EXPECT [EXTRA]: one claim on the quoted sentence with these conditions.
claim() {
  printf '{\n  "claims": [\n    {\n      "id": "five-on-gpu",\n      "quote": "all five tensors end up on the GPU and the layer runs there.",\n      "experiment": "placement",\n      "profiles": ["t4", "h100-sxm"],%s\n      "expect": %s\n    }\n  ],\n  %s\n}\n' "${2:-}" "$1" "$CONCEPTUAL"
}
# qclaim QUESTION QUOTE EXPECT [EXPERIMENT]: one claim backing a quiz question
# (lines: 5 "quiz", 6 "quote", 7 "experiment").
qclaim() {
  printf '{\n  "claims": [\n    {\n      "id": "quiz-on-gpu",\n      "quiz": "%s",\n      "quote": "%s",\n      "experiment": "%s",\n      "profiles": ["t4", "h100-sxm"],\n      "expect": %s\n    }\n  ]\n}\n' "$1" "$2" "${4:-placement}" "$3"
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
  "params": {"layers": 32, "weight_mib": 1024}, "profiles": ["t4"], "refused": "invalid_param"}], '"$CONCEPTUAL"'}'
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

# --recorded checks the claims against a GPU's recordings (web/recorded/,
# the H100 lease of 2026-11-28), each claim whose runs a recording holds.
"$CHECK" --recorded web/recorded "$TMP/real.json" >"$TMP/out" 2>&1
check "the lessons' claims hold on the GPU's recordings, each claim whose runs were recorded" \
  '[ $? = 0 ] && [ "$(grep -c "^ok .* on the recordings$" "$TMP/out")" -ge 60 ] && grep -q "^# fail 0$" "$TMP/out" && grep -q "# SKIP run .*: the run sets max_size = 1024; the recording of crossover was made with 512; checked on a GPU" "$TMP/out"'
# rec NAME EXPERIMENT EXPECT [EXTRA]: a lesson with one claim on one experiment.
rec() {
  lesson "$1" '{"claims": [{"id": "five-on-gpu", "quote": "all five tensors end up on the GPU and the layer runs there.",
  "experiment": "'"$2"'", "profiles": "all",'"${4:-}"' "expect": '"$3"'}], '"$CONCEPTUAL"'}'
  compile "$1"
}
# A bound just above the recorded figure, whatever the last lease recorded
# (the H100's first recording gave 9.617 against a lesson's 10).
real=$(python3 -c 'import json; print("%.4g" % json.load(open("web/recorded/crossover.json"))["metrics"]["speedup_largest"])')
above=$(python3 -c "print(round($real * 1.05 + 0.5))")
rec recwide crossover '[{"left": "metrics.speedup_largest", "op": ">=", "value": '"$above"'}]'
"$CHECK" --recorded web/recorded "$TMP/recwide.checks.json" >"$TMP/out" 2>&1
check "a claim the H100 broke fails on its recording with the lesson line and the real figure" \
  '[ $? = 1 ] && grep -qF "recwide/lesson.md:9: claim '"'five-on-gpu'"' on the recordings: metrics.speedup_largest = $real is not >= $above" "$TMP/out"'
rec recstale crossover '[{"left": "metrics.speedup_largest", "op": ">=", "value": '"$above"'}]' ' "rerecord": "the recording predates the fix",'
"$CHECK" --recorded web/recorded "$TMP/recstale.checks.json" >"$TMP/out" 2>&1
rc=$?
"$CHECK" "$TMP/recstale.checks.json" >"$TMP/out2" 2>&1
check "a claim marked rerecord that fails on the recordings is a TODO there, and simulated it is an ordinary claim" \
  '[ $rc = 0 ] && grep -q "# TODO rerecord: the recording predates the fix" "$TMP/out" && grep -q "^# todo 1$" "$TMP/out" && grep -q "^# todo 0$" "$TMP/out2"'
rec recheld crossover '[{"left": "metrics.speedup_largest", "op": ">=", "value": 5}]' ' "rerecord": "the recording predates the fix",'
"$CHECK" --recorded web/recorded "$TMP/recheld.checks.json" >"$TMP/out" 2>&1
check "a claim marked rerecord that holds on the recordings says the mark can go" \
  '[ $? = 0 ] && grep -q "is marked rerecord but holds on the recordings: remove \"rerecord\"" "$TMP/out"'
mkdir -p "$TMP/simrec"
"$GPULAB" run crossover --backend simulated --json >"$TMP/simrec/crossover.json" 2>/dev/null
"$CHECK" --recorded "$TMP/simrec" "$TMP/recheld.checks.json" >"$TMP/out" 2>&1
check "a simulated result is not taken for a recording" \
  '[ $? = 0 ] && grep -q "# SKIP run .*crossover.json was not made on a GPU" "$TMP/out" && grep -q "^# pass 0$" "$TMP/out"'
"$CHECK" --recorded "$TMP/nothing" "$TMP/recheld.checks.json" >"$TMP/out" 2>&1
check "a run with no recording is skipped, saying which file is missing" \
  '[ $? = 0 ] && grep -qF "# SKIP run '"'run'"': no recording of crossover ($TMP/nothing/crossover.json)" "$TMP/out"'
"$CHECK" --recorded web/recorded --gpu "$TMP/fakegpu" "$TMP/recheld.checks.json" >"$TMP/out" 2>&1
check "--recorded and --gpu together are refused" '[ $? = 2 ] && grep -q "not both" "$TMP/out"'

# Malformed claims: FILE:LINE, what is wrong and what to do; nothing written.
lesson badjson '{"claims": [ {"id": "x",, } ]}'
rejects badjson 1 "invalid JSON"
lesson noquote "$(claim '[{"left": "metrics.tensors_on_gpu", "op": "==", "value": 5}]' | sed 's/all five tensors/all six tensors/')"
rejects noquote 5 "the quote is not in"
lesson twice "$(claim '[{"left": "metrics.tensors_on_gpu", "op": "==", "value": 5}]' | sed 's/"all five tensors end up on the GPU and the layer runs there."/"the"/')"
rejects twice 5 "appears"
lesson badrerecord "$(claim '[{"left": "metrics.tensors_on_gpu", "op": "==", "value": 5}]' '
      "rerecord": "soon",')"
rejects badrerecord 8 '"rerecord" says why the GPU recordings'
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
lesson notapplicable "$(claim '[{"left": "metrics.copy_ms", "op": "<", "value": 5}]' | sed 's/"placement"/"transfer"/; s/"h100-sxm"/"m1-pro"/')"
rejects notapplicable 7 "profile 'm1-pro': transfer does not apply to the Apple M1 Pro"
lesson allapply "$(claim '[{"left": "metrics.h2d_pinned_gbps", "op": ">", "value": 1}]' | sed 's/"placement"/"transfer"/; s/\["t4", "h100-sxm"\]/"all"/')"
compile allapply
check "\"all\" is every profile the experiment applies to: transfer leaves out the Mac, keeps the AMD card" \
  'python3 -c "import json,sys; p=json.load(open(sys.argv[1]))[\"claims\"][0][\"profiles\"]; sys.exit(0 if \"m1-pro\" not in p and \"rx-7900-xtx\" in p and \"t4\" in p else 1)" "$TMP/allapply.checks.json"'
lesson badparam "$(claim '[{"left": "metrics.copy_ms", "op": "<", "value": 5}]' '
      "params": {"batch": 0},')"
rejects badparam 8 "placement: "
lesson badkey "$(claim '[{"left": "metrics.copy_ms", "op": "<", "value": 5, "within": 2}]')"
rejects badkey 8 "unknown key 'within' in a condition"
lesson notrefused '{"claims": [{"id": "fits", "quote": "Some text first.", "experiment": "allocator",
  "params": {"layers": 2}, "profiles": ["t4"], "refused": "invalid_param"}], '"$CONCEPTUAL"'}'
rejects notrefused 2 "accepts these parameters"
lesson dupid "$(claim '[{"left": "metrics.copy_ms", "op": "<", "value": 5}]' | python3 -c 'import json,sys; d=json.load(sys.stdin); d["claims"].append(dict(d["claims"][0])); print(json.dumps(d, indent=1))')"
rejects dupid 20 "is used twice"

# ---- claims on the quiz ----------------------------------------------------
ON_GPU='[{"left": "metrics.tensors_on_gpu", "op": "==", "value": 5}]'
check "the real lessons' quiz items are each backed by a claim or marked conceptual" 'python3 - "$TMP/real.json" <<PY
import json, sys, glob
d = json.load(open(sys.argv[1]))
cov = {q["lesson"]: q for q in d["quiz"]}
assert set(cov) == {p.split("/")[1] for p in glob.glob("lessons/*/quiz.json")}, cov.keys()
for lesson, q in cov.items():
    ids = [x["id"] for x in json.load(open(q["file"]))["questions"]]
    bound = {c["quiz"] for c in d["claims"] if c["lesson"] == lesson and "quiz" in c}
    assert q["questions"] == len(ids) and q["bound"] == len(bound) and q["conceptual"] == len(q["unchecked"]), q
    assert bound | set(q["unchecked"]) == set(ids) and not bound & set(q["unchecked"]), (lesson, bound, q["unchecked"])
    assert all(v.startswith("conceptual: ") for v in q["unchecked"].values())
PY'

# A quiz claim is bound to the quiz line it quotes: the explanation (line 5)
# or a right option (line 3); the lesson's counts name the quiz items.
lesson qgood "$(qclaim q1 "the layer runs on cuda:0." "$ON_GPU")"
compile qgood
"$CHECK" "$TMP/qgood.checks.json" >"$TMP/out" 2>&1
check "a true quiz claim passes, bound to the quiz line it quotes, and the quiz items are counted" \
  '[ $? = 0 ] && grep -qF "ok 1 - $TMP/qgood/quiz.json:5 claim '"'quiz-on-gpu'"' on t4" "$TMP/out" && grep -qF "# lesson qgood: 1 claims (0 on the text, 1 on the quiz), 2 checks; 1 quiz items: 1 bound, 0 conceptual" "$TMP/out"'
lesson qoption "$(qclaim q1 "On the GPU, with all five tensors" "$ON_GPU")"
compile qoption
check "a quiz claim may quote the right option instead" 'python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))[\"claims\"][0]
assert (c[\"line\"], c[\"quiz_part\"], c[\"quiz\"]) == (3, \"option '"'b'"'\", \"q1\"), c" "$TMP/qoption.checks.json"'
lesson qwrong "$(qclaim q1 "the layer runs on cuda:0." '[{"left": "metrics.tensors_on_cpu", "op": ">", "value": 0}]')"
compile qwrong
"$CHECK" "$TMP/qwrong.checks.json" >"$TMP/out" 2>&1
check "a quiz answer the experiment contradicts fails with the quiz line and the numbers" \
  '[ $? = 1 ] && grep -qF "not ok 1 - $TMP/qwrong/quiz.json:5: claim '"'quiz-on-gpu'"' on t4: metrics.tensors_on_cpu = 0 is not > 0" "$TMP/out" && grep -qF "the quiz says (question q1, the explanation)" "$TMP/out"'
lesson qconcept "$(claim "$ON_GPU")"
compile qconcept
"$CHECK" "$TMP/qconcept.checks.json" >"$TMP/out" 2>&1
check "a conceptual quiz item is counted and its reason printed" \
  '[ $? = 0 ] && grep -qF "1 quiz items: 0 bound, 1 conceptual" "$TMP/out" && grep -qF "quiz item '"'q1'"' unchecked, conceptual: the test quiz" "$TMP/out"'

# Bad quiz bindings: FILE:LINE and what to do; nothing written.
lesson qedited "$(qclaim q1 "the layer runs on cuda:0." "$ON_GPU")"
sed -i 's/the layer runs on cuda:0/the layer runs there/' "$TMP/qedited/quiz.json"
rejects qedited 6 "the quote is not in the right answer or the explanation of quiz question 'q1' ($TMP/qedited/quiz.json:2)"
lesson qwrongopt "$(qclaim q1 "On the CPU" "$ON_GPU")"
rejects qwrongopt 6 "option 'a' of question 'q1', which is not a right answer"
lesson qprompt "$(qclaim q1 "Where does the layer run?" "$ON_GPU")"
rejects qprompt 6 "the quote is in the prompt of question 'q1'"
lesson qtwice "$(qclaim q1 "the" "$ON_GPU")"
rejects qtwice 6 "times in question 'q1' ($TMP/qtwice/quiz.json:2): quote more"
lesson qunknown "$(qclaim q7 "the layer runs on cuda:0." "$ON_GPU")"
rejects qunknown 5 "unknown quiz question 'q7' in \"quiz\"; the questions of $TMP/qunknown/quiz.json are: q1"
lesson qbadexp "$(qclaim q1 "the layer runs on cuda:0." "$ON_GPU" warp_drive)"
rejects qbadexp 7 "must name an experiment of the registry (gpulab experiments --names); there is no 'warp_drive'"
lesson qbadunchecked "$(claim "$ON_GPU" | sed 's/"conceptual: the test/"the test/')"
rejects qbadunchecked 11 "question 'q1': write \"conceptual: why no experiment can decide it\""
lesson qboth "$(qclaim q1 "the layer runs on cuda:0." "$ON_GPU" | sed 's/^  \]$/  ],\n  '"$CONCEPTUAL"'/')"
rejects qboth 12 "question 'q1' is backed by 1 claim and marked conceptual"
lesson qghost "$(claim "$ON_GPU" | sed 's/"q1": "conceptual/"q2": "conceptual/')"
rejects qghost 11 "unknown quiz question 'q2' in \"quiz_unchecked\""
# unbound NAME: lessonc fails at quiz.json:2, the question no claim backs.
unbound() {
  compile "$1"
  local rc=$?
  if [ $rc = 1 ] && grep -qF "$TMP/$1/quiz.json:2: quiz question 'q1' is neither backed by a claim nor marked conceptual" "$TMP/out" &&
    [ ! -e "$TMP/$1.checks.json" ]; then ok "$2"; else not_ok "$2"; fi
}
lesson qunbound "$(claim "$ON_GPU" | sed 's/^  \],$/  ]/; /quiz_unchecked/d')"
unbound qunbound "a quiz question with neither a claim nor a conceptual mark fails at its quiz line"
lesson qnoclaims "$(claim "$ON_GPU")"
rm "$TMP/qnoclaims/claims.json"
unbound qnoclaims "a lesson without claims.json fails at its first quiz question"

echo "1..$N"
exit $((FAILED > 0))
