// Runs a learner's browser simulated (a class without a usable GPU): the
// browser reports each one with POST /api/class/simulated, the class counts
// it for the instructor ("simulated_in_browsers"), and nothing is stored as
// a run or charged; a learner's reports are bounded per minute, and only a
// joined learner naming a real experiment is counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request, assertError, withServer } from './lib.mjs';
import { withClass, joinAs, asLearner, asInstructor } from './class_lib.mjs';

const T = { timeout: 60000 };
const PER_MINUTE = 60; // SRV_BROWSER_SIMS_PER_MINUTE
const report = (srv, cookie, body = { experiment: 'timing' }, extra = {}) =>
  request(srv, '/api/class/simulated', { method: 'POST', body, ...(cookie ? asLearner(cookie) : {}), ...extra });
const overview = async (srv) => {
  const r = await request(srv, '/api/instructor/class', asInstructor(srv.instructorToken));
  assert.equal(r.status, 200, r.text);
  return r.json;
};

test('browser_simulated_runs_are_counted_for_the_instructor_never_stored_or_charged', T, () =>
  withClass({}, async (srv) => {
    assert.equal((await overview(srv)).simulated_in_browsers, 0);
    const ada = await joinAs(srv, 'Ada');
    const bob = await joinAs(srv, 'Bob');
    for (const experiment of ['timing', 'memory', 'crossover']) {
      const r = await report(srv, ada.cookie, { experiment });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.counted, true);
    }
    const last = await report(srv, bob.cookie, { experiment: 'device' });
    assert.equal(last.json.simulated_in_browsers, 4);
    const c = await overview(srv);
    assert.equal(c.simulated_in_browsers, 4);
    for (const l of c.learners) assert.equal(l.runs.total, 0, `${l.name}: no run stored`);
    // Each learner's own count, so the instructor never reads "Runs 0" for one who ran experiments.
    const by = Object.fromEntries(c.learners.map((l) => [l.name, l.runs.simulated_in_browser]));
    assert.deepEqual(by, { Ada: 3, Bob: 1 });
    assert.equal(c.mode, 'cpu', 'this server has no usable GPU: the page says so, not "0.0 s of 300 s"');
    const s = (await request(srv, '/api/session', asLearner(ada.cookie))).json;
    assert.deepEqual(s.runs, []);
    assert.equal(s.gpu_seconds_used, 0);
    assert.equal(s.cpu_seconds_used, 0);
    // The learner's own bar reads the same word: no GPU time to spend here, and their own simulated count.
    assert.equal(s.mode, 'cpu', 'the learner\'s session says this server has no GPU');
    assert.equal(s.simulated_in_browser, 3);
    assert.equal((await request(srv, '/api/session', asLearner(bob.cookie))).json.simulated_in_browser, 1);
  }));

test('browser_simulated_needs_a_session_a_known_experiment_and_post', T, () =>
  withClass({}, async (srv) => {
    assertError(await report(srv, null), 401, 'no_session');
    const ada = await joinAs(srv, 'Ada');
    assertError(await report(srv, ada.cookie, { experiment: 'no_such_thing' }), 404, 'unknown_experiment', 'experiment');
    assertError(await report(srv, ada.cookie, { experiment: 5 }), 400, 'invalid_param', 'experiment');
    assertError(await report(srv, ada.cookie, {}), 400, 'invalid_param', 'experiment');
    assertError(await report(srv, ada.cookie, { experiment: 'timing', runs: 1000 }), 400, 'invalid_param');
    assertError(await report(srv, ada.cookie, 'not json'), 400, 'invalid_json');
    assertError(await report(srv, ada.cookie, { experiment: 'x'.repeat(400) }), 413, 'body_too_large');
    // cJSON keeps strings as C strings: "timing\u0000x" read as "timing" and was counted.
    const nul = assertError(await report(srv, ada.cookie, '{"experiment":"timing\\u0000x"}'), 400, 'invalid_json');
    assert.match(nul.message, /u0000/);
    assertError(await report(srv, ada.cookie, '{"experiment\\u0000":"timing"}'), 400, 'invalid_json');
    const get = await request(srv, '/api/class/simulated', asLearner(ada.cookie));
    assert.equal(get.status, 405);
    assert.equal((await overview(srv)).simulated_in_browsers, 0, 'nothing refused was counted');
  }));

test('browser_simulated_reports_are_bounded_per_learner_each_minute', T, () =>
  withClass({}, async (srv) => {
    const ada = await joinAs(srv, 'Ada');
    const bob = await joinAs(srv, 'Bob');
    // A burst of PER_MINUTE, refilled over the minute: a loop meets the bound a few reports past the burst.
    let accepted = 0, refused = null;
    for (let i = 0; i < 3 * PER_MINUTE && !refused; i++) {
      const r = await report(srv, ada.cookie);
      if (r.status === 200) accepted++;
      else refused = r;
    }
    assert.ok(refused, `still counted after ${accepted} reports`);
    assertError(refused, 429, 'rate_limited');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1, 'a 429 carries Retry-After');
    assert.ok(accepted >= PER_MINUTE, `the burst holds ${PER_MINUTE}: ${accepted}`);
    assert.equal((await report(srv, bob.cookie)).status, 200, 'another learner has a budget of its own');
    assert.equal((await overview(srv)).simulated_in_browsers, accepted + 1, 'a refused report is not counted');
  }));

test('browser_simulated_answers_not_found_without_a_class', T, () =>
  withServer({}, async (srv) => {
    assertError(await report(srv, null), 404, 'not_found');
  }));
