// The read-only API resources (health, device, experiments, profiles,
// lessons): their JSON shapes, their headers, and the errors around them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withServer, request, deviceView, assertError, assertSecurityHeaders, waitForStderr } from './lib.mjs';

const T = { timeout: 20000 };

test('health reports status, version, mode and worker restarts', T, () =>
  withServer({}, async (srv) => {
    const r = await request(srv, '/api/health');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type'), /^application\/json/);
    assertSecurityHeaders(r.headers);
    assert.equal(r.json.status, 'ok');
    assert.match(r.json.version, /^\d+\.\d+\.\d+/);
    assert.ok(['cpu', 'cuda'].includes(r.json.mode));
    assert.equal(r.json.worker.restarts, 0);
  }));

test('device shows the driver view, the runtime view and a verdict', T, () =>
  withServer({}, async (srv) => {
    const r = await deviceView(srv);
    assert.equal(r.status, 200);
    assertSecurityHeaders(r.headers);
    const { driver, runtime, verdict, mode } = r.json;
    assert.equal(typeof driver.present, 'boolean');
    assert.ok(['none', 'nvml', 'nvidia-smi'].includes(driver.source));
    assert.ok(Number.isInteger(driver.device_count) && Array.isArray(driver.devices));
    if (!driver.present) assert.equal(typeof driver.error, 'string', 'a missing driver says why');
    assert.equal(typeof runtime.status, 'string');
    assert.equal(typeof runtime.built_with_cuda, 'boolean');
    assert.ok(Array.isArray(runtime.devices));
    assert.equal(typeof verdict.usable, 'boolean');
    assert.equal(verdict.simulate, !verdict.usable);
    for (const k of ['code', 'summary', 'explanation', 'advice']) assert.equal(typeof verdict[k], 'string', k);
    assert.equal(mode, verdict.usable ? 'cuda' : 'cpu');
  }));

test('experiments lists every experiment with typed, bounded params', T, () =>
  withServer({}, async (srv) => {
    const r = await request(srv, '/api/experiments');
    assert.equal(r.status, 200);
    assertSecurityHeaders(r.headers);
    const list = r.json.experiments;
    assert.ok(Array.isArray(list) && list.some((e) => e.name === 'device'));
    for (const e of list) {
      for (const k of ['name', 'title', 'summary']) assert.equal(typeof e[k], 'string', `${e.name}.${k}`);
      assert.equal(typeof e.simulated, 'boolean');
      for (const p of e.params) {
        assert.ok(['integer', 'number', 'boolean', 'enum'].includes(p.type), `${e.name}.${p.name} type`);
        if (p.type === 'integer' || p.type === 'number') {
          assert.ok(p.min <= p.default && p.default <= p.max, `${e.name}.${p.name} default within bounds`);
        } else if (p.type === 'enum') {
          assert.ok(p.choices.includes(p.default), `${e.name}.${p.name} default is a choice`);
        }
        assert.equal(typeof p.help, 'string');
      }
      const one = await request(srv, `/api/experiments/${e.name}`);
      assert.equal(one.status, 200);
      assert.deepEqual(one.json, e, 'GET /api/experiments/NAME matches the list');
    }
  }));

test('profiles lists the device profiles and names the default', T, () =>
  withServer({}, async (srv) => {
    const r = await request(srv, '/api/profiles');
    assert.equal(r.status, 200);
    assertSecurityHeaders(r.headers);
    const names = r.json.profiles.map((p) => p.name);
    for (const n of ['t4', 'a100-sxm', 'h100-sxm', 'rtx-4090', 'm1-pro', 'rx-7900-xtx']) assert.ok(names.includes(n), n);
    // the beginner's free GPU (Colab, Kaggle), as the page's offline profile and an unnamed simulated run
    assert.equal(r.json.default, 't4');
    for (const p of r.json.profiles) {
      assert.equal(typeof p.device_name, 'string');
      assert.ok(p.memory_bytes > 0 && p.sm_count > 0, p.name);
      assert.ok(['cuda', 'rocm', 'mps'].includes(p.platform), p.name);
    }
    const mac = r.json.profiles.find((p) => p.name === 'm1-pro');
    assert.equal(mac.platform, 'mps');
    assert.equal(mac.compute_capability, null);
    assert.equal(mac.sources.pin_gbps.kind, 'not applicable');
    const run = await request(srv, '/api/experiments/timing', { method: 'POST', body: { backend: 'simulated' } });
    assert.equal(run.status, 200);
    assert.equal(run.json.device.profile, r.json.default);
  }));

test('an experiment with no meaning on the profile GPU is 422 not_applicable, not a model', T, () =>
  withServer({}, async (srv) => {
    for (const [name, profile] of [['transfer', 'm1-pro'], ['graphs', 'm1-pro'], ['streams', 'm1-pro'], ['device', 'rx-7900-xtx']]) {
      const r = await request(srv, `/api/experiments/${name}`, { method: 'POST', body: { backend: 'simulated', profile } });
      assertError(r, 422, 'not_applicable');
      assert.equal(r.json.error.param, 'profile');
      assert.match(r.json.error.message, /does not apply to the /, name);
    }
    const ok = await request(srv, '/api/experiments/crossover', { method: 'POST', body: { backend: 'simulated', profile: 'm1-pro', params: { max_size: 256, samples: 3 } } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.device.profile, 'm1-pro');
  }));

test('lessons serves the index and a bundle from the web root', T, () =>
  withServer({}, async (srv) => {
    const idx = await request(srv, '/api/lessons');
    assert.equal(idx.status, 200);
    assertSecurityHeaders(idx.headers);
    assert.deepEqual(idx.json.lessons.map((l) => l.id), ['x']);
    const one = await request(srv, '/api/lessons/x');
    assert.equal(one.status, 200);
    assert.equal(one.json.id, 'x');
  }));

test('an unknown lesson id is 404 unknown_lesson', T, () =>
  withServer({}, async (srv) => {
    assertError(await request(srv, '/api/lessons/nope'), 404, 'unknown_lesson', 'id');
  }));

test('a lesson id with bad characters is 404 unknown_lesson', T, () =>
  withServer({}, async (srv) => {
    for (const id of ['X', 'a_b', 'a.json', 'a%00b', 'a%2fb', 'a'.repeat(65), 'index.json', '-%20'])
      assertError(await request(srv, `/api/lessons/${id}`), 404, 'unknown_lesson', 'id');
  }));

test('an unknown /api path is 404 not_found with the error envelope', T, () =>
  withServer({}, async (srv) => {
    for (const p of ['/api/nope', '/api/', '/api', '/api/healthz', '/api/experimentsX', '/api/lessonsX'])
      assertError(await request(srv, p), 404, 'not_found');
  }));

test('an unknown experiment is 404 unknown_experiment', T, () =>
  withServer({}, async (srv) => {
    assertError(await request(srv, '/api/experiments/nope'), 404, 'unknown_experiment', 'experiment');
    assertError(await request(srv, '/api/experiments/nope', { method: 'POST', body: {} }), 404, 'unknown_experiment');
  }));

test('a wrong method is 405 method_not_allowed with an Allow header', T, () =>
  withServer({}, async (srv) => {
    const cases = [
      ['POST', '/api/health', 'GET,HEAD'],
      ['DELETE', '/api/health', 'GET,HEAD'],
      ['POST', '/api/device', 'GET,HEAD'],
      ['POST', '/api/profiles', 'GET,HEAD'],
      ['POST', '/api/experiments', 'GET,HEAD'],
      ['DELETE', '/api/experiments/device', 'GET,HEAD,POST'],
      ['PUT', '/api/experiments/device', 'GET,HEAD,POST'],
      ['POST', '/api/lessons', 'GET,HEAD'],
      ['PUT', '/', 'GET,HEAD'],
      ['DELETE', '/index.html', 'GET,HEAD'],
      ['POST', '/app.js', 'GET,HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const r = await request(srv, path, { method, body: method === 'DELETE' ? undefined : '{}' });
      assertError(r, 405, 'method_not_allowed');
      assert.equal(r.headers.get('allow'), allow, `${method} ${path}`);
    }
  }));

test('HEAD on a JSON resource sends the headers and no body', T, () =>
  withServer({}, async (srv) => {
    const r = await request(srv, '/api/health', { method: 'HEAD' });
    assert.equal(r.status, 200);
    assert.equal(r.text, '');
    assert.ok(Number(r.headers.get('content-length')) > 0);
    assertSecurityHeaders(r.headers);
  }));

test('every answer is logged on stderr, one line per request', T, () =>
  withServer({}, async (srv) => {
    await request(srv, '/api/health');
    await request(srv, '/api/nope');
    await waitForStderr(srv, (t) => /path=\/api\/nope status=404 /.test(t), { what: 'log line of /api/nope' });
    // key=value fields (metrics.test.mjs checks the whole line)
    assert.match(srv.stderr(), /method=GET path=\/api\/health status=200 /);
    assert.match(srv.stderr(), /method=GET path=\/api\/nope status=404 /);
  }));
