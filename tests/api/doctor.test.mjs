// POST /api/doctor: a profiler trace as the body (JSON, or gzip for a
// .json.gz), read with the same envelope `gpulab doctor --json` prints;
// bounded (32 MiB), refused with stable codes, never stored: the server's
// log names the path, never the trace.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import test from 'node:test';

import { assertError, cli, rawRequest, request, waitForStderr, withServer } from './lib.mjs';

const FIX = 'tests/doctor/fixtures';
const post = (srv, body, type = 'application/json') =>
  request(srv, '/api/doctor', { method: 'POST', body, headers: { 'Content-Type': type }, timeoutMs: 30000 });

test('doctor_over_http_finds_the_idle_step_like_the_cli', async () => {
  await withServer({}, async (srv) => {
    for (const f of ['idle_item.json', 'launch_bound.json', 'pageable_copy.json', 'cpu_train.json']) {
      const body = readFileSync(`${FIX}/${f}`);
      const res = await post(srv, new Uint8Array(body));
      assert.equal(res.status, 200, res.text);
      const c = cli(['doctor', `${FIX}/${f}`, '--json']);
      assert.equal(c.code, 0, c.stderr);
      assert.deepEqual(res.json, c.json, f);
    }
    const res = await post(srv, new Uint8Array(readFileSync(`${FIX}/idle_item.json`)));
    const idle = res.json.findings.find((x) => x.id === 'gpu_idle');
    assert.equal(idle.facts.step, 'ProfilerStep#12');
    assert.equal(idle.facts.idle_pct, 70);
  });
});

test('doctor_over_http_reads_gzip_and_refuses_bad_bodies_by_code', async () => {
  await withServer({}, async (srv) => {
    const gz = await post(srv, new Uint8Array(readFileSync(`${FIX}/cpu_train.json.gz`)), 'application/gzip');
    assert.equal(gz.status, 200, gz.text);
    assert.equal(gz.json.findings[0].id, 'cpu_only');
    assertError(await post(srv, '{"traceEvents": [{"ph": "X", "ts": 1'), 400, 'doctor_truncated');
    assertError(await post(srv, '{"hello": 1}'), 400, 'doctor_not_trace');
    assertError(await post(srv, '{"traceEvents":[{"ph":"X","ts":1,"dur":-1}]}'), 400, 'doctor_bad_number');
    const bomb = Buffer.alloc(100 << 20, 0x20);
    bomb[0] = 0x5b;
    assertError(await post(srv, new Uint8Array(gzipSync(bomb, { level: 9 })), 'application/gzip'), 413, 'doctor_gzip_bomb');
    assertError(await post(srv, 'trace', 'text/plain'), 415, 'unsupported_media_type');
    // refused on the announced length, before the body is read
    const big = await rawRequest(srv.port, 'POST /api/doctor HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${32 * 1024 * 1024 + 1}\r\n\r\n[`);
    assertError(big, 413, 'body_too_large');
    assertError(await request(srv, '/api/doctor'), 405, 'method_not_allowed');
    await waitForStderr(srv, (t) => t.includes('/api/doctor'), { what: 'the request log line' });
    assert.ok(!srv.stderr().includes('ProfilerStep'), 'the trace is never logged');
  });
});
