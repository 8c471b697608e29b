#!/usr/bin/env bash
# Circles of calls, which an include check cannot see: from the objects
# of lab/ and server/ (nm: the symbols each defines and uses), a module
# that calls into another which (through others) calls back into it fails.
# The store's factory, its dispatch and its backends once made an 11-file
# circle this way. The check is also run on two objects made to call each
# other, and must find that circle. Usage: tests/tools/calls.sh BUILD/bin/lessonc
set -uo pipefail
cd "$(dirname "$0")/../.."
build=$(dirname "$(dirname "${1:-build/bin/lessonc}")")
n=0 fails=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }

# circles OBJDIR SRCROOT: prints each circle of modules (objects whose
# source still exists; the GPU child and main are programs of their own).
circles() {
  python3 - "$1" "$2" <<'PY'
import collections, glob, os, subprocess, sys
objdir, src = sys.argv[1], sys.argv[2]
defs, uses = {}, collections.defaultdict(set)
for o in [f for part in ('lab', 'server') for f in glob.glob(os.path.join(objdir, part, '**', '*.o'), recursive=True)]:
    mod = os.path.relpath(o, objdir)[:-2]
    if '/worker/' in o or mod.endswith('main') or not os.path.exists(os.path.join(src, mod + '.c')):
        continue
    for line in subprocess.run(['nm', o], capture_output=True, text=True).stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'TDBR': defs[p[2]] = mod
        elif len(p) == 2 and p[0] == 'U': uses[mod].add(p[1])
edges = {m: {defs[s] for s in us if s in defs and defs[s] != m} for m, us in uses.items()}
sys.setrecursionlimit(100000)
index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = counter[0]; counter[0] += 1; stack.append(v); on.add(v)
    for w in edges.get(v, ()):
        if w not in index: visit(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: found.append(' <-> '.join(sorted(comp)))
for v in list(edges):
    if v not in index: visit(v)
print('\n'.join(found))
PY
}

if [ ! -d "$build/obj/server" ]; then
  echo "1..1"; echo "ok 1 - # SKIP $build/obj/server was not built"; exit 0
fi
found=$(circles "$build/obj" .)
[ -z "$found" ]
ok $? "no circle of calls between the modules of lab/ and server/${found:+: $found}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/server" "$tmp/obj/server"
printf 'int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n' > "$tmp/src/server/a.c"
printf 'int a(int);\nint b(int x) { return x ? a(x - 1) : 1; }\n' > "$tmp/src/server/b.c"
printf 'int a(int);\nint c(int x) { return a(x); }\n' > "$tmp/src/server/c.c"
for m in a b c; do cc -c "$tmp/src/server/$m.c" -o "$tmp/obj/server/$m.o"; done
made=$(circles "$tmp/obj" "$tmp/src")
[ "$made" = "server/a <-> server/b" ]
ok $? "a circle made on purpose (a calls b, b calls a; c only calls in) is found, and only it: '$made'"

echo "1..$n"
[ $fails = 0 ]
