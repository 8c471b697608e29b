// Class mode against a real server: joining with the join code gives an
// HttpOnly SameSite cookie, the session keeps its runs and quiz attempts in
// SQLite and they survive a restart, leaving ends the session, the
// instructor sees the class, and a locked or full database gives a clear
// error (store_busy / store_unavailable) while the server keeps serving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { request, rawRequest, assertError, assertEnvelope, withServer } from './lib.mjs';
import {
  withClass, makeClassDir, startClassServer, joinAs, asLearner, asInstructor, simulate, quizAttempt,
  holdExclusiveLock, sessionCookie,
} from './class_lib.mjs';

const T = { timeout: 30000 };
const HAVE_SQLITE3 = spawnSync('sqlite3', ['-version']).status === 0;

test('class_join_sets_an_httponly_samesite_cookie_and_answers_the_session', T, () =>
  withClass({ args: ['--class-name', 'CS 101 lab'] }, async (srv) => {
    assert.equal(srv.className, 'CS 101 lab');
    assert.match(srv.instructorToken, /^[0-9a-f]{64}$/);
    const { res, token } = await joinAs(srv, 'Ada Lovelace');
    const [set, learner, ...more] = res.headers.getSetCookie();
    assert.match(set, /^gpulab_session=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=\/$/);
    assert.ok(!/Secure/.test(set), 'no Secure flag without TLS');
    // The learner's own long-lived cookie, apart from the session's.
    assert.match(learner, /^gpulab_learner=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d{7,}$/);
    assert.deepEqual(more, []);
    assert.deepEqual(Object.keys(res.json), ['session']);
    assert.equal(res.json.session.name, 'Ada Lovelace');
    assert.ok(!Number.isNaN(Date.parse(res.json.session.created)), 'created is a date');
    assert.ok(!res.text.includes(token), 'the token is only in the cookie, never in the body');
  }));

test('class_join_accepts_the_code_as_people_type_it', T, () =>
  withClass({ args: ['--join-code', 'ABCD-EFGH'] }, async (srv) => {
    assert.equal(srv.joinCode, 'ABCD-EFGH');
    await joinAs(srv, 'lower', 'abcd-efgh');
    await joinAs(srv, 'no dash', 'ABCDEFGH');
    await joinAs(srv, 'space', 'abcd efgh');
  }));

test('class_join_refuses_a_wrong_code_and_bad_names', T, () =>
  withClass({}, async (srv) => {
    const post = (body, opts = {}) => request(srv, '/api/class/join', { method: 'POST', body, ...opts });
    const wrong = srv.joinCode === 'ABCD-EFGH' ? 'ABCD-EFGJ' : 'ABCD-EFGH';
    let r = await post({ code: wrong, name: 'Eve' });
    assertError(r, 403, 'bad_join_code', 'code');
    assert.equal(r.headers.get('set-cookie'), null, 'no cookie for a wrong code');
    assertError(await post({ code: 'x', name: 'Eve' }), 403, 'bad_join_code', 'code');
    assertError(await post({ code: 12345678, name: 'Eve' }), 400, 'invalid_param', 'code');
    assertError(await post({ code: srv.joinCode, name: '' }), 400, 'invalid_param', 'name');
    assertError(await post({ code: srv.joinCode, name: '   ' }), 400, 'invalid_param', 'name');
    assertError(await post({ code: srv.joinCode, name: 'x'.repeat(41) }), 400, 'invalid_param', 'name');
    assertError(await post({ code: srv.joinCode, name: 'bell\u0007' }), 400, 'invalid_param', 'name');
    assertError(await post({ code: srv.joinCode }), 400, 'invalid_param', 'name');
    assertError(await post({ code: srv.joinCode, name: 'Eve', admin: true }), 400, 'invalid_param', 'admin');
    assertError(await post('{"code":'), 400, 'invalid_json');
    assertError(await post([1]), 400, 'invalid_json');
    assertError(await request(srv, '/api/class/join'), 405, 'method_not_allowed');
    // 40 characters of UTF-8 are fine (more than 40 bytes).
    await joinAs(srv, 'é'.repeat(40));
  }));

test('class_session_lists_its_own_simulated_runs_and_quiz_attempts', T, () =>
  withClass({ args: ['--gpu-seconds', '120'] }, async (srv) => {
    const { cookie } = await joinAs(srv, 'Ada');
    let s = await request(srv, '/api/session', asLearner(cookie));
    assert.equal(s.status, 200, s.text);
    assert.equal(s.json.name, 'Ada');
    assert.deepEqual(s.json.runs, []);
    assert.deepEqual(s.json.quiz, []);
    assert.equal(s.json.gpu_seconds_used, 0);
    assert.equal(s.json.gpu_seconds_limit, 120);
    const run = await simulate(srv, cookie, 'timing');
    assert.equal(run.status, 200, run.text);
    assertEnvelope(run.json, { experiment: 'timing', backend: 'simulated' });
    const q = await quizAttempt(srv, cookie, { q1: ['a'], q2: ['c'] });
    assert.equal(q.status, 200, q.text);
    s = await request(srv, '/api/session', asLearner(cookie));
    assert.equal(s.json.runs.length, 1);
    const r = s.json.runs[0];
    assert.equal(r.experiment, 'timing');
    assert.equal(r.status, 'done');
    assert.equal(r.backend, 'simulated');
    assert.ok(Number.isInteger(r.id));
    assert.ok(!Number.isNaN(Date.parse(r.finished_at)));
    assert.equal(s.json.quiz.length, 1);
    assert.deepEqual({ ...s.json.quiz[0], at: undefined }, { lesson: 'x', score: 1, total: 2, passed: false, at: undefined });
    assert.equal(s.json.gpu_seconds_used, 0, 'simulated runs cost no GPU time');
  }));

test('class_sessions_runs_and_quiz_survive_a_restart', T, async () => {
  const dir = makeClassDir();
  try {
    let srv = await startClassServer(dir);
    const { cookie } = await joinAs(srv, 'Grace');
    assert.equal((await simulate(srv, cookie, 'transfer')).status, 200);
    assert.equal((await simulate(srv, cookie, 'timing')).status, 200);
    assert.equal((await quizAttempt(srv, cookie)).status, 200);
    const before = (await request(srv, '/api/session', asLearner(cookie))).json;
    await srv.stop();
    assert.ok(existsSync(dir.db), 'the database is a file');
    srv = await startClassServer(dir);
    try {
      const after = await request(srv, '/api/session', asLearner(cookie));
      assert.equal(after.status, 200, `the cookie still works after a restart: ${after.text}`);
      assert.deepEqual(after.json, before);
      assert.deepEqual(after.json.runs.map((r) => r.experiment), ['timing', 'transfer']);
      assert.equal(after.json.quiz[0].passed, true);
    } finally {
      await srv.stop();
    }
  } finally {
    dir.cleanup();
  }
});

test('class_leave_ends_the_session_and_clears_the_cookie', T, () =>
  withClass({}, async (srv) => {
    const { cookie } = await joinAs(srv, 'Ada');
    const left = await request(srv, '/api/class/leave', { method: 'POST', ...asLearner(cookie) });
    assert.equal(left.status, 200, left.text);
    assert.match(left.headers.get('set-cookie'), /^gpulab_session=; .*Max-Age=0/);
    assertError(await request(srv, '/api/session', asLearner(cookie)), 401, 'no_session');
    assertError(await request(srv, '/api/class/leave', { method: 'POST', ...asLearner(cookie) }), 401, 'no_session');
  }));

test('class_instructor_sees_learners_runs_and_quiz_results', T, () =>
  withClass({ args: ['--class-name', 'Lab B', '--queue-max', '12'] }, async (srv) => {
    const ada = await joinAs(srv, 'Ada');
    const bob = await joinAs(srv, 'Bob');
    await simulate(srv, ada.cookie, 'timing');
    await simulate(srv, ada.cookie, 'memory');
    await quizAttempt(srv, bob.cookie);
    const r = await request(srv, '/api/instructor/class', asInstructor(srv.instructorToken));
    assert.equal(r.status, 200, r.text);
    const c = r.json;
    assert.equal(c.class.name, 'Lab B');
    assert.equal(c.class.join_code, srv.joinCode);
    assert.equal(c.class.limits.queue_max, 12);
    const byName = Object.fromEntries(c.learners.map((l) => [l.name, l]));
    assert.equal(byName.Ada.runs.total, 2);
    assert.equal(byName.Ada.runs.done, 2);
    assert.equal(byName.Ada.active, true);
    assert.equal(byName.Bob.runs.total, 0);
    assert.equal(byName.Bob.quiz.attempts, 1);
    assert.deepEqual(byName.Bob.quiz.lessons.map((q) => [q.lesson, q.attempts, q.best_score, q.total, q.passed]),
      [['x', 1, 2, 2, true]]);
    assert.deepEqual(byName.Ada.sessions, { live: 1, total: 1 });
    assert.ok(Array.isArray(c.queue), 'the GPU queue');
    assert.ok(Array.isArray(c.waiting), 'runs waiting, from the store');
    assert.equal(typeof c.gpu.worker.restarts, 'number');
    assert.equal(typeof c.gpu.device, 'object');
    assert.ok(!r.text.includes(ada.token) && !r.text.includes(bob.token), 'no learner token in the view');
  }));

test('class_endpoints_answer_not_found_without_a_class', T, () =>
  withServer({}, async (srv) => {
    assertError(await request(srv, '/api/class/join', { method: 'POST', body: { code: 'ABCD-EFGH', name: 'x' } }), 404, 'not_found');
    assertError(await request(srv, '/api/session'), 404, 'not_found');
    assertError(await request(srv, '/api/instructor/class'), 404, 'not_found');
    // and runs need no session outside class mode
    const r = await request(srv, '/api/experiments/timing', { method: 'POST', body: { backend: 'simulated' } });
    assert.equal(r.status, 200, r.text);
  }));

test('class_locked_database_answers_store_busy_then_recovers', { ...T, skip: !HAVE_SQLITE3 && 'sqlite3 shell not installed' }, () =>
  withClass({}, async (srv, dir) => {
    const { cookie } = await joinAs(srv, 'Ada');
    const lock = await holdExclusiveLock(dir.db);
    let released = false;
    try {
      const r = await request(srv, '/api/class/join', { method: 'POST', body: { code: srv.joinCode, name: 'Bob' } });
      const e = assertError(r, 503, 'store_busy');
      assert.match(e.message, /retry/);
      const run = await simulate(srv, cookie, 'timing');
      assertError(run, 503, 'store_busy');
      // Reading goes on while another process writes (WAL).
      assert.equal((await request(srv, '/api/session', asLearner(cookie))).status, 200);
      assert.equal((await request(srv, '/api/health')).status, 200);
      await lock.release();
      released = true;
      await joinAs(srv, 'Bob');
    } finally {
      if (!released) await lock.release();
    }
  }));

test('class_full_database_answers_store_unavailable_not_a_crash', T, () =>
  withClass({ env: { GPULAB_TEST_HOOKS: '1', GPULAB_TEST_STORE_EXTRA_PAGES: '0' } }, async (srv) => {
    let last;
    for (let i = 0; i < 200; i++) {
      last = await request(srv, '/api/class/join', { method: 'POST', body: { code: srv.joinCode, name: `learner ${i} ${'x'.repeat(24)}` } });
      if (last.status !== 200) break;
    }
    const e = assertError(last, 507, 'store_unavailable');
    assert.match(e.message, /full/);
    assert.equal(sessionCookie(last), null, 'no cookie for a session that was not stored');
    assert.equal((await request(srv, '/api/health')).status, 200, 'the server keeps serving');
  }));

test('class_unopenable_database_stops_the_start_with_a_clear_message', T, async () => {
  const dir = makeClassDir();
  try {
    await assert.rejects(
      startClassServer({ ...dir, db: `${dir.data}/no/such/folder/class.db` }, { timeoutMs: 5000 }),
      /cannot open the class database .*no\/such\/folder/,
    );
  } finally {
    dir.cleanup();
  }
});

// Nothing of the quiz key leaves a class server: not the plain key, not even
// the sealed offline one, nor its precompressed twins (tools/compress.sh
// writes FILE.gz and FILE.br beside every JSON file: asked for by name they
// were served, and lesson 1's key came back whole); outside class mode the
// built sealed one is served and holds no "correct" and no explanation.
test('class_server_hands_out_no_quiz_key_not_even_sealed', T, async () => {
  await withClass({}, async (srv, dir) => {
    const key = '{"id":"x","key":{}}';
    writeFileSync(join(dir.root, 'lessons', 'x.offline.json'), key);
    writeFileSync(join(dir.root, 'lessons', 'x.offline.json.gz'), gzipSync(key));
    writeFileSync(join(dir.root, 'lessons', 'x.offline.json.br'), brotliCompressSync(key));
    writeFileSync(join(dir.root, 'lessons', 'x.json.gz'), gzipSync('{"id":"x","title":"Lesson X","sections":[]}'));
    assert.equal((await request(srv, '/lessons/x.offline.json')).status, 404, 'sealed key withheld in class mode');
    for (const coding of ['gzip', 'br']) {
      const r = await request(srv, '/lessons/x.offline.json', { headers: { 'Accept-Encoding': coding } });
      assert.equal(r.status, 404, `sealed key withheld as ${coding}`);
    }
    for (const twin of ['gz', 'br']) {
      const r = await rawRequest(srv.port, `GET /lessons/x.offline.json.${twin} HTTP/1.1\r\nHost: x\r\n\r\n`);
      assert.equal(r.status, 404, `its .${twin} twin asked for by name is withheld too`);
    }
    assert.equal((await request(srv, '/lessons/x.json')).status, 200, 'the public bundle is served');
    const twin = await rawRequest(srv.port, 'GET /lessons/x.json.gz HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.equal(twin.status, 200, 'a public twin asked for by name is served');
  });
  // The sealed key lessonc compiled beside this binary, served from a test root.
  const built = resolve(dirname(resolve(process.env.GPULAB_BIN || 'build/bin/gpulab')), '..', 'web', 'lessons',
    '01-cuda-intuition.offline.json');
  await withServer({}, async (srv, web) => {
    copyFileSync(built, join(web.root, 'lessons', '01-cuda-intuition.offline.json'));
    const r = await request(srv, '/lessons/01-cuda-intuition.offline.json');
    assert.equal(r.status, 200);
    assert.ok(!/"correct"|"explanation"/.test(r.text), 'the offline key is sealed');
    assert.match(r.text, /"check":"[0-9a-f]{64}"/);
  });
});
