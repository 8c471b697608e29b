// What an operator watches on a cluster: each finished GPU run is counted
// once, by one server (gpulab_runs_total, gpulab_run_seconds: the first to
// find it ended, a poll or its sweep), whichever server queued it, answered
// it or ran it; every server shows the course's totals and queue
// waits from the store; one request id runs through the request log, the
// answer's X-Request-Id and the worker's log line for the run; HAProxy logs
// without /dev/log and its health checks do not fill the servers' logs; the
// alert rules in deploy/ pass promtool (where it is installed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { request } from '../api/lib.mjs';
import { fakeGpu, parseMetrics } from '../api/queue_lib.mjs';
import { missing, newStore, startClusterServer, startWorker, startHaproxy, joinWithJar, waitFor, workersSeen } from './cluster_lib.mjs';

const T = { timeout: 120000, skip: missing() || false };
const metrics = async (srv) => parseMetrics((await request(srv, '/metrics')).text);

// The run counters summed over the servers, as Prometheus's sum() does.
const summed = async (servers) => {
  const ms = await Promise.all(servers.map(metrics));
  const sum = (k) => ms.reduce((t, m) => t + (m[k] ?? 0), 0);
  return { done: sum('gpulab_runs_total{status="done"}'), failed: sum('gpulab_runs_total{status="failed"}'),
    count: sum('gpulab_run_seconds_count'), seconds: sum('gpulab_run_seconds_sum') };
};

test('cluster_runs_are_counted_once_across_the_servers_and_the_store_gives_course_totals', T, async () => {
  const { uri } = newStore();
  const a = await startClusterServer(uri);
  const b = await startClusterServer(uri);
  const w = await startWorker(uri, { env: fakeGpu(150) });
  const lb = await startHaproxy([a, b]);
  try {
    await workersSeen([a, b], 1);
    const jar = await joinWithJar(lb, 'Ada', a.joinCode);
    const ids = [];
    for (let i = 0; i < 3; i++) {
      const rid = `ops-test-${process.pid}-${i}`;
      const q = await jar.request(lb, '/api/experiments/timing',
        { method: 'POST', body: { params: {}, backend: 'cuda' }, headers: { 'X-Request-Id': rid } });
      assert.equal(q.status, 202, q.text);
      assert.equal(q.headers.get('x-request-id'), rid, 'a sane incoming id is echoed');
      ids.push([q.json.run.id, rid]);
      await waitFor(async () => ['done', 'failed'].includes((await jar.request(lb, `/api/runs/${q.json.run.id}`)).json.run.status),
        { timeoutMs: 30000, what: `run ${q.json.run.id} finished` });
    }
    // The learner's cookie names the server HAProxy pinned it to: that one served the runs.
    const pinned = jar.cookies.get('GPULAB_SERVER');
    assert.ok(pinned === 'gpulab1' || pinned === 'gpulab2', `pinned to ${pinned}`);
    const served = pinned === 'gpulab1' ? a : b;
    // The poll that found each run ended counted it (or a sweep did first): 3 in all, once each.
    const m = await summed([a, b]);
    assert.equal(m.done, 3, 'the 3 runs counted once across the servers');
    assert.equal(m.count, 3);
    assert.ok(m.seconds >= 3 * 0.1, `run time summed: ${m.seconds}`);
    // Polling again, here or there, and the servers' sweeps (every second) count none twice.
    await jar.request(lb, `/api/runs/${ids[0][0]}`);
    await jar.request(a, `/api/runs/${ids[1][0]}`);
    await jar.request(b, `/api/runs/${ids[2][0]}`);
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 1100)); // each server's sweep runs between two reads
      assert.equal((await summed([a, b])).done, 3, 'still once each');
    }
    // Course totals and queue waits come from the store: the same on every server (cached ≤ 5 s).
    for (const s of [a, b]) {
      const c = await waitFor(async () => {
        const x = await metrics(s);
        return x['gpulab_course_runs{state="done"}'] === 3 && x;
      }, { timeoutMs: 15000, what: 'course totals from the store' });
      assert.equal(c.gpulab_queue_wait_seconds_count, 3);
      assert.equal(c['gpulab_queue_wait_seconds_bucket{le="+Inf"}'], 3);
      assert.ok(c['gpulab_queue_wait_seconds_bucket{le="600"}'] === 3);
      assert.equal(c['gpulab_course_runs{state="queued"}'], 0);
    }
    // One id from the request log to the worker's log line for that run.
    for (const [runId, rid] of ids) {
      assert.match(served.stderr(), new RegExp(`id=${rid} remote=\\S+ method=POST path=/api/experiments/timing status=202`));
      await waitFor(() => w.stderr().includes(`run ${runId} request=${rid} experiment=timing status=done`),
        { what: `the worker's line for run ${runId}` });
    }
    // HAProxy logs to its standard output (no syslog socket needed) ...
    await waitFor(() => lb.stdout().includes('/api/experiments/timing'), { what: 'HAProxy logging a request' });
    // ... and its checks (every 200 ms here) are counted by the servers, not logged.
    await waitFor(async () => (await metrics(a))['gpulab_requests_total{code="200"}'] > 10, { what: 'health checks counted' });
    for (const s of [a, b]) assert.doesNotMatch(s.stderr(), /method=HEAD path=\/api\/health status=200/);
  } finally {
    await lb.stop();
    await w.stop();
    await a.stop();
    await b.stop();
  }
});

// A run queued on one server whose end is asked only of the other, and one
// whose end no one asks: each is counted once, by one of the servers.
test('a_run_queued_on_one_server_and_polled_on_another_is_counted_once', T, async () => {
  const { uri } = newStore();
  const a = await startClusterServer(uri);
  const b = await startClusterServer(uri);
  const w = await startWorker(uri, { env: fakeGpu(100) });
  try {
    await workersSeen([a, b], 1);
    const jar = await joinWithJar(a, 'Grace', a.joinCode);
    const q = await jar.request(a, '/api/experiments/timing', { method: 'POST', body: { params: {}, backend: 'cuda' } });
    assert.equal(q.status, 202, q.text);
    await waitFor(async () => (await jar.request(b, `/api/runs/${q.json.run.id}`)).json.run?.status === 'done',
      { timeoutMs: 30000, what: `run ${q.json.run.id} done, asked of the other server` });
    await waitFor(async () => (await summed([a, b])).done === 1, { timeoutMs: 15000, what: 'the run counted' });
    const never = await jar.request(a, '/api/experiments/timing', { method: 'POST', body: { params: {}, backend: 'cuda' } });
    assert.equal(never.status, 202, never.text);
    await waitFor(async () => (await summed([a, b])).done === 2, { timeoutMs: 30000, what: 'the run no one polled counted' });
    await jar.request(b, `/api/runs/${never.json.run.id}`);
    await jar.request(a, `/api/runs/${never.json.run.id}`);
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 1100)); // each server's sweep runs between two reads
      const m = await summed([a, b]);
      assert.equal(m.done, 2, 'each counted once');
      assert.equal(m.count, 2);
    }
  } finally {
    await w.stop();
    await a.stop();
    await b.stop();
  }
});

test('request_ids_are_made_when_missing_and_replaced_when_not_sane', T, async () => {
  const { uri } = newStore();
  const a = await startClusterServer(uri);
  try {
    const r = await request(a, '/api/health');
    const made = r.headers.get('x-request-id');
    assert.match(made, /^[0-9a-f]{16}$/);
    assert.notEqual((await request(a, '/api/health')).headers.get('x-request-id'), made, 'one per request');
    for (const bad of ['has space', 'x'.repeat(65), 'semi;colon']) {
      const q = await request(a, '/api/health', { headers: { 'X-Request-Id': bad } });
      assert.match(q.headers.get('x-request-id'), /^[0-9a-f]{16}$/, `"${bad.slice(0, 20)}" is replaced`);
    }
    const e = await request(a, '/api/no-such-thing', { headers: { 'X-Request-Id': 'abc.DEF_1:2-3' } });
    assert.equal(e.headers.get('x-request-id'), 'abc.DEF_1:2-3', 'errors carry it too');
    await waitFor(() => a.stderr().includes(`id=${made} `), { what: 'the made id in the log' });
  } finally {
    await a.stop();
  }
});

const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' }).status === 0;

test('deploy/gpulab-alerts.yml passes promtool check rules and its unit tests', { ...T, skip: T.skip || (!promtool && 'promtool not installed (make deps installs prometheus)') }, () => {
  const check = spawnSync('promtool', ['check', 'rules', 'deploy/gpulab-alerts.yml'], { encoding: 'utf8', timeout: 30000 });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  const unit = spawnSync('promtool', ['test', 'rules', 'gpulab-alerts.test.yml'], { cwd: resolve('deploy'), encoding: 'utf8', timeout: 30000 });
  assert.equal(unit.status, 0, unit.stdout + unit.stderr);
});

// The rules use metric names a server exports; the two helper families that
// come with per-worker metrics are named in the file's header.
test('the alert rules name metrics the servers export', T, async () => {
  const rules = readFileSync('deploy/gpulab-alerts.yml', 'utf8');
  const used = new Set([...rules.matchAll(/\b(gpulab_[a-z_]+?)(_bucket|_count|_sum)?\b/g)].map((m) => m[1]));
  const { uri } = newStore();
  const a = await startClusterServer(uri);
  const w = await startWorker(uri, { env: fakeGpu(50) });
  try {
    await workersSeen([a], 1);
    const text = await waitFor(async () => {
      const t = (await request(a, '/metrics')).text;
      return t.includes('gpulab_queue_wait_seconds') && t;
    }, { what: 'the course families' });
    const exported = new Set([...text.matchAll(/^# TYPE (gpulab_\w+)/gm)].map((m) => m[1]));
    const perWorker = ['gpulab_workers_usable', 'gpulab_worker_failures_total'];
    for (const name of used) {
      if (perWorker.includes(name)) assert.ok(rules.includes(name), name);
      else assert.ok(exported.has(name), `${name} is exported by /metrics`);
    }
  } finally {
    await w.stop();
    await a.stop();
  }
});
