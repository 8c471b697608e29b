// `gpulab run EXP --trace FILE` and an independent reader of the file:
// Chromium DevTools' own trace engine (@paulirish/trace_engine, the
// Performance panel's parser as Lighthouse ships it; tests/trace/package.json)
// must load every experiment's trace and see the same threads and slices
// that gpulab wrote, each launch-to-kernel flow's ends inside its slices.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cli, registry } from '../api/lib.mjs';

const T = { timeout: 120000 };
const here = path.dirname(fileURLToPath(import.meta.url));
const ENGINE = path.join(here, '../trace/node_modules/@paulirish/trace_engine/models/trace/trace.js');

function tmpFile(name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gpulab-trace-'));
  return path.join(dir, name);
}

function runTrace(name, extra = []) {
  const file = tmpFile(`${name}.json`);
  const r = cli(['run', name, '--backend', 'simulated', '--trace', file, ...extra], { timeoutMs: 60000 });
  assert.equal(r.code, 0, `${name}: ${r.stderr}`);
  return { r, trace: JSON.parse(fs.readFileSync(file, 'utf8')) };
}

// What gpulab wrote, per thread: its name and its slices' names in order.
function ours(trace) {
  const threads = new Map();
  for (const e of trace.traceEvents) {
    const key = `${e.pid}/${e.tid}`;
    if (!threads.has(key)) threads.set(key, { name: undefined, slices: [] });
    if (e.ph === 'M' && e.name === 'thread_name') threads.get(key).name = e.args.name;
    if (e.ph === 'X') threads.get(key).slices.push(e.name);
  }
  for (const [k, t] of threads) if (t.slices.length === 0) threads.delete(k);
  return threads;
}

test('run --trace writes a trace whose metadata says it is simulated', T, () => {
  const { trace } = runTrace('timing');
  assert.equal(trace.displayTimeUnit, 'ms');
  assert.equal(trace.otherData.backend, 'simulated');
  assert.match(trace.otherData.source, /not a measurement/);
  assert.equal(trace.otherData.experiment, 'timing');
  assert.match(trace.otherData.gpulab_version, /^\d+\.\d+\.\d+$/);
  assert.match(trace.otherData.date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.ok(trace.otherData.profile);
  assert.ok(trace.traceEvents.some((e) => e.ph === 'X'));
});

test('run --trace - writes the trace alone to stdout, and --json still prints the result', T, () => {
  const r = cli(['run', 'graphs', '--backend', 'simulated', '--trace', '-'], { timeoutMs: 60000 });
  assert.equal(r.code, 0);
  assert.ok(Array.isArray(r.json.traceEvents));
  const file = tmpFile('g.json');
  const j = cli(['run', 'graphs', '--backend', 'simulated', '--json', `--trace=${file}`], { timeoutMs: 60000 });
  assert.equal(j.json.experiment, 'graphs');
  assert.ok(JSON.parse(fs.readFileSync(file, 'utf8')).traceEvents.length > 0);
});

test('run --trace without a file, or into a folder that does not exist, is a usage error', T, () => {
  const r = cli(['run', 'timing', '--backend', 'simulated', '--json', '--trace']);
  assert.equal(r.code, 2);
  assert.equal(r.json.error.code, 'usage');
  const w = cli(['run', 'timing', '--backend', 'simulated', '--json', '--trace', '/nonexistent/dir/t.json'], {
    timeoutMs: 60000,
  });
  assert.equal(w.code, 2);
  assert.equal(w.json.error.code, 'usage');
});

test('chromium devtools trace engine loads every experiment trace and sees the same events', T, async (t) => {
  if (!fs.existsSync(ENGINE)) {
    t.skip('tests/trace/node_modules is missing: run tools/deps.sh test');
    return;
  }
  globalThis.DOMRect ??= class DOMRect {}; // the engine's one browser global; unused by these handlers
  const Trace = await import(ENGINE);
  let withSlices = 0;
  let flowsSeen = 0;
  for (const exp of registry()) {
    const { trace } = runTrace(exp.name);
    const proc = Trace.Processor.TraceProcessor.createWithAllHandlers();
    await proc.parse(trace.traceEvents, { isFreshRecording: false, isCPUProfile: false });
    const parsed = proc.parsedTrace;
    const want = ours(trace);
    const seen = new Map();
    for (const [pid, p] of parsed.Renderer.processes)
      for (const [tid, th] of p.threads)
        if (th.entries.length) seen.set(`${pid}/${tid}`, { name: th.name, slices: th.entries.map((e) => e.name) });
    assert.deepEqual([...seen.keys()].sort(), [...want.keys()].sort(), `${exp.name}: the same threads`);
    for (const [k, w] of want) {
      const s = seen.get(k);
      assert.equal(s.name, w.name, `${exp.name} ${k}: thread name`);
      assert.deepEqual([...s.slices].sort(), [...w.slices].sort(), `${exp.name} ${k}: the same slices`);
    }
    // Launch arrows: Kineto's ac2g flows (cat "ac2g") never share a category
    // with their slices, and DevTools binds a flow only to a slice of its own
    // category, so it draws none for PyTorch's traces nor ours; Perfetto and
    // chrome://tracing bind each end to the enclosing slice of its thread.
    // Checked here on the engine's own slices: each end lies in one, the start
    // in a launch, the end in a GPU op.
    const entries = new Map();
    for (const [pid, p] of parsed.Renderer.processes)
      for (const [tid, th] of p.threads) entries.set(`${pid}/${tid}`, th.entries);
    const flowEnds = trace.traceEvents.filter((e) => e.ph === 's' || e.ph === 'f');
    flowsSeen += flowEnds.length;
    for (const e of flowEnds) {
      assert.equal(e.cat, 'ac2g', `${exp.name}: flows are Kineto's ac2g`);
      const inside = (entries.get(`${e.pid}/${e.tid}`) || []).filter(
        (x) => x.ts <= e.ts + 1e-3 && e.ts - 1e-3 <= x.ts + (x.dur || 0));
      assert.ok(inside.length, `${exp.name}: flow ${e.ph} ${e.id} lies in a slice the engine read`);
      if (e.ph === 's') assert.ok(inside.some((x) => /^cuda(LaunchKernel|GraphLaunch)$/.test(x.name)), `${exp.name}: s at a launch`);
      else assert.ok(inside.some((x) => !x.name.startsWith('cuda')), `${exp.name}: f at a GPU op`);
    }
    assert.equal(parsed.Flows.flows.length, 0, `${exp.name}: DevTools binds no cross-category flow`);
    if (want.size) withSlices++;
  }
  assert.ok(withSlices >= 6, `experiments with a timeline: ${withSlices}`);
  assert.ok(flowsSeen >= 20, `flow ends checked: ${flowsSeen}`);
});
