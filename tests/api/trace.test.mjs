// A run's trace file over HTTP (docs/trace.md): POST
// /api/experiments/NAME?trace=1 answers the result's Chrome trace instead of
// its envelope; in class mode GET /api/runs/ID?trace=1 answers a stored run's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withServer, postRun, request, assertError } from './lib.mjs';
import { withClass, joinAs, asLearner, simulate } from './class_lib.mjs';

const T = { timeout: 60000 };

function assertTrace(json, experiment) {
  assert.ok(Array.isArray(json.traceEvents), 'traceEvents');
  assert.equal(json.displayTimeUnit, 'ms');
  assert.equal(json.otherData.experiment, experiment);
  assert.equal(json.otherData.backend, 'simulated');
  assert.match(json.otherData.source, /not a measurement/);
  assert.ok(json.traceEvents.some((e) => e.ph === 'X' && e.dur >= 0 && e.ts >= 0));
  assert.ok(json.traceEvents.some((e) => e.ph === 'M' && e.name === 'thread_name'));
}

test('post_with_trace_1_answers_the_trace_as_an_attachment', T, () =>
  withServer({}, async (srv) => {
    const r = await postRun(srv, 'timing?trace=1', { backend: 'simulated', profile: 't4' });
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.match(r.headers.get('content-type'), /application\/json/);
    assert.match(r.headers.get('content-disposition'), /attachment; filename="gpulab-timing\.trace\.json"/);
    assertTrace(r.json, 'timing');
    assert.ok(r.json.traceEvents.some((e) => e.ph === 's'), 'launch arrows');
    const plain = await postRun(srv, 'timing?trace=0', { backend: 'simulated' });
    assert.equal(plain.json.experiment, 'timing', 'trace=0: the envelope as before');
  }));

test('post_with_trace_keeps_its_errors', T, () =>
  withServer({}, async (srv) => {
    assertError(await postRun(srv, 'timing?trace=1', { backend: 'simulated', params: { size: -1 } }), 400,
      'invalid_param', 'size');
    assertError(await postRun(srv, 'nosuch?trace=1', { backend: 'simulated' }), 404, 'unknown_experiment');
  }));

test('class_run_trace_answers_a_stored_run_and_only_to_its_owner', T, () =>
  withClass({}, async (srv) => {
    const ada = await joinAs(srv, 'Ada');
    const bob = await joinAs(srv, 'Bob');
    assert.equal((await simulate(srv, ada.cookie, 'graphs')).status, 200);
    const runs = (await request(srv, '/api/session', asLearner(ada.cookie))).json.runs;
    const id = runs[0].id;
    const r = await request(srv, `/api/runs/${id}?trace=1`, asLearner(ada.cookie));
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assertTrace(r.json, 'graphs');
    assertError(await request(srv, `/api/runs/${id}?trace=1`, asLearner(bob.cookie)), 404, 'unknown_run');
  }));
