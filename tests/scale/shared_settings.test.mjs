// What several servers of a class share while they run: a limit changed by
// one (a restart with --update-class) is enforced by the others within
// seconds and logged there, and by a running GPU worker for the runs it
// claims after it (the deadline); and PostgreSQL restarted under running servers
// gives no store_unavailable once it is back (stale pooled connections are
// noticed, or a read is retried once on a fresh one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, request } from '../api/lib.mjs';
import { fakeGpu } from '../api/queue_lib.mjs';
import { missing, newStore, startClusterServer, startWorker, joinWithJar, waitFor, workersSeen, pgStop, pgStart, asInstructor } from './cluster_lib.mjs';

const T = { timeout: 120000, skip: missing() || false };

const simRun = (jar, target) =>
  jar.request(target, '/api/experiments/timing', { method: 'POST', body: { params: {}, backend: 'simulated', profile: 't4' } });

test('a limit changed on server 1 (--update-class) is enforced by server 2 within 5 s, and logged there', T, async () => {
  const { uri } = newStore();
  let a = await startClusterServer(uri, { args: ['--sim-runs-per-minute', '100'] });
  const b = await startClusterServer(uri);
  try {
    const jar = await joinWithJar(b, 'Ada', b.joinCode);
    await a.stop();
    const t0 = Date.now();
    a = await startClusterServer(uri, { args: ['--sim-runs-per-minute', '1', '--update-class'] });
    await waitFor(() => /class limit limits\.sim_runs_per_minute changed in the store from 100 to 1 .*enforced here now/.test(b.stderr()),
      { timeoutMs: 5000, what: 'server 2 taking up the new limit' });
    const took = Date.now() - t0;
    assert.ok(took < 5000, `taken up in ${took} ms`);
    const limits = (await request(b, '/api/instructor/class', asInstructor)).json.class.limits;
    assert.equal(limits.sim_runs_per_minute, 1);
    assert.equal((await simRun(jar, b)).status, 200);
    assertError(await simRun(jar, b), 429, 'rate_limited');
    assert.doesNotMatch(a.stderr(), /changed in the store/, 'the server that changed it does not log it as news');
  } finally {
    await a.stop();
    await b.stop();
  }
});

test('a running gpulab worker takes up a changed deadline for the runs it claims after it; the run on its GPU keeps its own', T, async () => {
  const { uri } = newStore();
  const a = await startClusterServer(uri, { args: ['--deadline', '60'] });
  const w = await startWorker(uri, { env: fakeGpu(6000) });
  let b;
  try {
    await workersSeen([a], 1);
    const jar = await joinWithJar(a, 'Ada', a.joinCode);
    const gpuRun = () => jar.request(a, '/api/experiments/timing', { method: 'POST', body: { params: {}, backend: 'cuda' } });
    const ended = (id) => waitFor(async () => {
      const r = (await jar.request(a, `/api/runs/${id}`)).json.run;
      return ['done', 'failed'].includes(r?.status) && r;
    }, { timeoutMs: 60000, what: `run ${id} ended` });
    const first = await gpuRun();
    assert.equal(first.status, 202, first.text);
    await waitFor(async () => (await jar.request(a, `/api/runs/${first.json.run.id}`)).json.run?.status === 'running',
      { timeoutMs: 30000, what: 'the first run on the GPU' });
    b = await startClusterServer(uri, { args: ['--deadline', '1', '--update-class'] });
    await waitFor(() => /class limit limits\.deadline_s changed in the store from 60 to 1 s/.test(w.stderr()),
      { timeoutMs: 15000, what: 'the worker taking up the new deadline' });
    // The run on the GPU when it changed keeps the deadline it started with (6 s of 60).
    assert.equal((await ended(first.json.run.id)).status, 'done');
    // A run claimed after it has the new one: the fake GPU's 6 s are past 1 s.
    const second = await gpuRun();
    assert.equal(second.status, 202, second.text);
    const r = await ended(second.json.run.id);
    assert.equal(r.status, 'failed');
    assert.equal(r.error?.code, 'deadline_exceeded', JSON.stringify(r));
  } finally {
    if (b) await b.stop();
    await w.stop();
    await a.stop();
  }
});

test('a server\'s own GPU workers (--workers local) take up a deadline another server changed', T, async () => {
  const { uri } = newStore();
  const a = await startClusterServer(uri, { env: fakeGpu(3000), workers: 'local', args: ['--deadline', '60'] });
  let b;
  try {
    await workersSeen([a], 1);
    b = await startClusterServer(uri, { args: ['--deadline', '1', '--update-class'] });
    await waitFor(() => /class limit limits\.deadline_s changed in the store from 60 to 1 .*enforced here now/.test(a.stderr()),
      { timeoutMs: 15000, what: 'server 1 taking up the new deadline' });
    const jar = await joinWithJar(a, 'Cy', a.joinCode);
    const q = await jar.request(a, '/api/experiments/timing', { method: 'POST', body: { params: {}, backend: 'cuda' } });
    assert.equal(q.status, 202, q.text);
    const r = await waitFor(async () => {
      const run = (await jar.request(a, `/api/runs/${q.json.run.id}`)).json.run;
      return ['done', 'failed'].includes(run?.status) && run;
    }, { timeoutMs: 60000, what: 'the run ended' });
    assert.equal(r.status, 'failed', 'the fake GPU\'s 3 s are past the new 1 s');
    assert.equal(r.error?.code, 'deadline_exceeded', JSON.stringify(r));
  } finally {
    if (b) await b.stop();
    await a.stop();
  }
});

test('PostgreSQL restarted under a busy server: no store_unavailable once it is back', T, async () => {
  const { uri } = newStore();
  const a = await startClusterServer(uri);
  let up = true;
  try {
    const jars = [];
    for (let i = 0; i < 4; i++) jars.push(await joinWithJar(a, `L${i}`, a.joinCode));
    // Fill the pool: every pooled connection is open when PostgreSQL goes.
    const burst = async () => Promise.all(jars.flatMap((j) => [j.request(a, '/api/session'), simRun(j, a)]));
    for (const r of await burst()) assert.equal(r.status, 200, r.text);
    pgStop();
    up = false;
    pgStart();
    up = true;
    const statuses = [];
    for (let round = 0; round < 3; round++) statuses.push(...(await burst()).map((r) => r.status));
    assert.deepEqual(statuses.filter((s) => s !== 200), [], `after the restart: ${statuses}`);
    // Asked while it was down (store_unavailable then), and again at once when it is back.
    pgStop();
    up = false;
    assertError(await jars[0].request(a, '/api/session'), 507, 'store_unavailable');
    pgStart();
    up = true;
    const again = [];
    for (let round = 0; round < 3; round++) again.push(...(await burst()).map((r) => r.status));
    assert.deepEqual(again.filter((s) => s !== 200), [], `after the second restart: ${again}`);
  } finally {
    if (!up) pgStart();
    await a.stop();
  }
});
