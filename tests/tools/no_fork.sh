#!/usr/bin/env bash
# The server is a threaded process that loads libraries with fork handlers
# (OpenBLAS shuts its thread pool down in one, under an sgemm in flight):
# its children start through posix_spawn (server/subprocess.c), never
# fork(). This fails on any fork()/vfork()/popen()/system() call in the
# server's sources and checks the rule itself on a file made to break it.
set -uo pipefail
cd "$(dirname "$0")/../.."
n=0 fails=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }

# Calls, not words in comments: strip /* … */ and // comments first.
calls() { # files...
  for f in "$@"; do
    sed -e 's://.*$::' "$f" | perl -0pe 's:/\*.*?\*/::gs' | grep -nE '(^|[^_[:alnum:]])(fork|vfork|popen|system)[[:space:]]*\(' |
      sed "s|^|$f:|"
  done
}

found=$(calls $(find server -name '*.c' -o -name '*.h'))
[ -z "$found" ]
ok $? "no fork, vfork, popen or system call in server/ (children start with srv_spawn)${found:+: $found}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '/* fork() in a comment is fine */\nstatic int f(void) { return fork(); }\n' > "$tmp/bad.c"
[ -n "$(calls "$tmp/bad.c")" ]
ok $? "the check finds a fork() call made on purpose, and only the call"
[ "$(calls "$tmp/bad.c" | wc -l)" = 1 ]
ok $? "a fork() named in a comment is not counted"

echo "1..$n"
[ $fails = 0 ]
