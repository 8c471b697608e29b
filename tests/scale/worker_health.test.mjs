// Worker health is what a worker can do, not that it is alive: a worker
// with no usable GPU takes no runs and shows unusable (with its reason) in
// /api/health, /api/device, /metrics and the instructor's view; a worker
// whose GPU fails runs hands each back to another worker, is not charged
// for it, and stops claiming after three; with no usable worker, auto
// runs are simulated and queued runs say no GPU worker is running; a 202's
// queue position is the run's place in the fair order; --workers none
// starts no GPU process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, request } from '../api/lib.mjs';
import { fakeGpu, childPids, parseMetrics } from '../api/queue_lib.mjs';
import { missing, newStore, startClusterServer, startWorker, joinWithJar, asInstructor, waitFor, psql } from './cluster_lib.mjs';

const T = { timeout: 120000, skip: missing() || false };
const ARGS = ['--runs-per-minute', '60'];
// A worker that sees no GPU whatever the machine has: its device is one CUDA does not know.
const NO_GPU = { GPULAB_TEST_HOOKS: '1', CUDA_VISIBLE_DEVICES: 'GPU-no-such-device' };

const gpuRun = (jar, srv, backend = 'cuda') =>
  jar.request(srv, '/api/experiments/timing', { method: 'POST', body: { params: {}, backend } });
const ended = (run) => ['done', 'failed', 'cancelled'].includes(run.status);

async function waitEnded(jar, srv, id, timeoutMs = 60000) {
  return waitFor(async () => {
    const r = await jar.request(srv, `/api/runs/${id}`);
    assert.equal(r.status, 200, r.text);
    return ended(r.json.run) && r.json.run;
  }, { timeoutMs, what: `run ${id} ending` });
}

// Submits one cuda run for each of n new learners; returns [{ jar, id }] (every one acknowledged).
async function submitMany(srv, n, prefix) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const jar = await joinWithJar(srv, `${prefix}${i}`, srv.joinCode);
    const r = await gpuRun(jar, srv);
    assert.equal(r.status, 202, r.text);
    out.push({ jar, id: r.json.run.id });
  }
  return out;
}

// Learners charged more GPU time than their runs took (none may be).
const overcharged = (db) =>
  Number(psql(`SELECT count(*) FROM learners l WHERE l.gpu_ms_used > 1 + coalesce((SELECT sum(gpu_ms) FROM runs r`
    + ` WHERE r.learner_id = l.id AND r.status = 'done'), 0)`, db));

const healthWorkers = async (srv) => (await request(srv, '/api/health')).json.workers ?? [];

test('a worker without a usable GPU takes no runs: every acknowledged run is done by the good one, none charged for the bad one', T, async () => {
  const { uri, db } = newStore();
  const srv = await startClusterServer(uri, { args: ARGS });
  const bad = await startWorker(uri, { env: NO_GPU });
  const good = await startWorker(uri, { env: fakeGpu(150) });
  try {
    // Both alive; the bad one shown unusable with its reason everywhere an operator looks.
    const listed = await waitFor(async () => {
      const ws = await healthWorkers(srv);
      return ws.length === 2 && ws.find((w) => w.id === bad.id)?.usable === false && ws;
    }, { what: 'both workers listed, the bad one unusable' });
    const b = listed.find((w) => w.id === bad.id);
    assert.equal(b.state, 'unusable');
    assert.match(b.unusable_reason, /^no usable GPU/);
    assert.equal(listed.find((w) => w.id === good.id).usable, true);
    assert.match(bad.stderr(), new RegExp(`gpulab worker ${bad.id}: not usable \\(no usable GPU.*\\); it takes no runs and checks again in \\d+ s`));
    const health = (await request(srv, '/api/health')).json;
    assert.equal(health.mode, 'cuda');
    const device = (await request(srv, '/api/device')).json;
    assert.equal(device.verdict.usable, true, 'the good worker\'s device');
    assert.deepEqual(device.workers.map((w) => [w.id, w.usable]).sort(), [[bad.id, false], [good.id, true]].sort());

    const runs = await submitMany(srv, 12, 'L');
    for (const { jar, id } of runs) assert.equal((await waitEnded(jar, srv, id)).status, 'done', `run ${id}`);
    const ids = runs.map((r) => r.id).join(',');
    assert.equal(psql(`SELECT count(*) FROM runs WHERE id IN (${ids}) AND status = 'done' AND worker_id = ${good.id}`, db), '12');
    assert.equal(psql(`SELECT count(*) FROM runs WHERE worker_id = ${bad.id} OR handed_back_by = ${bad.id}`, db), '0');
    assert.equal(overcharged(db), 0);

    const m = await waitFor(async () => {
      const mm = parseMetrics((await request(srv, '/metrics')).text);
      return mm[`gpulab_worker_runs_total{worker="${good.id}"}`] === 12 && mm;
    }, { what: 'the good worker\'s 12 runs in /metrics' });
    assert.equal(m.gpulab_workers_alive, 1, 'the unusable worker is not counted alive');
    assert.equal(m.gpulab_workers_usable, 1);
    assert.equal(m.gpulab_workers_unusable, 1);
    const badSeries = Object.keys(m).find((k) => k.startsWith(`gpulab_worker_usable{worker="${bad.id}"`));
    assert.match(badSeries, /reason="no usable GPU/);
    assert.equal(m[badSeries], 0);
    assert.equal(m[`gpulab_worker_runs_total{worker="${bad.id}"}`], 0);
    assert.ok(Object.keys(m).some((k) => k.startsWith(`gpulab_worker_usable{worker="${good.id}"`) && m[k] === 1));
    assert.equal(typeof m[`gpulab_worker_last_seen_seconds{worker="${bad.id}"}`], 'number');
    const cls = (await request(srv, '/api/instructor/class', asInstructor)).json;
    const seen = cls.workers.find((w) => w.id === bad.id);
    assert.equal(seen.usable, false);
    assert.match(seen.unusable_reason, /^no usable GPU/);

    // The good one gone: nothing takes runs. auto is simulated, cuda says why, the device view too.
    await good.stop();
    await waitFor(async () => (await request(srv, '/api/health')).json.mode === 'cpu', { what: 'mode cpu' });
    const jar = runs[0].jar;
    const auto = await gpuRun(jar, srv, 'auto');
    assert.equal(auto.status, 200, auto.text);
    assert.equal(auto.json.backend, 'simulated');
    const refused = assertError(await gpuRun(jar, srv), 503, 'no_gpu');
    assert.match(refused.message, /1 alive without a usable GPU/);
    const none = await waitFor(async () => {
      const d = (await request(srv, '/api/device')).json;
      return d.verdict.usable === false && d;
    }, { what: 'the device view without the good worker' });
    assert.match(none.verdict.summary, /the GPU workers alive take no runs \(no usable GPU/);
  } finally {
    await good.stop();
    await bad.stop();
    await srv.stop();
  }
});

test('a worker whose GPU fails runs hands each back to another worker, uncharged, and stops claiming after three', T, async () => {
  const { uri, db } = newStore();
  const srv = await startClusterServer(uri, { args: ARGS });
  const broken = await startWorker(uri, { env: fakeGpu(20, { GPULAB_FAKE_GPU_FAIL: 'cuda_error' }) });
  let good;
  try {
    // Alone, the broken worker (its device looks usable) takes runs and hands each back.
    await waitFor(async () => (await request(srv, '/api/health')).json.mode === 'cuda', { what: 'the broken worker seen' });
    const first = await submitMany(srv, 4, 'F');
    const stopped = await waitFor(async () => {
      const w = (await healthWorkers(srv)).find((x) => x.id === broken.id);
      return w?.usable === false && w;
    }, { what: 'the broken worker taking itself for unusable', timeoutMs: 30000 });
    assert.match(stopped.unusable_reason, /^3 runs in a row failed because of this worker \(last: cuda_error/);
    assert.match(broken.stderr(), /handed back to the queue for another worker/);
    await waitFor(async () => {
      const mm = parseMetrics((await request(srv, '/metrics')).text);
      const series = Object.keys(mm).find((k) => k.startsWith(`gpulab_worker_usable{worker="${broken.id}"`));
      return /reason="3 runs in a row failed because of this worker/.test(series) && mm[series] === 0;
    }, { what: 'the broken worker unusable in /metrics, with its reason' });
    // Its three failures: each a run handed back (queued again), or, where its run was the only one queued when
    // it claimed again (the learners' joins were slower than its failures), the same run tried once more and
    // failed for good (two failures, one run).
    const back = Number(psql(`SELECT count(*) FROM runs WHERE handed_back_by = ${broken.id} AND status = 'queued'`, db));
    const final = Number(psql(`SELECT count(*) FROM runs WHERE handed_back_by = ${broken.id} AND status = 'failed'`
      + ` AND worker_id = ${broken.id}`, db));
    assert.ok(back >= 1 && back + 2 * final === 3, `handed back and queued: ${back}, failed after a second try: ${final}`);
    // Queued with no worker that takes runs (until the broken one's next check): no estimate, and it says why.
    const last = first[first.length - 1]; // queued whatever the order of the failures above
    const [waiting, q] = await waitFor(async () => {
      const r = (await last.jar.request(srv, `/api/runs/${last.id}`)).json.run;
      const queue = (await request(srv, '/api/instructor/class', asInstructor)).json.queue;
      return r.status === 'queued' && r.note && queue.some((e) => e.note) && [r, queue];
    }, { what: 'a queued run saying no worker runs' });
    assert.equal(waiting.estimate_s, null);
    assert.match(waiting.note, /no GPU worker is running/);
    const queued = q.filter((e) => e.status === 'queued');
    assert.ok(queued.length >= 3 && queued.every((e) => e.estimate_s === null && /no GPU worker/.test(e.note)), JSON.stringify(q));

    // A good worker takes the handed-back runs: each done once, by it, charged only what it took.
    good = await startWorker(uri, { env: fakeGpu(100) });
    for (const { jar, id } of first) {
      const run = await waitEnded(jar, srv, id);
      assert.ok(['done', 'failed'].includes(run.status), run.status);
    }
    // (a run the broken worker takes again after its check, before the good one registered, fails uncharged)
    const ids = first.map((r) => r.id).join(',');
    const done = Number(psql(`SELECT count(*) FROM runs WHERE id IN (${ids}) AND status = 'done' AND worker_id = ${good.id}`, db));
    const failed = psql(`SELECT coalesce(string_agg(error_code, ','), '') FROM runs WHERE id IN (${ids}) AND status = 'failed'`, db);
    assert.equal(done + failed.split(',').filter(Boolean).length, 4);
    assert.ok(failed.split(',').filter(Boolean).every((c) => c === 'cuda_error'), failed);
    assert.ok(Number(psql(`SELECT count(*) FROM runs WHERE id IN (${ids}) AND handed_back_by = ${broken.id}`
      + ` AND status = 'done' AND worker_id = ${good.id}`, db)) >= 1, 'a handed-back run done by the good worker');
    assert.equal(overcharged(db), 0);
    assert.equal(Number(psql(`SELECT coalesce(sum(gpu_ms_used), 0) FROM learners l WHERE NOT EXISTS (SELECT 1 FROM runs r`
      + ` WHERE r.learner_id = l.id AND r.status = 'done')`, db)), 0, 'learners whose run failed are charged nothing');
    // Its back-off's check finds the device usable again (a driver can come back): it takes runs again.
    await waitFor(() => /gpulab worker \d+: the GPU is usable again; taking runs/.test(broken.stderr()),
      { what: 'the broken worker checking its GPU again', timeoutMs: 30000 });
    const m = parseMetrics((await request(srv, '/metrics')).text);
    assert.ok(m[`gpulab_worker_failures_total{worker="${broken.id}"}`] >= 3);
  } finally {
    await good?.stop();
    await broken.stop();
    await srv.stop();
  }
});

test('a run handed back with no other worker alive is tried once more, then fails uncharged: it never waits for nobody', T, async () => {
  const { uri, db } = newStore();
  const srv = await startClusterServer(uri, { args: ARGS });
  const broken = await startWorker(uri, { env: fakeGpu(20, { GPULAB_FAKE_GPU_FAIL: 'cuda_error' }) });
  try {
    await waitFor(async () => (await request(srv, '/api/health')).json.mode === 'cuda', { what: 'the worker seen' });
    const [{ jar, id }] = await submitMany(srv, 1, 'Solo');
    const run = await waitEnded(jar, srv, id, 30000);
    assert.equal(run.status, 'failed');
    assert.equal(run.error.code, 'cuda_error');
    assert.match(run.error.message, /not charged/);
    assert.equal(psql(`SELECT attempts FROM runs WHERE id = ${id}`, db), '1');
    assert.equal(Number(psql('SELECT sum(gpu_ms_used) FROM learners', db)), 0);
    assert.equal((await jar.request(srv, '/api/session')).json.gpu_seconds_used, 0);
  } finally {
    await broken.stop();
    await srv.stop();
  }
});

test('a 202 gives the run its place in the fair order, however fresh the server\'s view was', T, async () => {
  const { uri } = newStore();
  const srv = await startClusterServer(uri, { args: ARGS });
  const w = await startWorker(uri, { env: fakeGpu(4000) });
  try {
    await waitFor(async () => (await healthWorkers(srv)).length === 1, { what: 'the worker seen' });
    const ada = await joinWithJar(srv, 'Ada', srv.joinCode);
    const bo = await joinWithJar(srv, 'Bo', srv.joinCode);
    const a1 = await gpuRun(ada, srv);
    assert.equal(a1.status, 202, a1.text);
    await waitFor(async () => (await ada.request(srv, `/api/runs/${a1.json.run.id}`)).json.run.status === 'running',
      { what: 'Ada\'s first run on the GPU' });
    const a2 = (await gpuRun(ada, srv)).json.run;
    const a3 = (await gpuRun(ada, srv)).json.run;
    const b1 = (await gpuRun(bo, srv)).json.run;
    // Ada was served (her first run runs): Bo's first run goes before her second, her third last.
    assert.deepEqual([a2.position, a3.position, b1.position], [1, 2, 1]);
    assert.ok(b1.estimate_s > 0 && b1.estimate_s < a3.estimate_s + 5, JSON.stringify([b1, a3]));
    const now = async (jar, id) => (await jar.request(srv, `/api/runs/${id}`)).json.run.position;
    assert.deepEqual([await now(bo, b1.id), await now(ada, a2.id), await now(ada, a3.id)], [1, 2, 3]);
  } finally {
    await w.stop();
    await srv.stop();
  }
});

test('--workers none starts no GPU process; --workers local does', T, async () => {
  // (two classes: the second's worker would otherwise be the first's GPU)
  const none = await startClusterServer(newStore().uri, { env: fakeGpu(100) });
  const local = await startClusterServer(newStore().uri, { env: fakeGpu(100), workers: 'local' });
  try {
    // What would start one: the device view, the health check, a scrape.
    for (const path of ['/api/device', '/api/health', '/metrics']) assert.equal((await request(none, path)).status, 200);
    const view = (await request(none, '/api/device')).json;
    assert.equal(view.runtime.error_name, 'not_checked');
    assert.deepEqual(childPids(none.proc.pid), []);
    await waitFor(() => childPids(local.proc.pid).length === 1, { what: 'the local worker\'s GPU process' });
  } finally {
    await local.stop();
    await none.stop();
  }
});
