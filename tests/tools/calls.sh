#!/usr/bin/env bash
# Circles between modules (a stem's .c and .h together), in one graph with
# an edge for each include of another module's header and each use of a
# symbol another module defines (nm on the objects of lab/, server/ and the
# client's plain-C files, which the native build compiles for the unit
# tests). An include check alone cannot see a module that calls into
# another whose header includes it back: the store's factory, its dispatch
# and its backends once made an 11-file circle of calls, and the SQLite
# backend's private header (also one file's own) made a circle of an
# include and a call. The check is also run on files made to form both
# kinds of circle, and must find them. Usage: tests/tools/calls.sh BUILD/bin/lessonc
set -uo pipefail
cd "$(dirname "$0")/../.."
build=$(dirname "$(dirname "${1:-build/bin/lessonc}")")
n=0 fails=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }

# circles OBJDIR SRCROOT: prints each circle of modules. Nodes are the
# stems of SRCROOT's lab/, server/ and wasm/ (the GPU child and the mains
# are programs of their own); an include "x.h" resolves as the Makefile's
# one -I per room does: the including file's folder first, then the one
# header of that name.
circles() {
  python3 - "$1" "$2" <<'PY'
import collections, os, re, subprocess, sys
objdir, src = sys.argv[1], sys.argv[2]
def skipped(mod):
    return '/worker/' in mod or '/tls_shim/' in mod or os.path.basename(mod).endswith('main')
stems, by_name = set(), collections.defaultdict(list)
for part in ('lab', 'server', 'wasm'):
    for d, _, names in os.walk(os.path.join(src, part)):
        for f in names:
            if not f.endswith(('.c', '.h')): continue
            rel = os.path.relpath(os.path.join(d, f), src)
            if skipped(rel[:-2]): continue
            stems.add(rel[:-2])
            by_name[f].append(rel)
edges = collections.defaultdict(set)
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
for stem in stems:
    for ext in ('.c', '.h'):
        path = os.path.join(src, stem + ext)
        if not os.path.exists(path): continue
        for name in inc.findall(open(path, encoding='utf-8', errors='replace').read()):
            here = os.path.normpath(os.path.join(os.path.dirname(stem), name))
            found = [here + ''] if os.path.exists(os.path.join(src, here)) else by_name.get(os.path.basename(name), [])
            for t in found[:1]:
                if t[:-2] in stems and t[:-2] != stem: edges[stem].add(t[:-2])
defs, uses = {}, collections.defaultdict(set)
objs = {}
for d, _, names in os.walk(objdir):
    for f in names:
        if not f.endswith('.o'): continue
        o = os.path.join(d, f)
        mod = os.path.relpath(o, objdir)[:-2]
        if mod in stems and os.path.exists(os.path.join(src, mod + '.c')): objs[o] = mod
# One nm for every object (nm -A names each line's file): one nm per object
# cost about 0.12 s of CPU each, most of it nm starting, 55 s for 452.
listing = subprocess.run(['nm', '-A', '--'] + sorted(objs), capture_output=True, text=True).stdout if objs else ''
for line in listing.splitlines():
    o, _, rest = line.partition(':')
    mod, p = objs.get(o), rest.split()
    if mod is None: continue
    if len(p) == 3 and p[1] in 'TDBR': defs[p[2]] = mod
    elif len(p) == 2 and p[0] == 'U': uses[mod].add(p[1])
for m, us in uses.items():
    edges[m] |= {defs[s] for s in us if s in defs and defs[s] != m}
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
for v in sorted(edges):
    if v not in index: visit(v)
print('\n'.join(sorted(found)))
PY
}

if [ ! -d "$build/obj/server" ]; then
  echo "1..1"; echo "ok 1 - # SKIP $build/obj/server was not built"; exit 0
fi
found=$(circles "$build/obj" .)
[ -z "$found" ]
ok $? "no circle of includes and calls between the modules of lab/, server/ and wasm/${found:+: $found}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/server" "$tmp/obj/server"
printf 'int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n' > "$tmp/src/server/a.c"
printf 'int a(int);\nint b(int x) { return x ? a(x - 1) : 1; }\n' > "$tmp/src/server/b.c"
printf 'int a(int);\nint c(int x) { return a(x); }\n' > "$tmp/src/server/c.c"
# d.h is d.c's own header and also the private header of e.c, which d calls.
printf 'int e(int);\n' > "$tmp/src/server/d.h"
printf '#include "d.h"\nint d(int x) { return e(x); }\n' > "$tmp/src/server/d.c"
printf '#include "d.h"\nint e(int x) { return x; }\n' > "$tmp/src/server/e.c"
for m in a b c d e; do cc -c "$tmp/src/server/$m.c" -o "$tmp/obj/server/$m.o"; done
made=$(circles "$tmp/obj" "$tmp/src")
[ "$made" = "$(printf 'server/a <-> server/b\nserver/d <-> server/e')" ]
ok $? "circles made on purpose (a calls b, b calls a; d calls e, e includes d's header; c only calls in) are found, and only they: '$(tr '\n' ';' <<<"$made")'"

echo "1..$n"
[ $fails = 0 ]
