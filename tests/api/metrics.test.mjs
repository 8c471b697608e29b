// Operations: GET /metrics in Prometheus text format (requests by code,
// queue length, run latency histogram, worker restarts, GPU memory,
// sessions), and the one-line key=value request log that names a session
// by id and never carries a token or a query string.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withServer, request, assertError, waitForStderr } from './lib.mjs';
import { withClass, joinAs } from './class_lib.mjs';
import { fakeGpu, submitQueued, waitRun, parseMetrics } from './queue_lib.mjs';

const T = { timeout: 30000 };

test('GET /metrics is Prometheus text and counts requests by status code', T, () =>
  withServer({}, async (srv) => {
    await request(srv, '/api/health');
    await request(srv, '/api/nope');
    const r = await request(srv, '/metrics');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    for (const line of r.text.trimEnd().split('\n'))
      assert.match(line, /^(# (HELP|TYPE) gpulab_\w+ .+|gpulab_\w+(\{[a-z]+="[^"]*"\})? -?[0-9.e+]+)$/, line);
    const m = parseMetrics(r.text);
    assert.ok(m['gpulab_requests_total{code="200"}'] >= 1);
    assert.equal(m['gpulab_requests_total{code="404"}'], 1);
    assert.equal(m.gpulab_queue_length, 0);
    assert.equal(m.gpulab_worker_restarts_total, 0);
    assert.ok('gpulab_run_seconds_count' in m);
    assert.ok(!('gpulab_sessions_active' in m), 'no sessions without a class');
    assertError(await request(srv, '/metrics', { method: 'POST', body: {} }), 405, 'method_not_allowed');
  }));

test('in class mode /metrics shows the queue, run latency, sessions and GPU memory', T, () =>
  withClass({ env: fakeGpu(400), args: ['--runs-per-minute', '60'] }, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    await joinAs(srv, 'Bo');
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await submitQueued(srv, a.cookie)).id);
    const busy = parseMetrics((await request(srv, '/metrics')).text);
    assert.ok(busy.gpulab_queue_length >= 1, `queue length ${busy.gpulab_queue_length}`);
    assert.equal(busy.gpulab_sessions_active, 2);
    for (const id of ids) await waitRun(srv, a.cookie, id);
    const m = parseMetrics((await request(srv, '/metrics')).text);
    assert.equal(m.gpulab_queue_length, 0);
    assert.equal(m.gpulab_run_seconds_count, 3);
    assert.equal(m['gpulab_runs_total{status="done"}'], 3);
    assert.ok(m.gpulab_run_seconds_sum >= 1.1 && m.gpulab_run_seconds_sum < 5, `sum ${m.gpulab_run_seconds_sum}`);
    assert.equal(m['gpulab_run_seconds_bucket{le="0.25"}'], 0);
    assert.equal(m['gpulab_run_seconds_bucket{le="+Inf"}'], 3);
    assert.ok(m['gpulab_gpu_memory_total_bytes{gpu="0"}'] > 1e9, 'the (fake) GPU\'s memory');
    assert.ok(m['gpulab_gpu_memory_used_bytes{gpu="0"}'] >= 0);
    assert.ok(m['gpulab_requests_total{code="202"}'] >= 3);
  }));

test('the request log: one key=value line per request, session id but no token or query', T, () =>
  withClass({ env: fakeGpu(50) }, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    const run = await submitQueued(srv, a.cookie);
    await waitRun(srv, a.cookie, run.id);
    await request(srv, '/api/health?secret=query-text-42');
    await request(srv, '/api/nope%0Aforged=1');
    await waitForStderr(srv, (t) => /path=\/api\/nope\S* status=404/.test(t), { what: 'log line of the last request' });
    const log = srv.stderr();
    const lines = log.split('\n').filter((l) => l.startsWith('time='));
    assert.ok(lines.length >= 4, log.slice(-2000));
    for (const l of lines)
      assert.match(l, /^time=\S+Z id=[0-9a-f]{16} remote=\S+ method=[A-Z]+ path=\/\S* status=\d{3} ms=[0-9.]+ session=(\d+|-)$/, l);
    const mine = lines.find((l) => l.includes(`path=/api/runs/${run.id} `));
    assert.match(mine, / session=\d+$/, 'a learner\'s request names the session id');
    assert.ok(lines.some((l) => l.includes('path=/api/health ') && l.endsWith('session=-')));
    assert.ok(!log.includes('query-text-42'), 'no query string in the log');
    assert.ok(!log.includes(a.token), 'no session token in the log');
    assert.ok(!log.includes(srv.instructorToken), 'no instructor token in the log');
    assert.ok(lines.some((l) => l.includes('path=/api/nope%0Aforged=1 ')), 'a newline in the path is escaped');
  }));
