// Learners: a join makes a learner, remembered by its own long-lived cookie;
// joining again from the same browser brings back the same learner, whose
// limits and quota did not reset. The GPU queue holds a few runs per
// learner and always takes a learner's first run; quota is charged when a
// run is queued and refunded if it never runs; runs answered at once
// (simulated) are rate-limited, charged their CPU time and kept only up to
// a cap; sessions end when idle or old. Driven with the test-only fake GPU.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, request } from './lib.mjs';
import { withClass, joinAs, simulate, asLearner } from './class_lib.mjs';
import { fakeGpu, submit, submitQueued, cancelRun, waitRun, waitRunning } from './queue_lib.mjs';

const T = { timeout: 60000 };
const session = (srv, cookie) => request(srv, '/api/session', asLearner(cookie));

// Waits until the server's clock (the Date header of its answers) reads
// at least ms (epoch milliseconds); bounded by a count of looks.
async function serverClockPast(srv, ms) {
  for (let i = 0; i < 600; i++) {
    const r = await request(srv, '/api/health');
    if (Date.parse(r.headers.get('date')) >= ms) return;
    await new Promise((res) => setTimeout(res, 50)); // a poll: the server's clock is the event
  }
  assert.fail(`the server's clock did not reach ${new Date(ms).toISOString()}`);
}

test('rejoining_from_the_same_browser_is_the_same_learner_with_the_same_quota', T, () =>
  // A run of 1.5 s: over the 1 s quota even once its charge is settled to
  // what it took, so the quota stays spent however slowly this test goes.
  withClass({ env: fakeGpu(1500), args: ['--gpu-seconds', '1', '--runs-per-minute', '60'] }, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    assert.ok(a.learner, 'a learner cookie');
    const r = await submitQueued(srv, a.cookie); // charged its estimate (5 s) now: the quota is spent
    assertError(await submit(srv, a.cookie), 429, 'quota_exceeded');
    const again = await joinAs(srv, 'Ada again', srv.joinCode, { learner: a.learner });
    assert.notEqual(again.cookie, a.cookie, 'a new session');
    assert.equal(again.learner, a.learner, 'the same learner');
    const refused = await submit(srv, again.cookie);
    assertError(refused, 429, 'quota_exceeded');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1, 'every 429 carries Retry-After');
    const s = (await session(srv, again.cookie)).json;
    assert.ok(s.gpu_seconds_used >= 1, `the quota followed the learner: ${s.gpu_seconds_used}`);
    assert.equal(s.name, 'Ada again');
    const other = await joinAs(srv, 'Bo'); // another browser: another learner
    await submitQueued(srv, other.cookie);
    await waitRun(srv, a.cookie, r.id);
  }));

// One browser (one learner cookie) or a script without a cookie jar (a new
// learner per join): either way a new learner's first run is accepted.
for (const sameBrowser of [false, true]) {
  test(`twelve_sessions_of_six_submits_${sameBrowser ? 'from_one_browser' : 'without_cookies'}_leave_room_for_a_new_learner`, T, () =>
    // runs of 60 s: none ends while the 72 submits are made (12 s and more on a busy machine), so every
    // refusal is the cap's, not a run that ended in between
    withClass({ env: fakeGpu(60000), args: ['--queue-max', '20'] }, async (srv) => {
      let learner;
      const codes = {};
      for (let i = 0; i < 12; i++) {
        const j = await joinAs(srv, `Mallory ${i}`, srv.joinCode, { learner: sameBrowser ? learner : undefined });
        learner = j.learner;
        for (let k = 0; k < 6; k++) {
          const r = await submit(srv, j.cookie);
          codes[r.status === 202 ? 'queued' : r.json.error.code] = (codes[r.status === 202 ? 'queued' : r.json.error.code] ?? 0) + 1;
          if (r.status !== 202) assert.ok(r.headers.get('retry-after'), `${r.status} carries Retry-After`);
        }
      }
      assert.ok(codes.queued <= (sameBrowser ? 3 : 20 + 12), `queued ${JSON.stringify(codes)}`);
      assert.ok(codes.too_many_queued > 0, `the per-learner cap held: ${JSON.stringify(codes)}`);
      const newcomer = await joinAs(srv, 'Grace');
      await submitQueued(srv, newcomer.cookie);
    }));
}

test('quota_is_refunded_when_a_queued_run_never_runs', T, () =>
  withClass({ env: fakeGpu(2000), args: ['--gpu-seconds', '4', '--runs-per-minute', '60'] }, async (srv) => {
    const b = await joinAs(srv, 'Bo');
    const busy = await submitQueued(srv, b.cookie);
    await waitRunning(srv, b.cookie, busy.id); // the GPU is taken: Ada's run waits
    const a = await joinAs(srv, 'Ada');
    const waiting = await submitQueued(srv, a.cookie); // charged 5 s of a 4 s quota
    assert.equal(waiting.status, 'queued');
    assertError(await submit(srv, a.cookie), 429, 'quota_exceeded');
    assert.ok((await session(srv, a.cookie)).json.gpu_seconds_used >= 4);
    assert.equal((await cancelRun(srv, a.cookie, waiting.id)).status, 200);
    assert.equal((await session(srv, a.cookie)).json.gpu_seconds_used, 0, 'refunded: it never ran');
    await submitQueued(srv, a.cookie);
  }));

test('hammering_simulated_runs_meets_429_and_rejoining_does_not_lift_it', T, () =>
  withClass({ args: ['--sim-runs-per-minute', '5'] }, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    for (let i = 0; i < 5; i++) assert.equal((await simulate(srv, a.cookie)).status, 200);
    const r = await simulate(srv, a.cookie);
    const e = assertError(r, 429, 'rate_limited');
    const after = Number(r.headers.get('retry-after'));
    assert.ok(after >= 1 && after <= 60, `Retry-After ${r.headers.get('retry-after')}`);
    assert.match(e.message, /per minute/);
    const again = await joinAs(srv, 'Ada', srv.joinCode, { learner: a.learner });
    assertError(await simulate(srv, again.cookie), 429, 'rate_limited');
    // A refused run is not counted, and another learner has a minute of their own.
    const b = await joinAs(srv, 'Bo');
    assertError(await simulate(srv, b.cookie, 'timing', { size: 1 }), 400, 'invalid_param', 'size');
    for (let i = 0; i < 5; i++) assert.equal((await simulate(srv, b.cookie)).status, 200);
  }));

test('simulated_runs_are_charged_their_cpu_time', T, () =>
  withClass({ args: ['--sim-cpu-seconds', '1', '--sim-runs-per-minute', '1000'] }, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    let refused = null;
    for (let i = 0; i < 60 && !refused; i++) {
      const r = await simulate(srv, a.cookie, 'train_step');
      if (r.status === 429) refused = r;
      else assert.equal(r.status, 200, r.text.slice(0, 200));
    }
    assert.ok(refused, 'a second of CPU per minute runs out');
    const e = assertError(refused, 429, 'rate_limited');
    assert.match(e.message, /CPU/);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    const used = (await session(srv, a.cookie)).json.cpu_seconds_used;
    assert.ok(used >= 1, `CPU seconds charged: ${used}`);
  }));

test('a_learner_keeps_only_its_newest_simulated_runs', T, () =>
  withClass({ args: ['--stored-runs', '10', '--sim-runs-per-minute', '100'] }, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    const ids = [];
    for (let i = 0; i < 14; i++) {
      const r = await simulate(srv, a.cookie);
      assert.equal(r.status, 200);
    }
    const runs = (await session(srv, a.cookie)).json.runs;
    for (const r of runs) ids.push(r.id);
    assert.equal(runs.length, 10, 'the four oldest were dropped');
    assert.deepEqual(ids, [...ids].sort((x, y) => y - x), 'newest first');
  }));

test('sessions_end_when_idle_and_when_old', T, () =>
  withClass({ args: ['--session-idle', '2', '--session-max', '5'] }, async (srv) => {
    // Idle: nothing for longer than the idle lifetime. The session is not
    // touched meanwhile; the server's own clock (its Date header, in whole
    // seconds) says when the lifetime has passed since the last request
    // (2 to 3 s: the absolute lifetime is 5 s, so idleness is what ends it).
    const a = await joinAs(srv, 'Ada');
    const seen = await session(srv, a.cookie);
    assert.equal(seen.status, 200);
    const lastSeenBefore = Date.parse(seen.headers.get('date')) + 1000; // last seen before this (ms)
    await serverClockPast(srv, lastSeenBefore + 2000);
    const idle = assertError(await session(srv, a.cookie), 401, 'no_session');
    assert.match(idle.message, /idle/);
    // Old: busy all along, it still ends at its absolute lifetime, counted
    // from its creation (after t0).
    const t0 = Date.now();
    const b = await joinAs(srv, 'Bo');
    let status = 200;
    while (status === 200 && Date.now() - t0 < 15000) {
      status = (await session(srv, b.cookie)).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(status, 401);
    assert.ok(Date.now() - t0 >= 5000, `ended after ${Date.now() - t0} ms`);
    // The learner can join again from the same browser.
    await joinAs(srv, 'Bo', srv.joinCode, { learner: b.learner });
  }));
