#!/usr/bin/env bash
# A line of lab/face/experiments.h rebuilds the lists and not every file:
# `make -n -W lab/face/experiments.h` (what would run were the table newer)
# compiles only the files that include the table — no .cu for any
# architecture, no view, no test but the runner and the table-driven one.
set -uo pipefail
cd "$(dirname "$0")/../.."
n=0 fails=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }
compiled=$(make -n -W lab/face/experiments.h all 2>/dev/null | grep -oE ' -c [^ ]+' | sed 's/ -c //' | sort -u)
count=$(printf '%s\n' "$compiled" | grep -c .)
cu=$(printf '%s\n' "$compiled" | grep -c '\.cu$')
[ "$cu" = 0 ]
ok $? "a table line compiles no .cu file (it compiled $cu)"
allowed='^(lab/face/registry\.c|server/worker/jobs\.c|kernels/none\.c|wasm/render/result\.c|tests/unit/check_all\.c|tests/unit/check_experiments\.c)$'
extra=$(printf '%s\n' "$compiled" | grep -vE "$allowed" | grep . | tr '\n' ' ')
[ -z "$extra" ]
ok $? "only the lists that include the table are compiled ($count: $(printf '%s\n' "$compiled" | tr '\n' ' '))${extra:+; also: $extra}"
echo "1..$n"
[ $fails = 0 ]
