// POST /api/explain: a pasted error as text/plain, explained with the same
// envelope `gpulab explain --json` prints; bounded (256 KiB), refused with
// stable codes (explain_empty, explain_not_text, explain_too_large), and
// never stored: the server's log line names the path, never the text.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';

import { assertError, assertSecurityHeaders, cli, request, waitForStderr, withServer } from './lib.mjs';

const OOM = readFileSync('tests/explain/own/003-oom-old-fragmentation.txt', 'utf8');
const post = (srv, body, headers = { 'Content-Type': 'text/plain; charset=utf-8' }) =>
  request(srv, '/api/explain', { method: 'POST', body, headers });

test('explains_a_pasted_oom_with_its_numbers_bar_and_lesson', async () => {
  await withServer({}, async (srv) => {
    const res = await post(srv, OOM);
    assert.equal(res.status, 200, res.text);
    assertSecurityHeaders(res.headers);
    assert.equal(res.json.explain, 1);
    const [it] = res.json.items;
    assert.equal(it.kind, 'oom');
    assert.equal(it.diagnosis.id, 'oom_fragmentation');
    assert.deepEqual(it.facts.tried, { printed: '20.00 MiB', bytes: 20971520 });
    assert.equal(it.lesson.href, '#lesson/01-cuda-intuition/memory');
    assert.equal(it.experiment.name, 'memory');
    assert.ok(it.bar.parts.some((p) => p.id === 'cache'), 'the bar shows the allocator cache');
    assert.ok(it.steps.length >= 2);
  });
});

test('cli_and_http_carry_the_same_envelope', async () => {
  await withServer({}, async (srv) => {
    for (const f of ['003-oom-old-fragmentation', '013-collect_env-then-assert', '012-nvidia-smi', '016-unknown']) {
      const path = `tests/explain/own/${f}.txt`;
      const http = await post(srv, readFileSync(path, 'utf8'));
      const c = cli(['explain', path, '--json']);
      assert.equal(c.code, 0, c.stderr);
      assert.deepEqual(http.json, c.json, f);
    }
    const c = cli(['explain', 'tests/explain/own/003-oom-old-fragmentation.txt']);
    assert.match(c.stdout, /First things to try/);
  });
});

test('refuses_empty_binary_and_too_large_texts_with_their_codes', async () => {
  await withServer({}, async (srv) => {
    assertError(await post(srv, '  \n  '), 400, 'explain_empty');
    assertError(await post(srv, new Uint8Array([0x43, 0x55, 0x00, 0xff, 0xfe, 0x01, 0x80])), 400, 'explain_not_text');
    assertError(await post(srv, new Uint8Array([0xc3, 0x28, 0xa0, 0xa1])), 400, 'explain_not_text');
    assertError(await post(srv, 'x'.repeat(256 * 1024 + 1)), 413, 'explain_too_large');
    assertError(await post(srv, '{"text":"hi"}', { 'Content-Type': 'application/json' }), 415, 'unsupported_media_type');
    assertError(await request(srv, '/api/explain'), 405, 'method_not_allowed');
    // exactly the limit is read
    const full = (OOM + '\n').repeat(Math.floor((256 * 1024) / (OOM.length + 1)));
    const ok = await post(srv, full);
    assert.equal(ok.status, 200);
    assert.equal(ok.json.items[0].kind, 'oom');
  });
});

test('the_pasted_text_is_not_logged', async () => {
  await withServer({}, async (srv) => {
    const secret = 'Tried to allocate 20.00 MiB secret-token-7f3a';
    await post(srv, `CUDA out of memory. ${secret}`);
    await waitForStderr(srv, (t) => t.includes('/api/explain'), { what: 'the request log line' });
    assert.ok(!srv.stderr().includes('secret-token-7f3a'));
  });
});
