// The class's GPU queue, driven by the test-only fake GPU: fairness across
// sessions, positions and estimates, cancel, and every limit with its own
// code and Retry-After (queue_full, rate_limited, quota_exceeded,
// over_memory_limit). Another session's run is invisible.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, request } from './lib.mjs';
import { withClass, joinAs, simulate, asLearner } from './class_lib.mjs';
import { fakeGpu, submit, submitQueued, getRun, cancelRun, waitRun, waitRunning } from './queue_lib.mjs';

const T = { timeout: 30000 };

// Each fake run takes 1.5 s: the six submissions and the look at the
// positions must fit inside A's first run even on a busy machine.
test('one learner clicking fast cannot starve another: B runs before A\'s third', { timeout: 60000 }, () =>
  withClass({ env: fakeGpu(1500), args: ['--runs-per-minute', '60', '--queued-runs-per-learner', '10'] }, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    const b = await joinAs(srv, 'Bo');
    const runsA = [];
    for (let i = 0; i < 5; i++) runsA.push(await submitQueued(srv, a.cookie));
    const runB = await submitQueued(srv, b.cookie);
    // Positions: B's single run is next after whatever is running now. A's third is read first: the
    // queue only moves forward, so B's read after it can only be further ahead (on a busy machine a
    // run may end between the two reads).
    const posA3 = (await getRun(srv, a.cookie, runsA[2].id)).json.run;
    const posB = (await getRun(srv, b.cookie, runB.id)).json.run;
    assert.equal(posB.status, 'queued');
    assert.ok(posB.position < posA3.position, `B at ${posB.position}, A's third at ${posA3.position}`);
    assert.ok(posB.estimate_s < posA3.estimate_s, 'the estimate grows with the work ahead');
    const doneB = await waitRun(srv, b.cookie, runB.id);
    const doneA = [];
    for (const r of runsA) doneA.push(await waitRun(srv, a.cookie, r.id));
    for (const r of [doneB, ...doneA]) assert.equal(r.status, 'done', JSON.stringify(r).slice(0, 300));
    assert.ok(doneB.finished_at < doneA[2].finished_at, `B ${doneB.finished_at} before A3 ${doneA[2].finished_at}`);
    assert.ok(doneB.finished_at > doneA[0].finished_at, 'A\'s first was already running');
    // A finished run carries its envelope, from the (fake) GPU.
    assert.equal(doneB.result.device.name, 'gpulab fake GPU (test)');
    assert.equal(doneB.progress.state, 'done');
    assert.ok(doneB.gpu_ms >= 200, `gpu time counted: ${doneB.gpu_ms}`);
  }));

test('positions count down and a running run shows progress', T, () =>
  withClass({ env: fakeGpu(600), args: ['--runs-per-minute', '60'] }, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await submitQueued(srv, a.cookie)).id);
    const first = await waitRunning(srv, a.cookie, ids[0]);
    assert.equal(first.position, 0);
    assert.equal(first.progress.state, 'running');
    assert.ok(first.progress.fraction >= 0 && first.progress.fraction < 1);
    const third = (await getRun(srv, a.cookie, ids[2])).json.run;
    assert.equal(third.status, 'queued');
    assert.equal(third.position, 2);
    assert.equal(third.progress.state, 'queued');
    await waitRunning(srv, a.cookie, ids[1]);
    const later = (await getRun(srv, a.cookie, ids[2])).json.run;
    assert.equal(later.position, 1, 'one closer once the first finished');
    // Once one run has finished, the estimate uses its measured time (~0.6 s), not the 5 s default.
    assert.ok(later.estimate_s < 3, `estimate ${later.estimate_s}`);
    await waitRun(srv, a.cookie, ids[2]);
  }));

// Runs of 10 s: the first is still running when the second is cancelled, however busy the machine.
test('a queued run can be cancelled; a running or finished one cannot; another session sees nothing', { timeout: 60000 }, () =>
  withClass({ env: fakeGpu(10000), args: ['--runs-per-minute', '60'] }, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    const b = await joinAs(srv, 'Bo');
    const r1 = await submitQueued(srv, a.cookie);
    const r2 = await submitQueued(srv, a.cookie);
    await waitRunning(srv, a.cookie, r1.id);
    // Bo can neither see nor cancel Ada's runs: exactly like a missing run.
    assertError(await getRun(srv, b.cookie, r2.id), 404, 'unknown_run');
    assertError(await cancelRun(srv, b.cookie, r2.id), 404, 'unknown_run');
    assertError(await getRun(srv, a.cookie, 999999), 404, 'unknown_run');
    assertError(await getRun(srv, a.cookie, 'abc'), 404, 'unknown_run');
    // No cookie: no session.
    assertError(await getRun(srv, 'x=1', r2.id), 401, 'no_session');
    assertError(await cancelRun(srv, a.cookie, r1.id), 409, 'not_cancellable');
    const c = await cancelRun(srv, a.cookie, r2.id);
    assert.equal(c.status, 200, c.text);
    assert.equal(c.json.run.status, 'cancelled');
    assertError(await cancelRun(srv, a.cookie, r2.id), 409, 'not_cancellable');
    const done = await waitRun(srv, a.cookie, r1.id, { timeoutMs: 30000 });
    assert.equal(done.status, 'done');
    assertError(await cancelRun(srv, a.cookie, r1.id), 409, 'not_cancellable');
    assert.equal((await getRun(srv, a.cookie, r2.id)).json.run.status, 'cancelled', 'it never ran');
  }));

test('a full queue answers 503 queue_full with Retry-After; simulated runs still work', T, () =>
  withClass({ env: fakeGpu(1500), args: ['--queue-max', '2', '--runs-per-minute', '60'] }, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    const b = await joinAs(srv, 'Bo');
    const r1 = await submitQueued(srv, a.cookie);
    await waitRunning(srv, a.cookie, r1.id);
    await submitQueued(srv, a.cookie);
    await submitQueued(srv, b.cookie);
    const full = await submit(srv, b.cookie);
    assertError(full, 503, 'queue_full');
    const after = Number(full.headers.get('retry-after'));
    assert.ok(after >= 1 && after <= 60, `Retry-After ${full.headers.get('retry-after')}`);
    const sim = await simulate(srv, b.cookie);
    assert.equal(sim.status, 200, 'a simulated run is answered at once, not queued');
  }));

test('runs per minute: the next one is 429 rate_limited with Retry-After', T, () =>
  withClass({ env: fakeGpu(50), args: ['--runs-per-minute', '2'] }, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    const b = await joinAs(srv, 'Bo');
    await submitQueued(srv, a.cookie);
    await submitQueued(srv, a.cookie);
    const r = await submit(srv, a.cookie);
    const e = assertError(r, 429, 'rate_limited');
    const after = Number(r.headers.get('retry-after'));
    assert.ok(after >= 1 && after <= 60, `Retry-After ${r.headers.get('retry-after')}`);
    assert.match(e.message, /retry in \d+ s/);
    await submitQueued(srv, b.cookie); // another learner's minute is their own
    // A refused run (bad params) does not use up the minute.
    assertError(await submit(srv, b.cookie, 'timing', { size: 1 }), 400, 'invalid_param', 'size');
    await submitQueued(srv, b.cookie);
  }));

// Runs of 1 s against a 2 s quota: the first is charged the 5 s default
// estimate (the next, sent at once, is refused while it is still running:
// a 300 ms run had already ended and settled by then in the sanitizer build
// on a busy machine), then settled to what it took, so more are admitted
// until what they took reaches the quota.
test('gpu_seconds_are_charged_when_queued_and_settled_when_run_then_429_quota_exceeded', T, () =>
  withClass({ env: fakeGpu(1000), args: ['--gpu-seconds', '2', '--runs-per-minute', '60'] }, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    const r1 = await submitQueued(srv, a.cookie); // charged the 5 s default estimate at once
    const early = assertError(await submit(srv, a.cookie), 429, 'quota_exceeded');
    assert.match(early.message, /runs still queued included/);
    await waitRun(srv, a.cookie, r1.id); // settled to what it took
    let r, admitted = 0;
    for (; admitted < 20; admitted++) {
      r = await submit(srv, a.cookie);
      if (r.status !== 202) break;
      await waitRun(srv, a.cookie, r.json.run.id);
    }
    assert.ok(admitted >= 1, 'the settled charge let another run in');
    const e = assertError(r, 429, 'quota_exceeded');
    assert.ok(Number(r.headers.get('retry-after')) >= 1, `Retry-After ${r.headers.get('retry-after')}`);
    assert.match(e.message, /simulated/);
    const s = await simulate(srv, a.cookie);
    assert.equal(s.status, 200, 'simulated runs cost no GPU time');
    const session = (await request(srv, '/api/session', asLearner(a.cookie))).json;
    const used = session.gpu_seconds_used;
    assert.ok(used >= 2 && used < 6, `GPU seconds used: ${used}`); // the quota, and at most one run past it
    assert.equal(session.mode, 'cuda', 'a GPU takes the runs: the learner\'s bar shows GPU time');
    const b = await joinAs(srv, 'Bo');
    await submitQueued(srv, b.cookie); // another learner has a quota of their own
  }));

test('more GPU memory than the class allows is 400 over_memory_limit naming the param', T, () =>
  withClass({ env: fakeGpu(50), args: ['--max-gpu-mem-gib', '1', '--runs-per-minute', '60'] }, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    const e = assertError(await submit(srv, a.cookie, 'memory', { budget_gib: 2, force_oom: true }), 400,
      'over_memory_limit', 'budget_gib');
    assert.match(e.message, /1\.00 GiB/);
    // Exactly at the cap fits; so does the deliberate OOM inside a smaller budget.
    const fit = await submitQueued(srv, a.cookie, 'transfer', { max_bytes: 1073741824 });
    const oom = await submitQueued(srv, a.cookie, 'memory', { budget_gib: 0.5, force_oom: true });
    assert.equal((await waitRun(srv, a.cookie, fit.id)).status, 'done');
    assert.equal((await waitRun(srv, a.cookie, oom.id)).status, 'done', 'the OOM lesson inside the cap runs');
  }));

test('class mode refuses a cross-parameter mistake at once: 400 before anything is queued or charged', T, () =>
  withClass({ env: fakeGpu(50), args: ['--runs-per-minute', '2'] }, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    // 2·8192³·100 flop is over timing's per-batch limit: the same 400 as outside class mode.
    for (let i = 0; i < 3; i++) {
      const e = assertError(await submit(srv, a.cookie, 'timing', { size: 8192, repeats: 100 }), 400, 'invalid_param', 'repeats');
      assert.match(e.message, /use at most \d+ repeats/);
    }
    assertError(await submit(srv, a.cookie, 'transfer', { small_copies: 100000, small_bytes: 1048576, max_bytes: 4096 }),
      400, 'invalid_param', 'small_copies');
    // Nothing was queued, stored or counted: the two runs this minute allows are both still there.
    const s = await request(srv, '/api/session', asLearner(a.cookie));
    assert.equal(s.status, 200, s.text);
    assert.deepEqual(s.json.runs, []);
    assert.equal(s.json.gpu_seconds_used, 0);
    const ok1 = await submitQueued(srv, a.cookie, 'timing', { size: 256, repeats: 1 });
    const ok2 = await submitQueued(srv, a.cookie, 'timing', { size: 256, repeats: 1 });
    assert.equal((await waitRun(srv, a.cookie, ok1.id)).status, 'done');
    assert.equal((await waitRun(srv, a.cookie, ok2.id)).status, 'done');
  }));

test('in class mode a GPU run needs a session; /api/runs is not there without a class', T, async () => {
  await withClass({ env: fakeGpu(50) }, async (srv) => {
    assertError(await submit(srv, 'gpulab_session=' + '0'.repeat(64)), 401, 'no_session');
  });
  const { withServer } = await import('./lib.mjs');
  await withServer({ env: fakeGpu(50) }, async (srv) => {
    assertError(await getRun(srv, 'x=1', 1), 404, 'not_found');
  });
});
