// Bounded per-learner state: a browser joining again and again keeps at
// most three live sessions (the oldest end: their cookies answer
// no_session); quiz attempts are limited per learner per minute (429
// rate_limited, Retry-After); the instructor view sums both per learner, so
// it stays small whatever one learner does, and GET /api/instructor/attempts
// pages every attempt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, request } from './lib.mjs';
import { withClass, joinAs, asLearner, asInstructor, quizAttempt } from './class_lib.mjs';

const T = { timeout: 120000 };
const LIVE_MAX = 3; // store.h: SRV_LIVE_SESSIONS_PER_LEARNER
const QUIZ_PER_MINUTE = 6; // learner.h: SRV_QUIZ_ATTEMPTS_PER_MINUTE
const VIEW_MAX_BYTES = 100 * 1024;

const view = async (srv) => {
  const r = await request(srv, '/api/instructor/class', asInstructor(srv.instructorToken));
  assert.equal(r.status, 200, r.text.slice(0, 300));
  return r;
};
const attempts = (srv, query) => request(srv, `/api/instructor/attempts?${query}`, asInstructor(srv.instructorToken));

// Joins with the learner cookie n times; a join refused as rate_limited
// (a limit on joins) is allowed, any other answer is not.
async function rejoin(srv, learner, n) {
  const cookies = [];
  for (let i = 0; i < n; i++) {
    const r = await request(srv, '/api/class/join', {
      method: 'POST', body: { code: srv.joinCode, name: 'Mallory' }, headers: { Cookie: learner },
    });
    if (r.status === 429) {
      assertError(r, 429, 'rate_limited');
      continue;
    }
    assert.equal(r.status, 200, r.text);
    cookies.push(`gpulab_session=${r.headers.get('set-cookie').match(/gpulab_session=([0-9a-f]{64})/)[1]}`);
  }
  return cookies;
}

test('a_learner_joining_200_times_keeps_at_most_three_live_sessions', T, () =>
  withClass({}, async (srv) => {
    const first = await joinAs(srv, 'Mallory');
    const other = await joinAs(srv, 'Ada');
    const cookies = [first.cookie, ...(await rejoin(srv, first.learner, 200))];
    assert.ok(cookies.length > LIVE_MAX + 1, `joins got in: ${cookies.length}`);
    const answers = [];
    for (const c of cookies) answers.push((await request(srv, '/api/session', asLearner(c))).status);
    const live = answers.map((s, i) => (s === 200 ? i : -1)).filter((i) => i >= 0);
    assert.deepEqual(live, [cookies.length - 3, cookies.length - 2, cookies.length - 1], 'the newest three live');
    assertError(await request(srv, '/api/session', asLearner(cookies[0])), 401, 'no_session');
    assertError(await request(srv, '/api/session', asLearner(cookies.at(-4))), 401, 'no_session');
    assert.equal((await request(srv, '/api/session', asLearner(other.cookie))).status, 200, "another learner's session stays");
    const r = await view(srv);
    const mallory = r.json.learners.find((l) => l.name === 'Mallory');
    assert.equal(r.json.learners.length, 2, 'one entry per learner, not per session');
    assert.deepEqual(mallory.sessions, { live: LIVE_MAX, total: cookies.length });
    assert.equal(r.json.class.limits.live_sessions_per_learner, LIVE_MAX);
    assert.ok(r.text.length < VIEW_MAX_BYTES, `instructor view ${r.text.length} bytes`);
    console.log(`instructor view after ${cookies.length} joins of one learner: ${r.text.length} bytes`);
  }));

test('a_quiz_flood_meets_429_and_the_stored_attempts_stay_bounded', T, () =>
  withClass({}, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    const codes = {};
    let refused = null;
    for (let i = 0; i < 60; i++) {
      const r = await quizAttempt(srv, a.cookie, i % 2 ? { q1: ['a'], q2: ['b'] } : { q1: ['b'], q2: ['b'] });
      codes[r.status] = (codes[r.status] ?? 0) + 1;
      if (r.status === 429) refused = r;
      else assert.equal(r.status, 200, r.text);
    }
    assert.equal(codes[200], QUIZ_PER_MINUTE, JSON.stringify(codes));
    const e = assertError(refused, 429, 'rate_limited');
    const after = Number(refused.headers.get('retry-after'));
    assert.ok(after >= 1 && after <= 60, `Retry-After ${refused.headers.get('retry-after')}`);
    assert.match(e.message, /per minute.*retry in \d+ s/);
    assert.ok(!('score' in refused.json), 'a refused attempt is not scored');
    // Joining again is the same learner, with the same minute.
    const again = await joinAs(srv, 'Ada', srv.joinCode, { learner: a.learner });
    assertError(await quizAttempt(srv, again.cookie), 429, 'rate_limited');
    const b = await joinAs(srv, 'Bo'); // a minute of their own
    assert.equal((await quizAttempt(srv, b.cookie)).status, 200);
    const r = await view(srv);
    const ada = r.json.learners.find((l) => l.name === 'Ada');
    assert.equal(ada.quiz.attempts, QUIZ_PER_MINUTE, 'stored: the admitted ones only');
    assert.deepEqual(ada.quiz.lessons.map((q) => [q.lesson, q.attempts, q.best_score, q.total, q.passed]),
      [['x', QUIZ_PER_MINUTE, 2, 2, true]]);
    assert.equal(typeof ada.quiz.last_at, 'string');
    assert.equal(r.json.class.limits.quiz_attempts_per_minute, QUIZ_PER_MINUTE);
    assert.ok(r.text.length < VIEW_MAX_BYTES, `instructor view ${r.text.length} bytes`);
    console.log(`instructor view after 60 quiz attempts of one learner: ${r.text.length} bytes`);
  }));

test('attempts_pages_hold_every_attempt_once_and_bad_params_get_invalid_param', T, () =>
  withClass({}, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    const again = await joinAs(srv, 'Ada', srv.joinCode, { learner: a.learner }); // attempts of two sessions
    for (let i = 0; i < QUIZ_PER_MINUTE; i++) {
      assert.equal((await quizAttempt(srv, i % 2 ? a.cookie : again.cookie)).status, 200);
    }
    const b = await joinAs(srv, 'Bo');
    assert.equal((await quizAttempt(srv, b.cookie)).status, 200);
    const id = (await view(srv)).json.learners.find((l) => l.name === 'Ada').id;
    const seen = [];
    for (let page = 1; page <= 3; page++) {
      const r = await attempts(srv, `learner=${id}&page=${page}&per_page=4`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual({ ...r.json, attempts: undefined },
        { learner: id, page, per_page: 4, pages: 2, total: QUIZ_PER_MINUTE, attempts: undefined });
      assert.equal(r.json.attempts.length, [4, 2, 0][page - 1]);
      for (const x of r.json.attempts) {
        assert.deepEqual(Object.keys(x).sort(), ['at', 'id', 'lesson', 'passed', 'score', 'session_id', 'total']);
        seen.push(x.id);
      }
    }
    assert.equal(new Set(seen).size, QUIZ_PER_MINUTE, 'every attempt once');
    assert.deepEqual(seen, [...seen].sort((x, y) => y - x), 'newest first');
    const whole = await attempts(srv, `learner=${id}`);
    assert.deepEqual(whole.json.attempts.map((x) => x.id), seen, 'page 1 of 50 by default');
    assert.equal(whole.json.per_page, 50);
    const nobody = await attempts(srv, 'learner=999999');
    assert.deepEqual([nobody.status, nobody.json.total, nobody.json.attempts], [200, 0, []]);
    for (const [q, param] of [
      ['', 'learner'], ['learner=', 'learner'], ['learner=abc', 'learner'], ['learner=0', 'learner'],
      [`learner=${id}&page=0`, 'page'], [`learner=${id}&page=-1`, 'page'], [`learner=${id}&page=1.5`, 'page'],
      [`learner=${id}&page=abc`, 'page'], [`learner=${id}&page=99999999999999999999`, 'page'],
      [`learner=${id}&per_page=51`, 'per_page'], [`learner=${id}&per_page=0`, 'per_page'],
    ]) assertError(await attempts(srv, q), 400, 'invalid_param', param);
    assertError(await attempts(srv, `learner=${id}&pgae=2`), 400, 'invalid_param');
    assertError(await request(srv, `/api/instructor/attempts?learner=${id}`), 401, 'instructor_only');
    assertError(await request(srv, `/api/instructor/attempts?learner=${id}`, asLearner(a.cookie)), 401, 'instructor_only');
    assert.equal((await request(srv, `/api/instructor/attempts?learner=${id}`, {
      method: 'POST', body: {}, ...asInstructor(srv.instructorToken),
    })).status, 405);
  }));
