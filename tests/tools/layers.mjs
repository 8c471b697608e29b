// The include graph of the C sources, checked (TAP output): every layer
// includes only what docs/architecture.md allows, every room of server/,
// lab/ and wasm/ only the rooms below it, no two modules (a stem's .c and
// .h together) include each other, directly or in a circle, a header is
// named alone (no folder, no ../) and one name is one file, so the one -I
// per room finds the header meant.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, dirname, basename } from 'node:path';

const root = process.env.LAYERS_ROOT ?? join(dirname(new URL(import.meta.url).pathname), '..', '..');
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
  let names = [];
  try { names = readdirSync(dir); } catch { return out; }
  for (const name of names) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) { if (name !== 'node_modules') out.push(...walk(p)); }
    else if (/\.(c|h|cu|cuh)$/.test(name)) out.push(p);
  }
  return out;
}

const files = LAYERS.flatMap((l) => walk(join(root, l))).map((p) => relative(root, p));
const fileSet = new Set(files);
const byName = new Map(); // header base name -> repo paths
for (const f of files.filter((f) => /\.(h|cuh)$/.test(f))) {
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
const SERVER_ROOMS = {
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
// The rooms of lab/ (docs/architecture.md, "Rooms of the core"): a base of
// utilities under everything, the simulator's model on it, the face the
// other layers include (the table, registry, params, envelope: it names
// the profile type), the experiments on those; the two readers and the
// quiz stand on the base alone, the trace export reads envelopes and
// profiles; the planner and a learner's own run may use the experiments'
// rooms, and nothing in lab/ includes them.
const LAB_ROOMS = {
  base: ['base'],
  sim: ['base', 'sim'],
  face: ['base', 'sim', 'face'],
  experiments: ['base', 'sim', 'face', 'experiments'],
  trace: ['base', 'sim', 'face', 'trace'],
  quiz: ['base', 'quiz'],
  explain: ['base', 'explain'],
  doctor: ['base', 'doctor'],
  plan: ['base', 'sim', 'face', 'experiments', 'plan'],
  compare: ['base', 'sim', 'face', 'experiments', 'compare'],
};
// The rooms of wasm/ (docs/architecture.md, "Rooms of the client"): only
// the pages talk to the page, through the platform's bridge; the report,
// the renderers and the charts below them are plain C on the base. main.c
// starts the pages. The two worker modules stand apart: each includes its
// own room and what it needs of lab/ (below).
const WASM_ROOMS = {
  platform: ['platform'],
  main: ['platform', 'pages'],
  base: ['base'],
  chart: ['base', 'chart'],
  render: ['base', 'chart', 'render'],
  report: ['base', 'chart', 'render', 'report'],
  pages: ['base', 'platform', 'chart', 'render', 'report', 'pages'],
  sim: ['sim'],
  reader: ['reader'],
};
// What each wasm module may include of lab/: the simulation module the
// simulators' rooms, the planner's (#plan) and compare (a kit file given
// to #yours is compared beside the predictions there), the reader module
// the two readers' (the Makefile compiles just those); the UI module's
// rooms any.
const WASM_LAB = {
  sim: ['base', 'sim', 'face', 'experiments', 'plan', 'compare'],
  reader: ['base', 'doctor', 'explain'],
};

const roomOf = (f) => {
  const parts = f.split('/');
  if (parts[0] === 'server') {
    if (parts.length === 2) return parts[1] === 'main.c' ? 'main' : 'base';
    return parts[1];
  }
  if (parts[0] === 'lab') return parts.length > 2 ? parts[1] : '(none)';
  if (parts[0] === 'wasm') {
    if (f === 'wasm/platform/main.c') return 'main';
    return parts.length > 2 ? parts[1] : '(none)';
  }
  return null;
};
const RULES = { server: SERVER_ROOMS, lab: LAB_ROOMS, wasm: WASM_ROOMS };

// Resolves an #include "x.h" the way the Makefile's -I paths do: the
// including file's folder first, then the one header of that name in a
// room (test 3 holds that there is only one).
function resolve(from, inc) {
  const here = join(dirname(from), inc);
  if (fileSet.has(here)) return here;
  const found = byName.get(basename(inc)) ?? [];
  return found.length ? found[0] : null; // else a system or third-party header
}

const edges = new Map(); // module -> Set(module)
const problems = [];
const namedBadly = [];
for (const f of files) {
  const text = readFileSync(join(root, f), 'utf8');
  for (const m of text.matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)) {
    if (m[1].includes('/')) namedBadly.push(`${f} includes "${m[1]}"`);
    const target = resolve(f, m[1]);
    if (!target) continue;
    const from = layerOf(f), to = layerOf(target);
    if (!ALLOWED[from].includes(to)) problems.push(`${f} includes ${target}: ${from}/ may include only ${ALLOWED[from].join(', ')}`);
    if (from === to && RULES[from]) {
      const rules = RULES[from], ra = roomOf(f), rb = roomOf(target);
      if (!rules[ra]) problems.push(`${f}: ${from}/${ra}/ is not a room docs/architecture.md names`);
      else if (!rules[ra].includes(rb))
        problems.push(`${f} includes ${target}: ${from}/${ra === 'base' && from === 'server' ? '' : ra + '/'} may include only the rooms ${rules[ra].join(', ')}`);
    }
    if (from === 'wasm' && to === 'lab') {
      const ra = roomOf(f), rb = roomOf(target);
      if (WASM_LAB[ra] && !WASM_LAB[ra].includes(rb))
        problems.push(`${f} includes ${target}: wasm/${ra}/ may include only lab's rooms ${WASM_LAB[ra].join(', ')}`);
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

const twice = [...byName].filter(([, paths]) => paths.length > 1).map(([b, paths]) => `${b}: ${paths.join(', ')}`);

// Every C source of the repository, tests and benchmarks too: no ../ in a quoted include.
const everywhere = ['lab', 'kernels', 'server', 'wasm', 'tools', 'tests', 'bench'].flatMap((l) => walk(join(root, l)));
const upward = [];
for (const p of everywhere) {
  for (const m of readFileSync(p, 'utf8').matchAll(/^\s*#\s*include\s+[<"]([^">]*\.\.\/[^">]*)[">]/gm))
    upward.push(`${relative(root, p)} includes "${m[1]}"`);
}

console.log('1..5');
console.log(`${problems.length ? 'not ok' : 'ok'} 1 - every layer and room includes only the layers and rooms it may (${files.length} files)`);
for (const p of problems) console.log(`# ${p}`);
console.log(`${cycles.length ? 'not ok' : 'ok'} 2 - no module includes another that includes it back, directly or in a circle`);
for (const c of cycles) console.log(`# circle: ${c}`);
console.log(`${twice.length ? 'not ok' : 'ok'} 3 - one header name is one file in lab/, kernels/, server/, wasm/ and tools/ (a bare include finds the one meant)`);
for (const t of twice) console.log(`# twice: ${t}`);
console.log(`${upward.length ? 'not ok' : 'ok'} 4 - no #include goes up a folder with ../ (${everywhere.length} files)`);
for (const u of upward) console.log(`# ${u}`);
console.log(`${namedBadly.length ? 'not ok' : 'ok'} 5 - every header of the layers is included by its name alone, not by a folder`);
for (const u of namedBadly) console.log(`# ${u}`);
process.exit(problems.length || cycles.length || twice.length || upward.length || namedBadly.length ? 1 : 0);
