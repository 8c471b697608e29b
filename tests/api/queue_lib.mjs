// Helpers for the GPU-queue tests (class mode with the test-only fake GPU):
// submit a GPU run, poll it to its end, and find the server's GPU worker
// processes. The fake GPU: GPULAB_TEST_HOOKS=1 + GPULAB_FAKE_GPU_MS=N makes
// the worker report a usable device and answer each run after N ms.
import { readdirSync, readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { request } from './lib.mjs';
import { asLearner } from './class_lib.mjs';

export const fakeGpu = (ms, extra = {}) => ({ GPULAB_TEST_HOOKS: '1', GPULAB_FAKE_GPU_MS: String(ms), ...extra });

// POST a GPU run (backend cuda) as the learner with `cookie`.
export const submit = (srv, cookie, name = 'timing', params = {}) =>
  request(srv, `/api/experiments/${name}`, { method: 'POST', body: { params, backend: 'cuda' }, ...asLearner(cookie) });

// Submits and asserts the 202 shape; returns the run brief.
export async function submitQueued(srv, cookie, name = 'timing', params = {}) {
  const r = await submit(srv, cookie, name, params);
  assert.equal(r.status, 202, `queued: ${r.text}`);
  const run = r.json.run;
  assert.equal(typeof run.id, 'number');
  assert.ok(['queued', 'running'].includes(run.status), run.status);
  assert.equal(typeof run.position, 'number');
  assert.equal(typeof run.estimate_s, 'number');
  return run;
}

export const getRun = (srv, cookie, id) => request(srv, `/api/runs/${id}`, asLearner(cookie));
export const cancelRun = (srv, cookie, id) => request(srv, `/api/runs/${id}`, { method: 'DELETE', ...asLearner(cookie) });

// Polls until the run has ended (done, failed or cancelled); returns it.
export async function waitRun(srv, cookie, id, { timeoutMs = 15000, everyMs = 50 } = {}) {
  const t0 = Date.now();
  for (;;) {
    const r = await getRun(srv, cookie, id);
    assert.equal(r.status, 200, `GET run ${id}: ${r.text}`);
    if (['done', 'failed', 'cancelled'].includes(r.json.run.status)) return r.json.run;
    if (Date.now() - t0 > timeoutMs) assert.fail(`run ${id} still ${r.json.run.status} after ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, everyMs));
  }
}

// Polls until the run is on the GPU.
export async function waitRunning(srv, cookie, id, { timeoutMs = 10000 } = {}) {
  const t0 = Date.now();
  for (;;) {
    const r = await getRun(srv, cookie, id);
    if (r.json?.run?.status === 'running') return r.json.run;
    if (Date.now() - t0 > timeoutMs) assert.fail(`run ${id} never started: ${r.text}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

// The pids of a server's child processes (its GPU workers), from /proc.
export function childPids(pid) {
  const out = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const kids = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (kids) out.push(...kids.split(/\s+/).map(Number));
    } catch {
      // the thread ended while we looked
    }
  }
  return out;
}

// Prometheus text → { 'name{labels}': value }.
export function parseMetrics(text) {
  const m = {};
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    m[line.slice(0, i)] = Number(line.slice(i + 1));
  }
  return m;
}
