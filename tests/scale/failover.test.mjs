// Losing a piece of the cluster: a server killed mid-run (the learner goes
// on through HAProxy on the other; nothing acknowledged is lost), GPU
// workers killed or stopped mid-run (the run is handed back once, then
// fails as worker_crashed; a replacement takes the rest), and PostgreSQL
// stopped and started again (store_unavailable meanwhile, then everything
// recovers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { assertError, request, waitForStderr } from '../api/lib.mjs';
import { fakeGpu } from '../api/queue_lib.mjs';
import {
  missing, newStore, startClusterServer, startWorker, startHaproxy, joinWithJar, waitFor, workersSeen, psql, pgStop, pgStart,
} from './cluster_lib.mjs';

const T = { timeout: 120000, skip: missing() || false };

const gpuRun = (jar, target) =>
  jar.request(target, '/api/experiments/timing', { method: 'POST', body: { params: {}, backend: 'cuda' } });

// Polls a run through target until fn(run) holds; a failed request (a server going away) is retried.
async function runUntil(jar, target, id, fn, what, timeoutMs = 30000) {
  return waitFor(async () => {
    try {
      const r = await jar.request(target, `/api/runs/${id}`, { timeoutMs: 3000 });
      return r.status === 200 && fn(r.json.run) && r.json.run;
    } catch {
      return false;
    }
  }, { timeoutMs, what: `run ${id} ${what}` });
}
const ended = (run) => ['done', 'failed', 'cancelled'].includes(run.status);

// GET through HAProxy from another loopback address (as another client machine would).
function getFrom(localAddress, port, path) {
  return new Promise((res, rej) => {
    const req = http.get({ host: '127.0.0.1', port, path, localAddress }, (r) => {
      r.resume();
      r.on('end', () => res(r.statusCode));
    });
    req.on('error', rej);
  });
}

test('a server killed mid-run: the learner goes on through HAProxy on the other, nothing acknowledged is lost', T, async () => {
  const { uri } = newStore();
  const env = fakeGpu(1200);
  const args = ['--trusted-proxy', '127.0.0.1', '--runs-per-minute', '60'];
  const servers = [await startClusterServer(uri, { env, args }), await startClusterServer(uri, { env, args })];
  const w = await startWorker(uri, { env });
  const lb = await startHaproxy(servers);
  try {
    await workersSeen(servers, 1);
    const jar = await joinWithJar(lb, 'Ada', servers[0].joinCode);
    const pinned = jar.cookies.get('GPULAB_SERVER');
    assert.match(pinned ?? '', /^gpulab[12]$/, 'HAProxy pinned the learner (an optimisation only)');
    const ids = [];
    for (let i = 0; i < 3; i++) {
      const r = await gpuRun(jar, lb);
      assert.equal(r.status, 202, r.text);
      ids.push(r.json.run.id);
    }
    await runUntil(jar, lb, ids[0], (r) => r.status === 'running', 'running');
    const victim = servers[Number(pinned.slice(-1)) - 1], other = servers.find((s) => s !== victim);
    victim.proc.kill('SIGKILL');
    await victim.exited;
    // Every acknowledged run ends done, read through HAProxy (now the other server).
    for (const id of ids) assert.equal((await runUntil(jar, lb, id, ended, 'ending')).status, 'done');
    assert.notEqual(jar.cookies.get('GPULAB_SERVER'), pinned, 'redispatched and re-pinned to the live server');
    const more = await gpuRun(jar, lb);
    assert.equal(more.status, 202, more.text);
    assert.equal((await runUntil(jar, lb, more.json.run.id, ended, 'ending')).status, 'done');
    // The live server counts the client behind HAProxy (X-Forwarded-For from a trusted proxy).
    assert.equal(await getFrom('127.0.0.2', lb.port, '/api/health'), 200);
    await waitForStderr(other, (t) => /remote=127\.0\.0\.2 method=GET path=\/api\/health/.test(t), { what: 'the client address in the log' });
  } finally {
    await lb.stop();
    await w.stop();
    for (const s of servers) await s.stop();
  }
});

test('workers lost mid-run: handed back once, then worker_crashed; a replacement runs the rest; SIGTERM hands back', T, async () => {
  const { uri, db } = newStore();
  const env = fakeGpu(2500);
  const a = await startClusterServer(uri, { env, args: ['--runs-per-minute', '60'] });
  const started = [];
  const worker = async (args = []) => {
    const w = await startWorker(uri, { env, args });
    started.push(w);
    return w;
  };
  const runRow = (id) => psql(`SELECT status || ' ' || attempts || ' ' || coalesce(worker_id, 0) FROM runs WHERE id = ${id}`, db);
  try {
    const w1 = await worker();
    await workersSeen([a], 1);
    const jar = await joinWithJar(a, 'Ada', a.joinCode);
    const queued = async () => {
      const r = await gpuRun(jar, a);
      assert.equal(r.status, 202, r.text);
      return r.json.run.id;
    };
    const r1 = await queued();
    await waitFor(() => runRow(r1) === `running 0 ${w1.id}`, { what: 'w1 running r1' });
    w1.proc.kill('SIGKILL');
    await waitFor(() => runRow(r1).startsWith('queued 1 '), { what: 'r1 handed back once' });
    const w2 = await worker();
    await waitFor(() => runRow(r1) === `running 1 ${w2.id}`, { what: 'w2 running r1' });
    w2.proc.kill('SIGKILL');
    const failed = await runUntil(jar, a, r1, ended, 'failing');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error_code, 'worker_crashed');
    assert.equal(failed.error.code, 'worker_crashed');
    assert.match(failed.error.message, /handed back once; run it again/);
    // A replacement takes the rest.
    const w3 = await worker(['--grace', '0']);
    await workersSeen([a], 1, { ids: [w3.id] });
    const r2 = await queued(), r3 = await queued();
    for (const id of [r2, r3]) assert.equal((await runUntil(jar, a, id, ended, 'ending')).status, 'done');
    // SIGTERM mid-run: the worker hands its run back and exits 0.
    const r4 = await queued();
    await waitFor(() => runRow(r4) === `running 0 ${w3.id}`, { what: 'w3 running r4' });
    const exit = await w3.stop({ signal: 'SIGTERM' });
    assert.equal(exit.code, 0, w3.stderr());
    assert.match(w3.stderr(), new RegExp(`run ${r4} handed back to the queue`));
    assert.equal(runRow(r4), 'queued 1 0');
    const w4 = await worker();
    const end4 = await runUntil(jar, a, r4, ended, 'ending');
    assert.equal(end4.status, 'done');
    assert.equal(psql(`SELECT worker_id FROM runs WHERE id = ${r4}`, db), String(w4.id));
    // The server's log says what happened to each lost worker's run.
    await waitForStderr(a, (t) => /a GPU worker stopped answering: 1 run\(s\) handed back/.test(t));
    assert.equal(psql(`SELECT count(*) FROM workers WHERE gone_at IS NULL`, db), '1', 'only w4 is alive');
  } finally {
    for (const w of started) await w.stop();
    await a.stop();
  }
});

test('PostgreSQL stopped and started again: store_unavailable meanwhile, then servers and workers recover', T, async () => {
  const { uri } = newStore();
  const env = fakeGpu(300);
  const a = await startClusterServer(uri, { env });
  const w = await startWorker(uri, { env });
  let up = true;
  try {
    await workersSeen([a], 1);
    const jar = await joinWithJar(a, 'Ada', a.joinCode);
    const before = await gpuRun(jar, a);
    assert.equal(before.status, 202);
    await runUntil(jar, a, before.json.run.id, ended, 'ending');
    pgStop();
    up = false;
    const e = assertError(await jar.request(a, '/api/session'), 507, 'store_unavailable');
    assert.match(e.message, /class database .* cannot be (used|reached)|cannot reach the class database/);
    assertError(await gpuRun(jar, a), 507, 'store_unavailable');
    const health = await waitFor(async () => {
      const h = await request(a, '/api/health');
      return h.json.store === 'unavailable' && h;
    }, { what: 'health saying the store is unavailable' });
    assert.equal(health.status, 200, 'the server itself stays up for the load balancer');
    pgStart();
    up = true;
    await waitFor(async () => (await jar.request(a, '/api/session')).status === 200, { what: 'the session back' });
    await workersSeen([a], 1, { timeoutMs: 20000 });
    const after = await gpuRun(jar, a);
    assert.equal(after.status, 202, after.text);
    assert.equal((await runUntil(jar, a, after.json.run.id, ended, 'ending')).status, 'done');
    assert.equal((await request(a, '/api/health')).json.store, 'ok');
  } finally {
    if (!up) pgStart();
    await w.stop();
    await a.stop();
  }
});
