// The server under a bounded amount of stress: concurrent mixed requests,
// half-sent requests, a clean stop on SIGTERM/SIGINT, and the exit status
// of `gpulab serve` when its options or its port are wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { spawnSync } from 'node:child_process';
import { BIN, childEnv, withServer, startServer, makeWebRoot, request, deviceView, postRun, assertError, assertEnvelope, assertNoSanitizerFindings } from './lib.mjs';

const T = { timeout: 30000 };

test('50 concurrent requests, good and bad, are each answered correctly', T, () =>
  withServer({}, async (srv) => {
    const kinds = [
      async () => {
        const r = await request(srv, '/api/health');
        assert.equal(r.status, 200);
      },
      async () => {
        const r = await deviceView(srv);
        assert.equal(r.status, 200);
        assert.equal(typeof r.json.verdict.usable, 'boolean');
      },
      async () => {
        const r = await postRun(srv, 'device', { backend: 'simulated', profile: 't4' });
        assert.equal(r.status, 200, r.text.slice(0, 200));
        assertEnvelope(r.json, { experiment: 'device', backend: 'simulated', profile: 't4' });
      },
      async () => assertError(await postRun(srv, 'device', '{"params":'), 400, 'invalid_json'),
      async () => assertError(await postRun(srv, 'device', { params: { index: 99 } }), 400, 'invalid_param', 'index'),
      async () => assertError(await postRun(srv, 'nope', {}), 404, 'unknown_experiment'),
      async () => assertError(await request(srv, '/api/health', { method: 'DELETE' }), 405, 'method_not_allowed'),
      async () => {
        const r = await request(srv, '/app.js');
        assert.equal(r.status, 200);
        assert.match(r.text, /answer = 42/);
      },
      async () => assert.equal((await request(srv, '/missing.js')).status, 404),
      async () => assertError(await postRun(srv, 'device', '{}', { headers: { 'Content-Type': 'text/plain' } }), 415, 'unsupported_media_type'),
    ];
    const jobs = Array.from({ length: 50 }, (_, i) => kinds[i % kinds.length]());
    const results = await Promise.allSettled(jobs);
    const failed = results.map((r, i) => [r, i]).filter(([r]) => r.status === 'rejected');
    assert.deepEqual(failed.map(([r, i]) => `#${i}: ${r.reason?.message}`), []);
    assert.equal((await request(srv, '/api/health')).status, 200, 'still healthy afterwards');
  }));

test('half-sent requests do not block other requests', T, () =>
  withServer({}, async (srv) => {
    const slow = [
      'POST /api/experiments/device HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"par',
      'GET /index.html HTTP/1.1\r\nHost: x\r\nX-Slow: ',
      'GET /api/hea',
      'POST /api/experiments/device HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"params"',
    ].map((text) => {
      const s = net.connect(srv.port, '127.0.0.1');
      const st = { sock: s, released: null };
      s.on('error', () => {});
      // The server lets a stalled request go only after its read timeout:
      // an answer or a close from it says it did.
      s.on('data', () => (st.released ??= 'answered'));
      s.on('close', () => (st.released ??= 'closed'));
      st.sent = new Promise((r, j) => s.on('connect', () => s.write(text, r)).on('error', j));
      return st;
    });
    try {
      // Their bytes are with the server before the others connect: the
      // server accepts in arrival order, so they hold threads first.
      await Promise.all(slow.map((st) => st.sent));
      for (let i = 0; i < 5; i++) {
        assert.equal((await request(srv, '/api/health', { timeoutMs: 3000 })).status, 200);
        assert.equal((await postRun(srv, 'device', { backend: 'simulated' }, { timeoutMs: 3000 })).status, 200);
        assert.equal((await request(srv, '/', { timeoutMs: 3000 })).status, 200);
      }
      // Not blocked: all 15 were answered while the stalled ones still held
      // their connections (blocked ones would wait for those to be let go).
      assert.deepEqual(slow.map((st) => st.released), [null, null, null, null], '15 requests beside 4 stalled ones');
    } finally {
      for (const st of slow) st.sock.destroy();
    }
  }));

test('a client that disconnects mid-request does not hurt the server', T, () =>
  withServer({}, async (srv) => {
    for (let i = 0; i < 10; i++) {
      const s = net.connect(srv.port, '127.0.0.1');
      s.on('error', () => {});
      await new Promise((r) => { s.on('connect', r); s.on('error', r); s.on('close', r); });
      s.write('POST /api/experiments/device HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{"pa');
      s.destroy();
    }
    assert.equal((await request(srv, '/api/health')).status, 200);
  }));

test('the server stops on SIGTERM within 2 s with exit code 0', T, async () => {
  const web = makeWebRoot();
  try {
    const srv = await startServer({ root: web.root });
    assert.equal((await request(srv, '/api/health')).status, 200);
    const r = await srv.stop({ signal: 'SIGTERM', poke: false });
    assert.equal(r.code, 0, `exit code (signal ${r.signal})`);
    assert.ok(r.ms < 2000, `stopped after ${r.ms.toFixed(0)} ms`);
    assert.match(srv.stderr(), /gpulab: stopping/);
  } finally {
    web.cleanup();
  }
});

test('the server stops on SIGINT with exit code 0, its worker too', T, async () => {
  const web = makeWebRoot();
  try {
    const srv = await startServer({ root: web.root, env: { GPULAB_TEST_HOOKS: '1' } });
    // a CUDA error the worker survives: it starts the worker and leaves it running
    assertError(await postRun(srv, '_call_failed', {}), 500, 'cuda_call_failed');
    const before = spawnSync('pgrep', ['-P', String(srv.proc.pid)], { encoding: 'utf8' });
    assert.notEqual(before.stdout.trim(), '', 'a worker runs before the stop');
    const r = await srv.stop({ signal: 'SIGINT' });
    assert.equal(r.code, 0, `exit code (signal ${r.signal})`);
    const ps = spawnSync('pgrep', ['-P', String(srv.proc.pid)], { encoding: 'utf8' });
    assert.equal(ps.stdout.trim(), '', 'no worker left behind');
  } finally {
    web.cleanup();
  }
});

function serve(args, env = {}) {
  const r = spawnSync(BIN, ['serve', ...args], { env: childEnv(env), encoding: 'utf8', timeout: 10000 });
  assertNoSanitizerFindings(r.stderr, `serve ${args.join(' ')}`);
  return r;
}

test('serve refuses a bad port or an unknown option with exit 2 and a message', T, () => {
  const web = makeWebRoot();
  try {
    for (const args of [['--port', '70000'], ['--port', 'abc'], ['--port', '-1'], ['--port'], ['--bogus'],
      ['--deadline', '0'], ['--host', '']]) {
      const r = serve(['--root', web.root, ...args]);
      assert.equal(r.status, 2, `serve ${args.join(' ')}: exit ${r.status}, stderr ${r.stderr}`);
      assert.match(r.stderr, /gpulab: .+/, 'says what was wrong');
      assert.equal(r.stdout, '', 'never claims to listen');
    }
  } finally {
    web.cleanup();
  }
});

test('serve on a port already in use exits 1 with a message', T, async () => {
  const web = makeWebRoot();
  const blocker = net.createServer();
  await new Promise((r) => blocker.listen(0, '127.0.0.1', r));
  try {
    const r = serve(['--root', web.root, '--host', '127.0.0.1', '--port', String(blocker.address().port)]);
    assert.equal(r.status, 1, `exit ${r.status}: ${r.stderr}`);
    assert.match(r.stderr, /cannot listen/);
  } finally {
    blocker.close();
    web.cleanup();
  }
});

test('serve without an index.html in the web root exits 1 and says how to fix it', T, () => {
  const web = makeWebRoot();
  try {
    const r = serve(['--root', web.root + '/sub', '--port', '0']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /index\.html/);
  } finally {
    web.cleanup();
  }
});
