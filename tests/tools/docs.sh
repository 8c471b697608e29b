#!/usr/bin/env bash
# The repository documents itself (TAP output): docs/api.md names every
# error code of lab/base/error.h, the README links to docs/ and names every
# experiment of lab/face/experiments.h, nothing in the repository points to
# files outside it, and no comment in the C sources names a file that does
# not exist (tests/tools/comment_files.py; checked on a file made to).
set -uo pipefail
cd "$(dirname "$0")/../.."
n=0 bad=0
echo "1..6"
missing=$(grep -o 'X(LAB_E_[A-Z_]*, "[a-z_]*"' lab/base/error.h | sed 's/.*"\(.*\)"/\1/' | while read -r code; do
  grep -q "\`$code\`" docs/api.md || echo "$code"; done | tr '\n' ' ')
n=$((n + 1))
if [ -z "$missing" ]; then echo "ok $n - docs/api.md names every error code"; else echo "not ok $n - docs/api.md names every error code"; echo "# missing: $missing"; bad=1; fi
n=$((n + 1))
if grep -q '(docs/' README.md; then echo "ok $n - the README links to docs/"; else echo "not ok $n - the README links to docs/"; bad=1; fi
n=$((n + 1))
stems=$(grep -oE '^ *X\([a-z0-9_]+, (kern|check), [01], [a-z_]+\)' lab/face/experiments.h | sed -E 's/^ *X\(([a-z0-9_]+),.*/\1/')
unnamed=$(printf '%s\n' "$stems" | while read -r stem; do
  grep -q "\`$stem\`" README.md || echo "$stem"; done | tr '\n' ' ')
[ "$(printf '%s\n' "$stems" | grep -c .)" -ge 12 ] || unnamed="(the table's lines were not read: $(printf '%s' "$stems" | wc -l) found)"
if [ -z "$unnamed" ]; then echo "ok $n - the README names every experiment"; else echo "not ok $n - the README names every experiment"; echo "# missing: $unnamed"; bad=1; fi
n=$((n + 1))
files=$(git ls-files 2>/dev/null || find . -type f -not -path './build*' -not -path './.git/*' -not -path '*/node_modules/*' -not -path './third_party/*' | sed 's|^\./||')
out=$(printf '%s\n' "$files" | grep -vE '^tests/tools/docs\.sh$' | xargs grep -lE '\.\./shared|shared/(DESIGN|STYLE|MEASURE)\.md' 2>/dev/null | tr '\n' ' ')
if [ -z "$out" ]; then echo "ok $n - nothing points outside the repository"; else echo "not ok $n - nothing points outside the repository"; echo "# in: $out"; bad=1; fi
n=$((n + 1))
gone=$(python3 tests/tools/comment_files.py . | tr '\n' ' ')
if [ -z "$gone" ]; then echo "ok $n - every file a comment in the C sources names exists"; else echo "not ok $n - every file a comment in the C sources names exists"; echo "# named but missing: $gone"; bad=1; fi
n=$((n + 1))
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/server/api" "$tmp/server/cli"
printf '/* The route table is routes.c; see ../cli/serve.c, server/cli/serve.c,\n * cli/serve.c and the store'"'"'s store.c. */\n' > "$tmp/server/api/api.h"
printf 'int routes;\n' > "$tmp/server/api/routes.c"
printf '/* serve.c: starts the server (main.c calls it). */ char *s = "gone.c";\n' > "$tmp/server/cli/serve.c"
made=$(python3 tests/tools/comment_files.py "$tmp" | tr '\n' ' ')
if [ "$made" = "server/api/api.h:2: store.c server/cli/serve.c:1: main.c " ]; then echo "ok $n - a comment naming a missing file is found, a string or an existing file is not"; else echo "not ok $n - a comment naming a missing file is found, a string or an existing file is not"; echo "# found: $made"; bad=1; fi
exit $bad
