// Simulated runs spend the server's own CPU, so the server bounds them in
// every mode (server/gpu/sim_gate.h): a run estimated above the CPU budget is
// refused before it starts (400 over_cpu_budget naming the parameter), at
// most --sim-slots run at once and the rest wait, then get 503 busy with
// Retry-After, /api/health keeps answering while they run, and class mode
// charges a run the CPU of every thread it used. The CLI has no budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request, postRun, assertError, assertEnvelope, withServer, cli, registry } from './lib.mjs';
import { withClass, joinAs, asLearner } from './class_lib.mjs';

const T = { timeout: 120000 };
// train_step at its largest: about 6 s of CPU to simulate (bench/cpu_cost).
const LARGEST_TRAIN = { batch: 8192, features: 2048, classes: 256, steps: 1000 };
// About 1 s of CPU on the reference machine, under a raised budget.
const SECOND_TRAIN = { batch: 64, features: 2048, classes: 256, steps: 150 };
const sim = (params) => ({ params, backend: 'simulated' });

test('over_budget_train_step_is_400_over_cpu_budget_naming_steps_without_running', T, () =>
  withServer({}, async (srv) => {
    const t0 = performance.now();
    const res = await postRun(srv, 'train_step', sim(LARGEST_TRAIN));
    assertError(res, 400, 'over_cpu_budget', 'steps');
    assert.ok(performance.now() - t0 < 3000, 'refused from its estimate, not after running');
    // The same in class mode below; a smaller one runs.
    const ok = await postRun(srv, 'train_step', sim({ ...LARGEST_TRAIN, steps: 20 }));
    assert.equal(ok.status, 200, ok.text);
  }));

test('every_experiment_runs_with_its_defaults_under_the_default_budget', T, () =>
  withServer({}, async (srv) => {
    for (const e of registry()) {
      const res = await postRun(srv, e.name, sim({}));
      assert.equal(res.status, 200, `${e.name}: ${res.text}`);
      assertEnvelope(res.json, { experiment: e.name, backend: 'simulated' });
    }
  }));

test('a_lower_budget_flag_refuses_crossover_naming_its_param', T, () =>
  withServer({ args: ['--sim-cpu-budget-ms', '100'] }, async (srv) => {
    assertError(await postRun(srv, 'crossover', sim({})), 400, 'over_cpu_budget', 'samples');
    assertError(await postRun(srv, 'crossover', sim({ max_size: 1024, samples: 1 })), 400, 'over_cpu_budget',
      'max_size');
    const ok = await postRun(srv, 'timing', sim({}));
    assert.equal(ok.status, 200, ok.text);
  }));

test('serve_refuses_a_budget_flag_out_of_bounds', T, () => {
  const r = cli(['serve', '--port', '0', '--sim-cpu-budget-ms', '0']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--sim-cpu-budget-ms/);
});

test('the_cli_runs_what_a_server_would_refuse', T, () => {
  // Over the default budget (estimated 2.3 s, measured about 1.7 s): the user's own machine.
  const r = cli(['run', 'train_step', '--batch=64', '--features=2048', '--classes=256', '--steps=300',
    '--backend', 'simulated', '--json'], { timeoutMs: 90000 });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.experiment, 'train_step');
});

test('past_its_slots_a_simulation_waits_then_is_busy_503_with_retry_after', T, () =>
  withServer({ args: ['--sim-slots', '1', '--sim-wait-ms', '50', '--sim-cpu-budget-ms', '60000'] }, async (srv) => {
    // Each takes about a second of CPU; with one slot and a 50 ms wait, not all three can run.
    const answers = await Promise.all([0, 1, 2].map(() => postRun(srv, 'train_step', sim(SECOND_TRAIN),
      { timeoutMs: 90000 })));
    const ok = answers.filter((a) => a.status === 200), busy = answers.filter((a) => a.status === 503);
    assert.ok(ok.length >= 1, `one ran: ${answers.map((a) => a.status)}`);
    assert.ok(busy.length >= 1, `one was refused: ${answers.map((a) => a.status)}`);
    for (const b of busy) {
      assertError(b, 503, 'busy');
      assert.ok(Number(b.headers.get('retry-after')) >= 1, 'Retry-After');
    }
  }));

test('past_its_waiting_room_a_simulation_is_busy_at_once', T, () =>
  withServer({ args: ['--sim-slots', '1', '--sim-wait-ms', '60000', '--sim-cpu-budget-ms', '60000'] }, async (srv) => {
    // One runs (about 0.4 s of CPU each), four per slot may wait; the others are refused without waiting.
    const order = [];
    const answers = await Promise.all([0, 1, 2, 3, 4, 5, 6].map(() =>
      postRun(srv, 'train_step', sim({ ...SECOND_TRAIN, steps: 60 }), { timeoutMs: 100000 }).then((a) => {
        order.push(a.status);
        return a;
      })));
    const ok = answers.filter((a) => a.status === 200), busy = answers.filter((a) => a.status === 503);
    assert.ok(ok.length >= 5 && busy.length >= 1, `answers: ${order}`);
    for (const b of busy) assertError(b, 503, 'busy');
    assert.equal(order[0], 503, `the refusals come before the first run ends: ${order}`);
  }));

test('health_answers_quickly_while_simulations_fill_every_slot', T, () =>
  withServer({ args: ['--sim-slots', '2', '--sim-cpu-budget-ms', '60000', '--sim-wait-ms', '60000'] },
    async (srv) => {
      let pending = 4;
      const runs = [0, 1, 2, 3].map(() =>
        postRun(srv, 'train_step', sim(SECOND_TRAIN), { timeoutMs: 110000 }).finally(() => pending--));
      // Health and a static file, one after another, for as long as the runs last (bounded).
      const slowest = { health: 0, file: 0 };
      let answeredWhileBusy = 0;
      for (let i = 0; i < 400 && pending > 0; i++) {
        let t0 = performance.now();
        const h = await request(srv, '/api/health', { timeoutMs: 10000 });
        slowest.health = Math.max(slowest.health, performance.now() - t0);
        assert.equal(h.status, 200);
        t0 = performance.now();
        const f = await request(srv, '/index.html', { timeoutMs: 10000 });
        slowest.file = Math.max(slowest.file, performance.now() - t0);
        assert.equal(f.status, 200);
        if (pending > 0) answeredWhileBusy++;
      }
      const done = await Promise.all(runs);
      for (const d of done) assert.equal(d.status, 200, d.text);
      assert.ok(answeredWhileBusy >= 2, `health answered ${answeredWhileBusy} times while the runs lasted`);
      // Generous for a shared two-core machine; a starved server takes as long as the runs (seconds).
      assert.ok(slowest.health < 3000 && slowest.file < 3000, `slowest answers: ${JSON.stringify(slowest)}`);
    }));

// utime + stime of a process, in ms (/proc/PID/stat fields 14 and 15, in clock ticks of 10 ms).
function processCpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

test('class_mode_refuses_over_budget_and_charges_every_thread_of_a_run', T, () =>
  withClass({}, async (srv) => {
    const { cookie } = await joinAs(srv, 'Ada');
    const res = await request(srv, '/api/experiments/train_step', {
      method: 'POST', body: sim(LARGEST_TRAIN), ...asLearner(cookie),
    });
    assertError(res, 400, 'over_cpu_budget', 'steps');
    // crossover multiplies on all of OpenBLAS's threads: the charge is the process's CPU, not one thread's.
    const before = processCpuMs(srv.proc.pid);
    const run = await request(srv, '/api/experiments/crossover', {
      method: 'POST', body: sim({ max_size: 1024, samples: 5 }), ...asLearner(cookie), timeoutMs: 60000,
    });
    assert.equal(run.status, 200, run.text);
    const spent = processCpuMs(srv.proc.pid) - before;
    const s = await request(srv, '/api/session', asLearner(cookie));
    const charged = s.json.cpu_seconds_used * 1000;
    assert.ok(charged >= 0.8 * spent - 20, `charged ${charged} ms of the ${spent} ms the process spent`);
    assert.ok(charged <= spent + 50, `charged ${charged} ms, more than the ${spent} ms the process spent`);
  }));
