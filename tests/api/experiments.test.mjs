// Every experiment the registry lists, driven from the registry itself (so a
// new experiment is covered the day it is registered): it runs simulated on
// every profile with its defaults, its numeric params are bounded as
// advertised, auto falls back to the simulator, cuda says no_gpu here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withServer, request, deviceView, postRun, assertError, assertEnvelope, registry } from './lib.mjs';

const T = { timeout: 30000 };
const experiments = registry();

const defaults = (e) => Object.fromEntries(e.params.map((p) => [p.name, p.default]));

for (const e of experiments) {
  test(`${e.name} runs simulated with its defaults on every profile`, T, () =>
    withServer({}, async (srv) => {
      const profiles = (await request(srv, '/api/profiles')).json.profiles;
      let ran = 0;
      for (const p of profiles) {
        const r = await postRun(srv, e.name, { backend: 'simulated', profile: p.name });
        // An experiment whose point a platform lacks (host copies on the Mac's
        // shared memory, NVIDIA's device check under ROCm) says so instead of
        // modelling what is not there; on a CUDA profile every one runs.
        if (p.platform !== 'cuda' && r.status === 422) {
          assertError(r, 422, 'not_applicable');
          assert.ok(r.json.error.message.includes(p.device_name), `${e.name} on ${p.name} names the GPU: ${r.json.error.message}`);
          continue;
        }
        ran++;
        assert.equal(r.status, 200, `${e.name} on ${p.name}: ${r.text.slice(0, 300)}`);
        assertEnvelope(r.json, { experiment: e.name, backend: 'simulated', profile: p.name, spec: e });
        assert.deepEqual(r.json.params, defaults(e), 'the envelope states the defaults it used');
      }
      assert.ok(ran >= profiles.filter((p) => p.platform === 'cuda').length, `${e.name} ran on every CUDA profile`);
    }));

  test(`${e.name} rejects each numeric param just outside its bounds, naming it`, T, () =>
    withServer({}, async (srv) => {
      for (const p of e.params) {
        if (p.type === 'integer' || p.type === 'number') {
          for (const v of [p.min - 1, p.max + 1])
            assertError(await postRun(srv, e.name, { backend: 'simulated', params: { [p.name]: v } }), 400, 'invalid_param', p.name);
          assertError(await postRun(srv, e.name, { backend: 'simulated', params: { [p.name]: String(p.default) } }), 400, 'invalid_param', p.name);
          if (p.type === 'integer' && p.min + 0.5 < p.max)
            assertError(await postRun(srv, e.name, { backend: 'simulated', params: { [p.name]: p.min + 0.5 } }), 400, 'invalid_param', p.name);
          for (const v of [p.min, p.max]) {
            // A bound alone is accepted; a rule across params (size x repeats
            // within a flop budget) may still refuse the combination.
            const ok = await postRun(srv, e.name, { backend: 'simulated', params: { [p.name]: v } });
            if (ok.status === 200) {
              assert.equal(ok.json.params[p.name], v);
            } else {
              const err = assertError(ok, 400, 'invalid_param');
              assert.ok(!(err.param === p.name && /must be between/.test(err.message)),
                `${e.name}.${p.name}=${v} is inside its own bounds: ${err.message}`);
            }
          }
        } else if (p.type === 'boolean') {
          assertError(await postRun(srv, e.name, { backend: 'simulated', params: { [p.name]: 'true' } }), 400, 'invalid_param', p.name);
          assertError(await postRun(srv, e.name, { backend: 'simulated', params: { [p.name]: 1 } }), 400, 'invalid_param', p.name);
        } else if (p.type === 'enum') {
          assertError(await postRun(srv, e.name, { backend: 'simulated', params: { [p.name]: 'not-a-choice' } }), 400, 'invalid_param', p.name);
        }
      }
      assertError(await postRun(srv, e.name, { params: { no_such_param: 1 } }), 400, 'invalid_param', 'no_such_param');
    }));

  if (e.live === false) {
    // Simulated only (a machine of several GPUs): a live run would be made up.
    test(`${e.name} with backend cuda is 422 not_applicable, and auto simulates it`, T, () =>
      withServer({}, async (srv) => {
        assertError(await postRun(srv, e.name, { backend: 'cuda' }), 422, 'not_applicable', 'backend');
        const r = await postRun(srv, e.name, {});
        assert.equal(r.status, 200, r.text.slice(0, 300));
        assertEnvelope(r.json, { experiment: e.name, backend: 'simulated', spec: e });
      }));
  } else if (e.name !== 'device') {
    test(`${e.name} with backend cuda is 503 no_gpu with Retry-After when no GPU is usable`, T, () =>
      withServer({}, async (srv) => {
        const usable = (await deviceView(srv)).json.verdict.usable;
        const r = await postRun(srv, e.name, { backend: 'cuda' });
        if (usable) {
          assert.equal(r.status, 200, r.text.slice(0, 300));
          assertEnvelope(r.json, { experiment: e.name, backend: 'cuda', spec: e });
          return;
        }
        assertError(r, 503, 'no_gpu');
        assert.ok(Number(r.headers.get('retry-after')) > 0, 'Retry-After says when to come back');
      }));

    test(`${e.name} with backend auto falls back to the simulator when no GPU is usable`, T, () =>
      withServer({}, async (srv) => {
        const usable = (await deviceView(srv)).json.verdict.usable;
        const r = await postRun(srv, e.name, {});
        assert.equal(r.status, 200, r.text.slice(0, 300));
        assertEnvelope(r.json, { experiment: e.name, backend: usable ? 'cuda' : 'simulated', spec: e });
      }));
  }
}

test('the registry lists at least the device experiment and names are unique', T, () => {
  const names = experiments.map((e) => e.name);
  assert.ok(names.includes('device'));
  assert.equal(new Set(names).size, names.length);
});
