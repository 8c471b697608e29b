// Joining a class is limited per class, not per address: a lecture hall
// behind one NAT address gets in together (the join window: a burst of
// --class-size, then --join-rate a second, from any address). Wrong join
// codes and instructor tokens are answered after the comparison and count
// in budgets of their own (per address and per class), so a guesser beside
// the class never refuses a right code or the instructor's token. Every
// refusal says when to retry (Retry-After) and is counted in /metrics and
// in the instructor's view with the setting that changes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertError, cli, request } from './lib.mjs';
import { asInstructor, joinAs, joinMany, makeClassDir, postFrom, startClassServer, withClass } from './class_lib.mjs';

const T = { timeout: 180000 };
const ADDRESS_BUDGET = 60; // wrong guesses of one kind per address per minute (throttle.h)
const CLASS_BUDGET = 600; // per class per minute

// The counters of /metrics as { 'name{labels}': value }.
async function metrics(srv) {
  const r = await request(srv, '/metrics');
  assert.equal(r.status, 200);
  const out = {};
  for (const line of r.text.split('\n'))
    if (line && !line.startsWith('#')) {
      const i = line.lastIndexOf(' ');
      out[line.slice(0, i)] = Number(line.slice(i + 1));
    }
  return out;
}
const refusedMetric = (m, what, reason) => m[`gpulab_${what}_refused_total{reason="${reason}"}`];
const view = (srv, token = srv.instructorToken) => request(srv, '/api/instructor/class', asInstructor(token));

function assertRetryLater(r, what) {
  assertError(r, 429, 'rate_limited');
  const after = Number(r.headers['retry-after']);
  assert.ok(after >= 1 && after <= 60, `${what}: Retry-After ${r.headers['retry-after']}`);
}

test('lecture_hall_300_joins_from_one_address_all_get_in', T, (t) =>
  withClass({}, async (srv) => {
    // The default window holds 300 joins at once: sent as fast as 16
    // connections can, from 127.0.0.1 alone, every one gets in.
    const r = await joinMany(srv, 300, { concurrency: 16 });
    t.diagnostic(`300 joins from one address: ${r.joined} in, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ` +
      `all in ${(r.wallMs / 1000).toFixed(2)} s`);
    assert.equal(r.joined, 300, `refused: ${JSON.stringify(r.refused.slice(0, 3).map((a) => a.json))}`);
    const m = await metrics(srv);
    assert.equal(refusedMetric(m, 'join', 'class_window'), 0);
    assert.equal((await view(srv)).json.learners.length, 300);
  }));

test('join_window_admits_class_size_at_once_then_join_rate_a_second', T, () =>
  withClass({ args: ['--class-size', '20', '--join-rate', '2'] }, async (srv) => {
    const r = await joinMany(srv, 40, { concurrency: 8 });
    // 20 at once, then 2 a second while they were sent (a slow machine lets a few more in).
    const most = 20 + Math.ceil((2 * r.wallMs) / 1000) + 1;
    assert.ok(r.joined >= 20 && r.joined <= most, `joined ${r.joined} of 40 in ${r.wallMs.toFixed(0)} ms (at most ${most})`);
    assert.ok(r.refused.length > 0, 'the window refused some');
    for (const a of r.refused) assertRetryLater(a, 'a join over the window');
    // The learner is told when to come back, and gets in then.
    const after = Number(r.refused.at(-1).headers['retry-after']);
    await new Promise((res) => setTimeout(res, after * 1000 + 200));
    await joinAs(srv, 'Late but welcome');
    // The instructor sees what was refused and which setting changes it.
    const m = await metrics(srv);
    assert.equal(refusedMetric(m, 'join', 'class_window'), r.refused.length);
    const refusals = (await view(srv)).json.refusals;
    assert.equal(refusals.join_class_window.count, r.refused.length);
    assert.match(refusals.join_class_window.change_with, /--join-rate/);
    assert.match(refusals.join_class_window.change_with, /--class-size/);
  }));

test('a_rejoining_browser_gives_its_place_in_the_window_back', T, () =>
  withClass({ args: ['--class-size', '2', '--join-rate', '1'] }, async (srv) => {
    const ada = await joinAs(srv, 'Ada');
    // Joining again from the same browser makes no new learner: it uses no place.
    for (let i = 0; i < 5; i++) await joinAs(srv, 'Ada', srv.joinCode, { learner: ada.learner });
    await joinAs(srv, 'Grace');
  }));

test('guesser_beside_the_class_stops_neither_right_joins_nor_the_instructor', T, (t) =>
  withClass({ args: ['--join-code', 'ABCD-EFGH'] }, async (srv) => {
    // Wrong codes and wrong tokens as fast as 4 connections go, from the
    // class's own address, for as long as 300 learners join and the
    // instructor looks (and at least 300 guesses of each kind).
    const codes = [];
    const tokens = [];
    let stop = false;
    const guesser = async (i) => {
      for (let k = 0; !stop || codes.length < 300 || tokens.length < 300; k++)
        if ((i + k) % 2) codes.push(await postFrom(srv, '/api/class/join', { code: 'ZZZZ-2345', name: 'Eve' }));
        else tokens.push(await postFrom(srv, '/api/instructor/class', undefined, { method: 'GET', headers: { Authorization: `Bearer ${'f'.repeat(64)}` } }));
    };
    const guessing = Promise.all([0, 1, 2, 3].map(guesser));
    const views = [];
    const watching = (async () => {
      while (!stop) views.push(await view(srv));
    })();
    const r = await joinMany(srv, 300, { concurrency: 12 });
    stop = true;
    await Promise.all([guessing, watching]);
    t.diagnostic(`beside ${codes.length} wrong codes and ${tokens.length} wrong tokens: ${r.joined} of 300 in, ` +
      `p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms; ${views.length} instructor views`);
    assert.equal(r.joined, 300, `refused: ${JSON.stringify(r.refused.slice(0, 3).map((a) => a.json))}`);
    assert.ok(views.length > 0 && views.every((v) => v.status === 200), `instructor views: ${views.map((v) => v.status)}`);
    // Guesses are bounded: the budget's worth are answered as wrong, the rest wait.
    for (const [what, answers, wrong, code] of [['wrong codes', codes, 403, 'bad_join_code'], ['wrong tokens', tokens, 401, 'instructor_only']]) {
      const counted = answers.filter((a) => a.status === wrong);
      const waited = answers.filter((a) => a.status === 429);
      assert.equal(counted.length + waited.length, answers.length, `${what}: only ${wrong} or 429`);
      assert.ok(counted.length >= ADDRESS_BUDGET && counted.length < answers.length, `${what}: ${counted.length} answered of ${answers.length}`);
      assert.equal(counted[0].json.error.code, code);
      for (const a of waited) assertRetryLater(a, what);
    }
    const m = await metrics(srv);
    assert.equal(refusedMetric(m, 'join', 'bad_join_code'), codes.filter((a) => a.status === 403).length);
    assert.equal(refusedMetric(m, 'join', 'guesses_from_address'), codes.filter((a) => a.status === 429).length);
    assert.equal(refusedMetric(m, 'instructor', 'guesses_from_address'), tokens.filter((a) => a.status === 429).length);
    assert.equal(refusedMetric(m, 'join', 'class_window'), 0);
    const refusals = (await view(srv)).json.refusals;
    assert.equal(refusals.join_guesses_from_address.count, refusedMetric(m, 'join', 'guesses_from_address'));
    assert.equal(refusals.instructor_guesses_from_address.count, refusedMetric(m, 'instructor', 'guesses_from_address'));
  }));

test('wrong_codes_from_many_addresses_stop_at_the_class_budget_and_a_right_code_still_gets_in', T, () =>
  withClass({ args: ['--join-code', 'ABCD-EFGH'] }, async (srv) => {
    // 60 wrong codes from each of 127.0.0.2, .3, … until the class's budget refuses.
    let counted = 0;
    let refused = null;
    let last;
    for (let a = 2; a < 30 && !refused; a++) {
      last = `127.0.0.${a}`;
      const answers = await Promise.all(Array.from({ length: 4 }, async () => {
        const out = [];
        for (let k = 0; k < ADDRESS_BUDGET / 4; k++)
          out.push(await postFrom(srv, '/api/class/join', { code: 'ZZZZ-2345', name: 'Eve' }, { localAddress: last }));
        return out;
      }));
      for (const r of answers.flat()) {
        if (r.status === 403) counted++;
        else if (!refused) refused = r;
      }
    }
    assert.ok(refused, `the class's budget refused before 28 addresses (${counted} counted)`);
    assert.ok(counted >= CLASS_BUDGET, `${counted} wrong codes answered before the class's budget`);
    assertRetryLater(refused, 'a guess over the class budget');
    assert.ok(refusedMetric(await metrics(srv), 'join', 'guesses_in_class') >= 1);
    // The right code gets in from the last guesser's address and from a new one.
    for (const localAddress of [last, '127.0.0.31']) {
      const r = await postFrom(srv, '/api/class/join', { code: 'abcd efgh', name: 'Ada' }, { localAddress });
      assert.equal(r.status, 200, `right code from ${localAddress}: ${r.text}`);
    }
  }));

// ---- the settings --------------------------------------------------------------

function withDir(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-joins-'));
  return Promise.resolve(fn(dir)).finally(() => rmSync(dir, { recursive: true, force: true }));
}
const serve = (args) => cli(['serve', '--host', '127.0.0.1', '--port', '0', ...args], { timeoutMs: 10000 });

test('join_window_flags_and_file_fields_are_validated', T, () =>
  withDir((dir) => {
    const db = join(dir, 'c.db');
    for (const [flag, value] of [['--class-size', '0'], ['--class-size', '1001'], ['--class-size', 'many'], ['--join-rate', '0'],
      ['--join-rate', '2.5'], ['--join-rate', '1001']]) {
      const r = serve(['--db', db, flag, value]);
      assert.equal(r.code, 2, `${flag} ${value}: exit ${r.code}; ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`${flag}: must be an integer from 1 to 1000`));
    }
    for (const limits of [{ class_size: '300' }, { class_size: 0 }, { join_rate: 5000 }, { join_rate: 1.5 }]) {
      const file = join(dir, 'class.json');
      writeFileSync(file, JSON.stringify({ db: 'c.db', limits }));
      const r = serve(['--class', file]);
      assert.equal(r.code, 2, `${JSON.stringify(limits)}: exit ${r.code}; ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`limits\\.${Object.keys(limits)[0]}: must be an integer from 1 to 1000`));
    }
  }));

test('update_class_changes_the_join_window', T, async () => {
  const dir = makeClassDir();
  const web = { root: dir.root, db: dir.db };
  try {
    let srv = await startClassServer(web, { args: ['--class-size', '10', '--join-rate', '2'] });
    const token = srv.instructorToken;
    try {
      const limits = (await view(srv)).json.class.limits;
      assert.equal(limits.class_size, 10);
      assert.equal(limits.join_rate, 2);
    } finally {
      await srv.stop();
    }
    // Another value for a stored class is a contradiction unless --update-class says so.
    const refused = serve(['--root', dir.root, '--db', dir.db, '--class-size', '50']);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /--class-size: .*class_size = 10.*--update-class/);
    srv = await startClassServer(web, { args: ['--class-size', '50', '--update-class'] });
    try {
      const limits = (await view(srv, token)).json.class.limits;
      assert.equal(limits.class_size, 50);
      assert.equal(limits.join_rate, 2, 'a setting not given keeps the stored value');
    } finally {
      await srv.stop();
    }
  } finally {
    dir.cleanup();
  }
});

test('join_window_defaults_are_300_at_once_then_5_a_second', T, () =>
  withClass({}, async (srv) => {
    const limits = (await view(srv)).json.class.limits;
    assert.equal(limits.class_size, 300);
    assert.equal(limits.join_rate, 5);
  }));
