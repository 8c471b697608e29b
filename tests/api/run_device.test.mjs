// POST /api/experiments/device: the happy paths (auto, simulated with each
// profile, cuda), and every way a request body can be wrong: types, bounds,
// JSON syntax, media type, size, and framing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withServer, request, deviceView, postRun, rawRequest, assertError, assertEnvelope, assertSecurityHeaders } from './lib.mjs';

const T = { timeout: 20000 };

async function deviceSpec(srv) {
  return (await request(srv, '/api/experiments/device')).json;
}

test('device runs with an empty JSON object', T, () =>
  withServer({}, async (srv) => {
    const r = await postRun(srv, 'device', {});
    assert.equal(r.status, 200, r.text);
    assertSecurityHeaders(r.headers);
    assertEnvelope(r.json, { experiment: 'device', spec: await deviceSpec(srv) });
    assert.deepEqual(r.json.params, { index: 0 }, 'defaults are stated');
  }));

test('device runs with an empty body', T, () =>
  withServer({}, async (srv) => {
    const r = await request(srv, '/api/experiments/device', { method: 'POST' });
    assert.equal(r.status, 200, r.text);
    assertEnvelope(r.json, { experiment: 'device' });
  }));

test('device runs with null params and null backend/profile (all defaults)', T, () =>
  withServer({}, async (srv) => {
    const r = await postRun(srv, 'device', { params: null, backend: null, profile: null });
    assert.equal(r.status, 200, r.text);
    assertEnvelope(r.json, { experiment: 'device' });
  }));

test('device simulated with each profile is labelled simulated with that profile', T, () =>
  withServer({}, async (srv) => {
    const profiles = (await request(srv, '/api/profiles')).json.profiles;
    const spec = await deviceSpec(srv);
    for (const p of profiles) {
      const r = await postRun(srv, 'device', { backend: 'simulated', profile: p.name });
      if (p.platform !== 'cuda') { // NVIDIA's two views do not exist on a Mac or under ROCm: it says so
        assertError(r, 422, 'not_applicable', 'profile');
        assert.ok(r.json.error.message.includes(p.device_name), r.json.error.message);
        continue;
      }
      assert.equal(r.status, 200, `${p.name}: ${r.text}`);
      assertEnvelope(r.json, { experiment: 'device', backend: 'simulated', profile: p.name, spec });
      assert.equal(r.json.device.name, p.device_name, `${p.name} device name`);
      assert.equal(r.json.metrics.memory_total_bytes, p.memory_bytes, `${p.name} memory`);
    }
  }));

test('device simulated without a profile uses the default profile', T, () =>
  withServer({}, async (srv) => {
    const def = (await request(srv, '/api/profiles')).json.default;
    const r = await postRun(srv, 'device', { backend: 'simulated' });
    assert.equal(r.status, 200, r.text);
    assertEnvelope(r.json, { backend: 'simulated', profile: def });
  }));

test('device with backend cuda describes this machine whatever it finds', T, () =>
  withServer({}, async (srv) => {
    // The device check is the one experiment whose GPU side (asking the
    // driver and the runtime) runs without a GPU: its lesson is the verdict.
    const dev = (await deviceView(srv)).json;
    const r = await postRun(srv, 'device', { backend: 'cuda' });
    assert.equal(r.status, 200, r.text);
    assertEnvelope(r.json, { experiment: 'device', backend: 'cuda', profile: null });
    assert.equal(r.json.metrics.usable, dev.verdict.usable ? 1 : 0);
    assert.equal(r.json.details.views.verdict.code, dev.verdict.code);
  }));

test('an unknown backend is 400 invalid_param naming backend', T, () =>
  withServer({}, async (srv) => {
    assertError(await postRun(srv, 'device', { backend: 'bogus' }), 400, 'invalid_param', 'backend');
    assertError(await postRun(srv, 'device', { backend: 3 }), 400, 'invalid_param', 'backend');
    assertError(await postRun(srv, 'device', { backend: '' }), 400, 'invalid_param', 'backend');
  }));

test('an unknown profile is 400 unknown_profile', T, () =>
  withServer({}, async (srv) => {
    assertError(await postRun(srv, 'device', { backend: 'simulated', profile: 'gtx-480' }), 400, 'unknown_profile', 'profile');
    assertError(await postRun(srv, 'device', { backend: 'simulated', profile: 7 }), 400, 'invalid_param', 'profile');
  }));

test('a param of the wrong type or out of bounds is 400 invalid_param naming it', T, () =>
  withServer({}, async (srv) => {
    const spec = (await deviceSpec(srv)).params.find((p) => p.name === 'index');
    const bad = [
      ['0', 'index'], // a string for a number
      [1.5, 'index'], // not a whole number
      [true, 'index'],
      [null, 'index'],
      [[0], 'index'],
      [{}, 'index'],
      [spec.min - 1, 'index'],
      [spec.max + 1, 'index'],
      [1e308 * 10, 'index'], // JSON.stringify: null
    ];
    for (const [value, param] of bad) {
      for (const backend of ['simulated', undefined]) {
        const r = await postRun(srv, 'device', { params: { index: value }, ...(backend && { backend }) });
        assertError(r, 400, 'invalid_param', param);
      }
    }
    const huge = await postRun(srv, 'device', '{"params":{"index":1e999}}');
    assertError(huge, 400, 'invalid_param', 'index');
  }));

test('an unknown param name is 400 invalid_param naming it', T, () =>
  withServer({}, async (srv) => {
    assertError(await postRun(srv, 'device', { params: { size: 1 } }), 400, 'invalid_param', 'size');
    assertError(await postRun(srv, 'device', { params: { index: 0, Index: 1 } }), 400, 'invalid_param', 'Index');
  }));

test('params that are not an object are 400 invalid_param naming params', T, () =>
  withServer({}, async (srv) => {
    for (const params of [[], 'index=1', 3, true])
      assertError(await postRun(srv, 'device', { params }), 400, 'invalid_param', 'params');
  }));

test('an unknown top-level field is 400 invalid_param naming it', T, () =>
  withServer({}, async (srv) => {
    assertError(await postRun(srv, 'device', { params: {}, size: 4 }), 400, 'invalid_param', 'size');
    assertError(await postRun(srv, 'device', { Params: {} }), 400, 'invalid_param', 'Params');
  }));

test('malformed JSON, non-object JSON and trailing garbage are 400 invalid_json', T, () =>
  withServer({}, async (srv) => {
    const bodies = ['{', '{"params":}', "{'params':{}}", 'nul', '[]', '[{}]', '"params"', '42', 'null', 'true',
      '{} x', '{}{}', '{"params":{}} ]', '{}\u0000'];
    for (const body of bodies) {
      const r = await postRun(srv, 'device', body);
      assertError(r, 400, 'invalid_json');
    }
    const ok = await postRun(srv, 'device', ' \n{"params":{}}\r\n\t ');
    assert.equal(ok.status, 200, 'whitespace around the object is fine');
  }));

test('a body that is not application/json is 415', T, () =>
  withServer({}, async (srv) => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])
      assertError(await postRun(srv, 'device', '{}', { headers: { 'Content-Type': type } }), 415, 'unsupported_media_type');
    const withCharset = await postRun(srv, 'device', '{}', { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    assert.equal(withCharset.status, 200, 'application/json with a charset is accepted');
  }));

const LIMIT = 64 * 1024;
const padded = (n) => '{"params":{}}' + ' '.repeat(n - '{"params":{}}'.length);

test('a body of exactly 64 KiB is accepted, one byte more is 413', T, () =>
  withServer({}, async (srv) => {
    const at = await postRun(srv, 'device', padded(LIMIT));
    assert.equal(at.status, 200, at.text);
    assertError(await postRun(srv, 'device', padded(LIMIT + 1)), 413, 'body_too_large');
    assertError(await postRun(srv, 'device', padded(4 * LIMIT)), 413, 'body_too_large');
  }));

test('a declared Content-Length over 64 KiB is 413 before the body is sent', T, () =>
  withServer({}, async (srv) => {
    const r = await rawRequest(srv.port,
      'POST /api/experiments/device HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${10 * LIMIT}\r\nConnection: close\r\n\r\n{"params":{}}`);
    assertError(r, 413, 'body_too_large');
  }));

function chunked(body, size = 4096) {
  let out = '';
  for (let i = 0; i < body.length; i += size) {
    const c = body.slice(i, i + size);
    out += `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`;
  }
  return out + '0\r\n\r\n';
}

const chunkedHead = 'POST /api/experiments/device HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
  'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n';

test('a chunked body with no length is read, and refused with 413 past 64 KiB', T, () =>
  withServer({}, async (srv) => {
    const small = await rawRequest(srv.port, chunkedHead + chunked('{"params":{"index":0}}', 5));
    assert.equal(small.status, 200, small.body);
    assertEnvelope(JSON.parse(small.body), { experiment: 'device' });
    const big = await rawRequest(srv.port, chunkedHead + chunked(padded(LIMIT + 1)));
    assertError(big, 413, 'body_too_large');
  }));

test('both Transfer-Encoding: chunked and Content-Length is 400 bad_request', T, () =>
  withServer({}, async (srv) => {
    const r = await rawRequest(srv.port,
      'POST /api/experiments/device HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      'Transfer-Encoding: chunked\r\nContent-Length: 2\r\nConnection: close\r\n\r\n' + chunked('{}'));
    assertError(r, 400, 'bad_request');
    const after = await request(srv, '/api/health');
    assert.equal(after.status, 200, 'the server still answers');
  }));
