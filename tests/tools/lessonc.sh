#!/usr/bin/env bash
# Tests for the lesson compiler: the real lessons compile into the bundles the
# client and server expect, and each kind of bad input fails with the right
# FILE:LINE and writes nothing. Usage: tests/tools/lessonc.sh PATH/TO/lessonc
# (run from the repository root). Prints TAP.
set -u
LESSONC=${1:?usage: tests/tools/lessonc.sh PATH/TO/lessonc}
[ -x "$LESSONC" ] || { echo "Bail out! $LESSONC is not an executable"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
N=0
FAILED=0

ok() { N=$((N + 1)); echo "ok $N - $1"; }
not_ok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $1"; sed 's/^/# /' "$TMP/err" 2>/dev/null; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }

GOOD_MD='# Test lesson

A one-line summary.

## First section {#first}

Some text with `code`.

::: experiment device
'
GOOD_QUIZ='{
  "pass_pct": 75,
  "questions": [
    {
      "id": "q1",
      "prompt": "Pick b.",
      "multi": false,
      "options": [{"id": "a", "text": "A"}, {"id": "b", "text": "B"}],
      "correct": ["b"],
      "explanation": "Because."
    }
  ]
}
'

# Every quiz question is backed by a claim or marked conceptual in claims.json
# (tests/tools/claims.sh tests that); here question q1 is marked conceptual.
NO_CLAIMS='{"claims": [], "quiz_unchecked": {"q1": "conceptual: a test question that no experiment decides"}}'

# lesson NAME MD QUIZ: makes $TMP/NAME/{lesson.md,quiz.json,claims.json}; "-" leaves a file out.
lesson() {
  mkdir -p "$TMP/$1"
  [ "$2" = - ] || printf '%s' "$2" >"$TMP/$1/lesson.md"
  [ "$3" = - ] || printf '%s' "$3" >"$TMP/$1/quiz.json"
  printf '%s' "$NO_CLAIMS" >"$TMP/$1/claims.json"
}

# expect_fail NAME WHERE MESSAGE_PART [DIRS...]: lessonc must exit 1, print
# WHERE (FILE:LINE:) with MESSAGE_PART, and leave the output folders empty.
expect_fail() {
  local name=$1 where=$2 part=$3
  shift 3
  rm -rf "$TMP/out"
  mkdir -p "$TMP/out/web" "$TMP/out/keys"
  "$LESSONC" --web "$TMP/out/web" --keys "$TMP/out/keys" "$@" >"$TMP/out.txt" 2>"$TMP/err"
  local rc=$?
  if [ $rc -eq 1 ] && grep -F -- "$where " "$TMP/err" | grep -qF -- "$part" && [ -z "$(find "$TMP/out" -type f)" ]; then
    ok "$name"
  else
    echo "# exit $rc; wanted '$where $part'"
    not_ok "$name"
  fi
}

# ---- the real lessons --------------------------------------------------------
mkdir -p "$TMP/web" "$TMP/keys"
"$LESSONC" --web "$TMP/web" --keys "$TMP/keys" lessons/*/ 2>"$TMP/err"
check "real lessons compile" '[ $? -eq 0 ]'
check "index.json lists lesson 1 with its section count" \
  'tr -d " \t\n" <"$TMP/web/index.json" | grep -q "\"id\":\"01-cuda-intuition\",\"title\":\"[^\"]*\",\"summary\":\"[^\"]*\",\"sections\":[0-9]"'
B="$TMP/web/01-cuda-intuition.json"
check "public bundle has the section, its html and its experiment" \
  'grep -q "\"id\":\"two-checks\"" "$B" && grep -q "data-experiment=\\\\\"device\\\\\"" "$B" && grep -q "\"experiments\":\[\"device\"\]" "$B"'
check "public bundle carries no answers" '! grep -q "\"correct\"\|\"explanation\"" "$B"'
check "code blocks keep their language class" 'grep -q "class=\\\\\"language-python\\\\\"" "$B"'
check "answer key goes to the keys folder only" \
  'grep -q "\"explanation\"" "$TMP/keys/01-cuda-intuition.key.json" && [ ! -e "$TMP/web/01-cuda-intuition.key.json" ]'
check "offline bundle carries the key, sealed" \
  'grep -q "\"key\":{\"id\":\"01-cuda-intuition\",\"pass_pct\":[0-9]*,\"answers\":{\"q1\":{\"salt\":\"[0-9a-f]\{32\}\",\"check\":\"[0-9a-f]\{64\}\",\"box\":\"[0-9a-f]*\"}" "$TMP/web/01-cuda-intuition.offline.json"'
# Nothing under the web root may hold an answer or an explanation in readable
# form: no "correct" field, and no explanation's words anywhere.
check "no web file holds a readable answer or explanation" '
  ! grep -rq "\"correct\"\|\"explanation\"" "$TMP/web" &&
  node -e "
    const fs = require(\"fs\"), path = require(\"path\");
    const web = process.argv[1], keys = process.argv[2];
    const files = fs.readdirSync(web).map((f) => fs.readFileSync(path.join(web, f), \"utf8\")).join(\"\\n\");
    for (const k of fs.readdirSync(keys)) {
      const key = JSON.parse(fs.readFileSync(path.join(keys, k), \"utf8\"));
      for (const [q, a] of Object.entries(key.answers)) {
        const words = JSON.stringify(a.explanation).slice(1, 41);
        if (files.includes(words)) { console.error(k, q, \"explanation readable:\", words); process.exit(1); }
      }
    }" "$TMP/web" "$TMP/keys"'
check "lesson 1 quiz has 9 questions" '[ "$(grep -o "\"id\":\"q[0-9]*\"" "$B" | wc -l)" -eq 9 ]'
check "no temporary files are left behind" '[ -z "$(find "$TMP/web" "$TMP/keys" -name "*.tmp-*")" ]'

lesson good "$GOOD_MD" "$GOOD_QUIZ"
rm -rf "$TMP/chk" && mkdir -p "$TMP/chk"
"$LESSONC" --check --web "$TMP/chk/web" --keys "$TMP/chk/keys" "$TMP/good" 2>"$TMP/err"
check "--check validates and writes nothing" '[ $? -eq 0 ] && [ -z "$(ls -A "$TMP/chk")" ]'

lesson fenced "$GOOD_MD"'
```text
## not a section
::: not a directive
```
' "$GOOD_QUIZ"
"$LESSONC" --check "$TMP/fenced" 2>"$TMP/err"
check "headings and directives inside fenced code are plain text" '[ $? -eq 0 ]'

lesson rawhtml "$GOOD_MD"'
<script>alert(1)</script> and <b>bold</b>
' "$GOOD_QUIZ"
rm -rf "$TMP/rh" && mkdir -p "$TMP/rh"
"$LESSONC" --web "$TMP/rh" --keys "$TMP/rh" "$TMP/rawhtml" 2>"$TMP/err"
check "raw HTML in a lesson is escaped, not passed through" \
  '! grep -q "<script>" "$TMP/rh/rawhtml.json" && grep -q "&lt;script&gt;" "$TMP/rh/rawhtml.json"'

# ---- bad Markdown ------------------------------------------------------------
lesson md-empty "" "$GOOD_QUIZ"
expect_fail "empty lesson" "$TMP/md-empty/lesson.md:1:" "the lesson is empty" "$TMP/md-empty"

lesson md-notitle "Just a line.
" "$GOOD_QUIZ"
expect_fail "lesson without a title" "$TMP/md-notitle/lesson.md:1:" "starts with its title" "$TMP/md-notitle"

lesson md-nosummary "# Title

## First {#first}

Text.
" "$GOOD_QUIZ"
expect_fail "lesson without a summary" "$TMP/md-nosummary/lesson.md:3:" "summary paragraph" "$TMP/md-nosummary"

lesson md-nosections "# Title

Summary.
" "$GOOD_QUIZ"
expect_fail "lesson without sections" "$TMP/md-nosections/lesson.md:3:" "no sections" "$TMP/md-nosections"

lesson md-notitle-sec "$GOOD_MD"'
## {#second}

Text.
' "$GOOD_QUIZ"
expect_fail "section without a title" "$TMP/md-notitle-sec/lesson.md:11:" "no title" "$TMP/md-notitle-sec"

lesson md-noid "$GOOD_MD"'
## Second section

Text.
' "$GOOD_QUIZ"
expect_fail "section without an id" "$TMP/md-noid/lesson.md:11:" "needs an id" "$TMP/md-noid"

lesson md-badid "$GOOD_MD"'
## Second {#Second_One}

Text.
' "$GOOD_QUIZ"
expect_fail "section id with bad characters" "$TMP/md-badid/lesson.md:11:" "section id 'Second_One'" "$TMP/md-badid"

lesson md-dupid "$GOOD_MD"'
## Again {#first}

Text.
' "$GOOD_QUIZ"
expect_fail "duplicate section id" "$TMP/md-dupid/lesson.md:11:" "used twice" "$TMP/md-dupid"

lesson md-emptysec "$GOOD_MD"'
## Nothing here {#empty}

' "$GOOD_QUIZ"
expect_fail "empty section" "$TMP/md-emptysec/lesson.md:11:" "is empty" "$TMP/md-emptysec"

lesson md-unknownexp "$GOOD_MD"'
::: experiment warp_drive
' "$GOOD_QUIZ"
expect_fail "unknown experiment" "$TMP/md-unknownexp/lesson.md:11:" "unknown experiment 'warp_drive'" "$TMP/md-unknownexp"

lesson md-baddirective "$GOOD_MD"'
::: note
' "$GOOD_QUIZ"
expect_fail "directive other than experiment" "$TMP/md-baddirective/lesson.md:11:" "unknown directive" "$TMP/md-baddirective"

lesson md-twonames "$GOOD_MD"'
::: experiment device timing
' "$GOOD_QUIZ"
expect_fail "experiment directive with two names" "$TMP/md-twonames/lesson.md:11:" "with one name" "$TMP/md-twonames"

lesson md-outside "# Title

Summary.

::: experiment device

## First {#first}

Text.
" "$GOOD_QUIZ"
expect_fail "experiment before the first section" "$TMP/md-outside/lesson.md:5:" "inside a section" "$TMP/md-outside"

lesson md-stray "# Title

Summary.

A second paragraph.

## First {#first}

Text.
" "$GOOD_QUIZ"
expect_fail "text between summary and first section" "$TMP/md-stray/lesson.md:5:" "must be in a section" "$TMP/md-stray"

lesson md-h1 "$GOOD_MD"'
# Another title
' "$GOOD_QUIZ"
expect_fail "second level-1 title" "$TMP/md-h1/lesson.md:11:" "only the lesson title" "$TMP/md-h1"

lesson md-fence "$GOOD_MD"'
```python
print("never closed")
' "$GOOD_QUIZ"
expect_fail "unclosed code block" "$TMP/md-fence/lesson.md:11:" "never closed" "$TMP/md-fence"

lesson md-utf8 "$(printf '# Title\n\nSummary.\n\n## First {#first}\n\nbad \xff byte\n')" "$GOOD_QUIZ"
expect_fail "invalid UTF-8" "$TMP/md-utf8/lesson.md:7:" "not valid UTF-8" "$TMP/md-utf8"

lesson md-jslink "$GOOD_MD"'
A [link](https://example.org) is fine, a [script](JavaScript:alert(1)) is not.
' "$GOOD_QUIZ"
expect_fail "javascript: link" "$TMP/md-jslink/lesson.md:11:" "links may point only" "$TMP/md-jslink"

lesson md-autolink "$GOOD_MD"'
<javascript:alert(1)>
' "$GOOD_QUIZ"
expect_fail "javascript: autolink" "$TMP/md-autolink/lesson.md:11:" "links may point only" "$TMP/md-autolink"

lesson md-missing - "$GOOD_QUIZ"
expect_fail "missing lesson.md" "$TMP/md-missing/lesson.md:1:" "cannot read it" "$TMP/md-missing"

# ---- bad quiz.json -------------------------------------------------------------
# q FIELD_LINES: a quiz whose only question has these lines (question starts on line 4).
quiz_with() {
  printf '{\n  "pass_pct": 75,\n  "questions": [\n    {\n%s\n    }\n  ]\n}\n' "$1"
}
Q_ID='      "id": "q1",'
Q_PROMPT='      "prompt": "Pick b.",'
Q_OPTS='      "options": [{"id": "a", "text": "A"}, {"id": "b", "text": "B"}],'
Q_EXPL='      "explanation": "Because."'

lesson quiz-missing "$GOOD_MD" -
expect_fail "missing quiz.json" "$TMP/quiz-missing/quiz.json:1:" "cannot read it" "$TMP/quiz-missing"

lesson quiz-syntax "$GOOD_MD" '{
  "pass_pct": 75,
  "questions": [
    {"id": "q1"
     "prompt": "missing comma above"}
  ]
}
'
expect_fail "broken JSON names the line" "$TMP/quiz-syntax/quiz.json:5:" "invalid JSON" "$TMP/quiz-syntax"

lesson quiz-trailing "$GOOD_MD" "$GOOD_QUIZ"'
{}
'
expect_fail "text after the JSON value" "$TMP/quiz-trailing/quiz.json:15:" "invalid JSON" "$TMP/quiz-trailing"

lesson quiz-dupq "$GOOD_MD" '{
  "pass_pct": 75,
  "questions": [
    {"id": "q1", "prompt": "P", "options": [{"id": "a", "text": "A"}, {"id": "b", "text": "B"}],
     "correct": ["a"], "explanation": "E"},
    {"id": "q2", "prompt": "P", "options": [{"id": "a", "text": "A"}, {"id": "b", "text": "B"}],
     "correct": ["a"], "explanation": "E"},
    {
      "id": "q1", "prompt": "P", "options": [{"id": "a", "text": "A"}, {"id": "b", "text": "B"}],
     "correct": ["a"], "explanation": "E"}
  ]
}
'
expect_fail "duplicate question ids" "$TMP/quiz-dupq/quiz.json:9:" "question id 'q1' appears twice" "$TMP/quiz-dupq"

lesson quiz-twocorrect "$GOOD_MD" "$(quiz_with "$Q_ID
$Q_PROMPT
      \"multi\": false,
$Q_OPTS
      \"correct\": [\"a\", \"b\"],
$Q_EXPL")"
expect_fail "multi=false with two correct options" "$TMP/quiz-twocorrect/quiz.json:9:" "single-choice" "$TMP/quiz-twocorrect"

lesson quiz-noexpl "$GOOD_MD" "$(quiz_with "$Q_ID
$Q_PROMPT
$Q_OPTS
      \"correct\": [\"b\"]")"
expect_fail "missing explanation" "$TMP/quiz-noexpl/quiz.json:4:" "no \"explanation\"" "$TMP/quiz-noexpl"

lesson quiz-blankexpl "$GOOD_MD" "$(quiz_with "$Q_ID
$Q_PROMPT
$Q_OPTS
      \"correct\": [\"b\"],
      \"explanation\": \"  \"")"
expect_fail "blank explanation" "$TMP/quiz-blankexpl/quiz.json:9:" "non-empty string" "$TMP/quiz-blankexpl"

lesson quiz-unknownkey "$GOOD_MD" "$(quiz_with "$Q_ID
$Q_PROMPT
      \"hint\": \"no such field\",
$Q_OPTS
      \"correct\": [\"b\"],
$Q_EXPL")"
expect_fail "unknown key" "$TMP/quiz-unknownkey/quiz.json:7:" "unknown key 'hint'" "$TMP/quiz-unknownkey"

lesson quiz-above "$GOOD_MD" "$(quiz_with "$Q_ID
$Q_PROMPT
      \"options\": [
        {\"id\": \"a\", \"text\": \"A\"},
        {\"id\": \"b\", \"text\": \"All of the above\"}
      ],
      \"correct\": [\"b\"],
$Q_EXPL")"
expect_fail "\"all of the above\" option" "$TMP/quiz-above/quiz.json:9:" "shuffled" "$TMP/quiz-above"

lesson quiz-notoption "$GOOD_MD" "$(quiz_with "$Q_ID
$Q_PROMPT
$Q_OPTS
      \"correct\": [\"c\"],
$Q_EXPL")"
expect_fail "correct names a missing option" "$TMP/quiz-notoption/quiz.json:8:" "'c', which is not an option" "$TMP/quiz-notoption"

lesson quiz-oneoption "$GOOD_MD" "$(quiz_with "$Q_ID
$Q_PROMPT
      \"options\": [{\"id\": \"a\", \"text\": \"A\"}],
      \"correct\": [\"a\"],
$Q_EXPL")"
expect_fail "fewer than two options" "$TMP/quiz-oneoption/quiz.json:7:" "at least two" "$TMP/quiz-oneoption"

lesson quiz-dupopt "$GOOD_MD" "$(quiz_with "$Q_ID
$Q_PROMPT
      \"options\": [
        {\"id\": \"a\", \"text\": \"A\"},
        {\"id\": \"a\", \"text\": \"B\"}
      ],
      \"correct\": [\"a\"],
$Q_EXPL")"
expect_fail "duplicate option ids" "$TMP/quiz-dupopt/quiz.json:9:" "option id 'a' appears twice" "$TMP/quiz-dupopt"

lesson quiz-pct "$GOOD_MD" '{
  "questions": [],
  "pass_pct": 0
}
'
expect_fail "pass_pct out of range" "$TMP/quiz-pct/quiz.json:3:" "pass_pct" "$TMP/quiz-pct"

# ---- folds and the words a learner first sees ---------------------------------
# words N: N distinct words of prose, ten to a line.
words() { awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) printf "w%d%s", i, (i % 10 && i < n) ? " " : "\n" }'; }
# With the title (2 words), the summary (3) and the section title (2), a
# section of N-7 prose words shows N words.
sized() { printf '# Test lesson\n\nA one-line summary.\n\n## First section {#first}\n\n%s\n%s' "$(words $(($1 - 7)))" "${2:-}"; }
FOLDED='
::: fold How it was measured

The measured part, folded: it says that the copy was timed with events. More text.

```python
x = torch.ones(1)  # code is never counted
```

::: experiment device
:::
'
lesson words-3000 "$(sized 3000 "$FOLDED")" "$GOOD_QUIZ"
# the fold's summary is shown, so it counts: "How it was measured" is 4 words
lesson words-3000-plus "$(sized 2996 "$FOLDED")" "$GOOD_QUIZ"
rm -rf "$TMP/wd" && mkdir -p "$TMP/wd"
"$LESSONC" --web "$TMP/wd" --keys "$TMP/wd" "$TMP/words-3000-plus" 2>"$TMP/err"
check "3,000 words shown pass, however much is folded or in code" \
  '[ $? -eq 0 ] && tr -d " \t\n" <"$TMP/wd/index.json" | grep -q "\"words\":3000"'
check "a fold is a <details> whose summary is the directive's text, holding its experiment" \
  'grep -q "<details class=\\\\\"fold\\\\\"><summary>How it was measured</summary>" "$TMP/wd/words-3000-plus.json" &&
   grep -q "data-experiment=\\\\\"device\\\\\"></div>\\\\n</details>" "$TMP/wd/words-3000-plus.json"'
expect_fail "3,001 words shown fail, naming each section's count" "$TMP/words-3000/lesson.md:1:" \
  "a learner sees 3004 words before opening any fold, more than 3000" "$TMP/words-3000"
check "the failure lists the words shown per section" 'grep -q "^  first: 2999$" "$TMP/err"'
lesson words-3001 "$(sized 3001)" "$GOOD_QUIZ"
expect_fail "one word over the limit fails" "$TMP/words-3001/lesson.md:1:" "sees 3001 words" "$TMP/words-3001"

# a claim may quote a folded sentence: folding loses nothing
lesson fold-claim "$(sized 100 "$FOLDED")" "$GOOD_QUIZ"
printf '{"claims": [{"id": "folded", "quote": "it says that the copy was timed with events.", "experiment": "device",
  "profiles": ["t4"], "expect": [{"left": "metrics.driver_device_count", "op": ">=", "value": 1}]}],
  "quiz_unchecked": {"q1": "conceptual: a test question that no experiment decides"}}' >"$TMP/fold-claim/claims.json"
"$LESSONC" --check --claims "$TMP/fc.json" "$TMP/fold-claim" 2>"$TMP/err"
check "a claim quoting a folded sentence still finds it" '[ $? -eq 0 ]'

lesson fold-open "$GOOD_MD"'
::: fold Never closed

Text.

## Second section {#second}

More.
' "$GOOD_QUIZ"
expect_fail "a fold left open at the next section" "$TMP/fold-open/lesson.md:11:" "never closed" "$TMP/fold-open"
lesson fold-nest "$GOOD_MD"'
::: fold Outer

::: fold Inner
:::
' "$GOOD_QUIZ"
expect_fail "folds do not nest" "$TMP/fold-nest/lesson.md:13:" "do not nest; end the fold opened at line 11" \
  "$TMP/fold-nest"
lesson fold-stray "$GOOD_MD"'
:::
' "$GOOD_QUIZ"
expect_fail "a ':::' with no fold open" "$TMP/fold-stray/lesson.md:11:" "no fold is open" "$TMP/fold-stray"
lesson fold-empty "$GOOD_MD"'
::: fold Nothing inside

:::
' "$GOOD_QUIZ"
expect_fail "an empty fold" "$TMP/fold-empty/lesson.md:11:" "this fold is empty" "$TMP/fold-empty"
lesson fold-nosummary "$GOOD_MD"'
::: fold
Text.
:::
' "$GOOD_QUIZ"
expect_fail "a fold without its summary" "$TMP/fold-nosummary/lesson.md:11:" "'::: fold How it was measured'" \
  "$TMP/fold-nosummary"
lesson fold-html "$GOOD_MD"'
::: fold A <b>bold</b> & "quoted" summary
Text.
:::
' "$GOOD_QUIZ"
rm -rf "$TMP/fh" && mkdir -p "$TMP/fh"
"$LESSONC" --web "$TMP/fh" --keys "$TMP/fh" "$TMP/fold-html" 2>"$TMP/err"
check "a fold's summary is text: markup in it is escaped" \
  'grep -q "<summary>A &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot; summary</summary>" "$TMP/fh/fold-html.json"'

# ---- tables reflow on a phone; a lone link to an app page is a button ----------
lesson reflow "$GOOD_MD"'
| symptom | usual cause | what to do |
|---|---|---|
| *out of memory* | a big `batch` | halve it |

[Paste your error](#explain)

Or paste it into [explain](#explain) yourself.
' "$GOOD_QUIZ"
rm -rf "$TMP/rf" && mkdir -p "$TMP/rf"
"$LESSONC" --web "$TMP/rf" --keys "$TMP/rf" "$TMP/reflow" 2>"$TMP/err"
html() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["sections"][0]["html"])' "$TMP/rf/reflow.json"; }
check "a table row is headed by its first cell, every other cell labelled by its column (tools/lesson_table.c)" \
  'html | grep -qF "<th scope=\"row\" role=\"rowheader\"><em>out of memory</em></th>" &&
   html | grep -qF "<td role=\"cell\" data-label=\"usual cause\">a big <code>batch</code></td>" &&
   html | grep -qF "<td role=\"cell\" data-label=\"what to do\">halve it</td>" &&
   html | grep -qF "<th scope=\"col\" role=\"columnheader\">what to do</th>"'
check "a paragraph that is one link to an app page is a button; a link in a sentence is not" \
  'html | grep -qF "<p class=\"go\"><a class=\"button button-quiet\" href=\"#explain\">Paste your error</a></p>" &&
   html | grep -qF "<p>Or paste it into <a href=\"#explain\">explain</a> yourself.</p>"'

# ---- the command line and the all-or-nothing rule --------------------------------
"$LESSONC" --frobnicate "$TMP/good" >"$TMP/out.txt" 2>"$TMP/err"
check "unknown option prints usage and exits 2" '[ $? -eq 2 ] && grep -q "unknown or incomplete option" "$TMP/err" && grep -q "^usage: lessonc" "$TMP/err"'
"$LESSONC" --web "$TMP/x" "$TMP/good" >"$TMP/out.txt" 2>"$TMP/err"
check "missing --keys prints usage and exits 2" '[ $? -eq 2 ] && grep -q "^usage: lessonc" "$TMP/err"'
expect_fail "one bad lesson among good ones writes nothing" "$TMP/md-dupid/lesson.md:11:" "used twice" \
  "$TMP/good" "$TMP/md-dupid"
expect_fail "the same lesson twice" "$TMP/good/:1:" "given twice" "$TMP/good" "$TMP/good/"

lesson Bad_Name "$GOOD_MD" "$GOOD_QUIZ"
expect_fail "lesson folder name must be an id" "$TMP/Bad_Name/lesson.md:1:" "folder's name is its id" "$TMP/Bad_Name"

echo "1..$N"
[ $FAILED -eq 0 ]
