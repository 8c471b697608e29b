#!/usr/bin/env bash
# The repository documents itself (TAP output): docs/api.md names every
# error code of lab/base/error.h, the README links to docs/ and names every
# experiment of lab/face/experiments.h, and nothing in the repository points to
# files outside it.
set -uo pipefail
cd "$(dirname "$0")/../.."
n=0 bad=0
echo "1..4"
missing=$(grep -o 'X(LAB_E_[A-Z_]*, "[a-z_]*"' lab/base/error.h | sed 's/.*"\(.*\)"/\1/' | while read -r code; do
  grep -q "\`$code\`" docs/api.md || echo "$code"; done | tr '\n' ' ')
n=$((n + 1))
if [ -z "$missing" ]; then echo "ok $n - docs/api.md names every error code"; else echo "not ok $n - docs/api.md names every error code"; echo "# missing: $missing"; bad=1; fi
n=$((n + 1))
if grep -q '(docs/' README.md; then echo "ok $n - the README links to docs/"; else echo "not ok $n - the README links to docs/"; bad=1; fi
n=$((n + 1))
unnamed=$(grep -oE '^ *X\([a-z0-9_]+, (kern|check), [01]\)' lab/face/experiments.h | sed -E 's/^ *X\(([a-z0-9_]+),.*/\1/' | while read -r stem; do
  grep -q "\`$stem\`" README.md || echo "$stem"; done | tr '\n' ' ')
if [ -z "$unnamed" ]; then echo "ok $n - the README names every experiment"; else echo "not ok $n - the README names every experiment"; echo "# missing: $unnamed"; bad=1; fi
n=$((n + 1))
files=$(git ls-files 2>/dev/null || find . -type f -not -path './build*' -not -path './.git/*' -not -path '*/node_modules/*' -not -path './third_party/*' | sed 's|^\./||')
out=$(printf '%s\n' "$files" | grep -vE '^tests/tools/docs\.sh$' | xargs grep -lE '\.\./shared|shared/(DESIGN|STYLE|MEASURE)\.md' 2>/dev/null | tr '\n' ' ')
if [ -z "$out" ]; then echo "ok $n - nothing points outside the repository"; else echo "not ok $n - nothing points outside the repository"; echo "# in: $out"; bad=1; fi
exit $bad
