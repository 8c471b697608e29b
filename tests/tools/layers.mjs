// The include graph of the C sources, checked (TAP output): every layer
// includes only what docs/architecture.md allows, every room of server/
// only the rooms below it, and no two modules (a stem's .c and .h
// together) include each other, directly or in a circle.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, dirname, basename } from 'node:path';

const root = join(dirname(new URL(import.meta.url).pathname), '..', '..');
const LAYERS = ['lab', 'kernels', 'server', 'wasm', 'tools'];
// Which layers a layer's files may include (besides the C library and
// system headers: civetweb.h, cjson, sqlite3…). lab is the portable core.
const ALLOWED = {
  lab: ['lab'],
  kernels: ['lab', 'kernels'],
  server: ['lab', 'server', 'kernels'], // kernels/kern.h only, and only server/worker/ (checked below)
  wasm: ['lab', 'wasm'],
  tools: ['lab', 'tools'],
};

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (/\.(c|h|cu|cuh)$/.test(name)) out.push(p);
  }
  return out;
}

const files = LAYERS.flatMap((l) => walk(join(root, l))).map((p) => relative(root, p));
const byName = new Map(); // header base name -> repo paths
for (const f of files) {
  const b = basename(f);
  byName.set(b, [...(byName.get(b) ?? []), f]);
}
const layerOf = (f) => f.split('/')[0];
const moduleOf = (f) => f.replace(/\.(c|h|cu|cuh)$/, '');

// The rooms of server/ (docs/architecture.md, "Rooms of the server") and
// which rooms each may include: the HTTP edge and the store know nothing
// above them, GPU scheduling only the store, the class the three below,
// the handlers all but the commands, the commands everything. "base" is
// server/'s own folder (small helpers); main.c dispatches to the commands.
const ROOMS = ['http', 'store', 'gpu', 'class', 'api', 'cli'];
const ROOM_ALLOWED = {
  base: ['base'],
  http: ['base', 'http'],
  store: ['base', 'store'],
  gpu: ['base', 'store', 'gpu'],
  class: ['base', 'http', 'store', 'gpu', 'class'],
  api: ['base', 'http', 'store', 'gpu', 'class', 'api'],
  cli: ['base', 'http', 'store', 'gpu', 'class', 'api', 'cli'],
  main: ['base', 'cli', 'gpu'],
  worker: ['base', 'gpu', 'worker'],
  tls_shim: ['tls_shim'],
};
const roomOf = (f) => {
  const parts = f.split('/');
  if (parts[0] !== 'server') return null;
  if (parts.length === 2) return parts[1] === 'main.c' ? 'main' : 'base';
  return parts[1];
};

// Resolves an #include "x.h" the way the Makefile's -I paths do: the
// including file's folder first, then lab/, kernels/, server/ and each of
// its rooms, wasm/.
function resolve(from, inc) {
  const here = join(dirname(from), inc);
  if (files.includes(here)) return here;
  for (const dir of ['lab', 'lab/compare', 'kernels', 'server', ...ROOMS.map((r) => `server/${r}`), 'wasm', 'third_party/cjson']) {
    const p = join(dir, inc);
    if (files.includes(p)) return p;
  }
  return null; // a system or third-party header
}

const edges = new Map(); // module -> Set(module)
const problems = [];
for (const f of files) {
  const text = readFileSync(join(root, f), 'utf8');
  for (const m of text.matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)) {
    const target = resolve(f, m[1]);
    if (!target) continue;
    const from = layerOf(f), to = layerOf(target);
    if (!ALLOWED[from].includes(to)) problems.push(`${f} includes ${target}: ${from}/ may include only ${ALLOWED[from].join(', ')}`);
    if (from === 'server' && to === 'server') {
      const ra = roomOf(f), rb = roomOf(target);
      if (!ROOM_ALLOWED[ra]) problems.push(`${f}: server/${ra}/ is not a room docs/architecture.md names`);
      else if (!ROOM_ALLOWED[ra].includes(rb))
        problems.push(`${f} includes ${target}: server/${ra === 'base' ? '' : ra + '/'} may include only the rooms ${ROOM_ALLOWED[ra].join(', ')}`);
    }
    if (from === 'server' && to === 'kernels' && (target !== 'kernels/kern.h' || !/^server\/worker\//.test(f)))
      problems.push(`${f} includes ${target}: only the worker (server/worker/) reaches kernels/kern.h`);
    const a = moduleOf(f), b = moduleOf(target);
    if (a === b) continue;
    if (!edges.has(a)) edges.set(a, new Set());
    edges.get(a).add(b);
  }
}

// Cycles: depth-first search with colours; report each circle once.
const cycles = [];
const colour = new Map();
function dfs(v, stack) {
  colour.set(v, 1);
  stack.push(v);
  for (const w of edges.get(v) ?? []) {
    if (colour.get(w) === 1) cycles.push([...stack.slice(stack.indexOf(w)), w].join(' -> '));
    else if (!colour.get(w)) dfs(w, stack);
  }
  stack.pop();
  colour.set(v, 2);
}
for (const v of edges.keys()) if (!colour.get(v)) dfs(v, []);

console.log('1..2');
console.log(`${problems.length ? 'not ok' : 'ok'} 1 - every layer includes only the layers it may (${files.length} files)`);
for (const p of problems) console.log(`# ${p}`);
console.log(`${cycles.length ? 'not ok' : 'ok'} 2 - no module includes another that includes it back, directly or in a circle`);
for (const c of cycles) console.log(`# circle: ${c}`);
process.exit(problems.length || cycles.length ? 1 : 0);
