// Isolation in class mode: a learner sees and changes only their own
// session; no cookie, a forged or replayed one get 401 no_session; the
// instructor view needs the instructor token (401 instructor_only
// otherwise); and no token ever reaches the server's log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request, rawRequest, assertError, waitForStderr } from './lib.mjs';
import { withClass, joinAs, asLearner, asInstructor, simulate, quizAttempt } from './class_lib.mjs';

const T = { timeout: 30000 };

test('isolation_no_cookie_is_no_session_but_open_resources_stay_open', T, () =>
  withClass({}, async (srv) => {
    for (const p of ['/api/health', '/api/device', '/api/experiments', '/api/profiles', '/api/lessons', '/'])
      assert.equal((await request(srv, p)).status, 200, `${p} is open`);
    assertError(await request(srv, '/api/session'), 401, 'no_session');
    assertError(await request(srv, '/api/experiments/timing', { method: 'POST', body: { backend: 'simulated' } }), 401, 'no_session');
    assertError(await request(srv, '/api/lessons/x/quiz', { method: 'POST', body: { answers: {} } }), 401, 'no_session');
    assertError(await request(srv, '/api/class/leave', { method: 'POST' }), 401, 'no_session');
  }));

test('isolation_forged_and_malformed_cookies_are_no_session', T, () =>
  withClass({}, async (srv) => {
    await joinAs(srv, 'Ada');
    const forged = `gpulab_session=${randomBytes(32).toString('hex')}`;
    for (const cookie of [forged, 'gpulab_session=', 'gpulab_session=../../etc', `gpulab_session=${'A'.repeat(64)}`, 'other=1'])
      assertError(await request(srv, '/api/session', asLearner(cookie)), 401, 'no_session');
    // The instructor token is not a session token either.
    assertError(await request(srv, '/api/session', asLearner(`gpulab_session=${srv.instructorToken}`)), 401, 'no_session');
  }));

test('isolation_another_session_sees_nothing_of_yours', T, () =>
  withClass({}, async (srv) => {
    const ada = await joinAs(srv, 'Ada');
    const bob = await joinAs(srv, 'Bob');
    assert.equal((await simulate(srv, ada.cookie, 'timing')).status, 200);
    assert.equal((await quizAttempt(srv, ada.cookie)).status, 200);
    const mine = (await request(srv, '/api/session', asLearner(ada.cookie))).json;
    const theirs = (await request(srv, '/api/session', asLearner(bob.cookie))).json;
    assert.equal(mine.runs.length, 1);
    assert.equal(theirs.name, 'Bob');
    assert.deepEqual(theirs.runs, []);
    assert.deepEqual(theirs.quiz, []);
    // Ada's run by id: hers to read; for Bob it does not exist.
    const id = mine.runs[0].id;
    const own = await request(srv, `/api/runs/${id}`, asLearner(ada.cookie));
    assert.equal(own.status, 200, own.text);
    assertError(await request(srv, `/api/runs/${id}`, asLearner(bob.cookie)), 404, 'unknown_run');
    assertError(await request(srv, `/api/runs/${id}`, { method: 'DELETE', ...asLearner(bob.cookie) }), 404, 'unknown_run');
    assertError(await request(srv, `/api/runs/${id}`), 401, 'no_session');
    // Bob leaving does not end Ada's session.
    assert.equal((await request(srv, '/api/class/leave', { method: 'POST', ...asLearner(bob.cookie) })).status, 200);
    assert.equal((await request(srv, '/api/session', asLearner(ada.cookie))).status, 200);
  }));

test('isolation_replayed_cookie_after_leave_is_refused_everywhere', T, () =>
  withClass({}, async (srv) => {
    const ada = await joinAs(srv, 'Ada');
    assert.equal((await simulate(srv, ada.cookie)).status, 200);
    const id = (await request(srv, '/api/session', asLearner(ada.cookie))).json.runs[0].id;
    assert.equal((await request(srv, '/api/class/leave', { method: 'POST', ...asLearner(ada.cookie) })).status, 200);
    assertError(await request(srv, '/api/session', asLearner(ada.cookie)), 401, 'no_session');
    assertError(await simulate(srv, ada.cookie), 401, 'no_session');
    assertError(await quizAttempt(srv, ada.cookie), 401, 'no_session');
    assertError(await request(srv, `/api/runs/${id}`, asLearner(ada.cookie)), 401, 'no_session');
    // Joining again gives a new session that does not inherit the old runs.
    const again = await joinAs(srv, 'Ada');
    assert.notEqual(again.token, ada.token);
    assert.deepEqual((await request(srv, '/api/session', asLearner(again.cookie))).json.runs, []);
  }));

test('isolation_instructor_view_needs_the_instructor_token', T, () =>
  withClass({}, async (srv) => {
    const ada = await joinAs(srv, 'Ada');
    const path = '/api/instructor/class';
    assertError(await request(srv, path), 401, 'instructor_only');
    const wrong = randomBytes(32).toString('hex');
    assertError(await request(srv, path, asInstructor(wrong)), 401, 'instructor_only');
    // One character off, a prefix, the learner's own token, other schemes.
    const t = srv.instructorToken;
    const offByOne = t.slice(0, -1) + (t.endsWith('0') ? '1' : '0');
    for (const bad of [offByOne, t.slice(0, 32), ada.token, `${t}00`])
      assertError(await request(srv, path, asInstructor(bad)), 401, 'instructor_only');
    assertError(await request(srv, path, { headers: { Authorization: `Basic ${t}` } }), 401, 'instructor_only');
    assertError(await request(srv, path, asLearner(ada.cookie)), 401, 'instructor_only');
    // A token in the URL is never accepted.
    assertError(await request(srv, `${path}?token=${t}`), 401, 'instructor_only');
    const ok = await request(srv, path, asInstructor(t));
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await request(srv, path, { headers: { Authorization: `bearer ${t}` } })).status, 200, 'scheme is case-insensitive');
  }));

test('isolation_instructor_token_from_the_environment', T, () => {
  const token = `class-secret-${randomBytes(12).toString('hex')}`;
  return withClass({ env: { GPULAB_INSTRUCTOR_TOKEN: token } }, async (srv) => {
    assert.ok(!srv.stdout().includes(token), 'a token given by the environment is not printed');
    assert.equal((await request(srv, '/api/instructor/class', asInstructor(token))).status, 200);
    assertError(await request(srv, '/api/instructor/class', asInstructor(`${token}x`)), 401, 'instructor_only');
  });
});

test('isolation_no_token_reaches_the_log', T, () =>
  withClass({}, async (srv) => {
    const ada = await joinAs(srv, 'Ada');
    await simulate(srv, ada.cookie);
    await request(srv, '/api/session', asLearner(ada.cookie));
    await request(srv, '/api/instructor/class', asInstructor(srv.instructorToken));
    await request(srv, `/api/session?token=${ada.token}`, asLearner(ada.cookie));
    await rawRequest(srv.port, `GET /api/instructor/class HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${srv.instructorToken}\r\nConnection: close\r\n\r\n`);
    await request(srv, '/api/class/leave', { method: 'POST', ...asLearner(ada.cookie) });
    await waitForStderr(srv, (t) => /path=\/api\/class\/leave status=/.test(t), { what: 'log line of the leave' });
    const log = srv.stderr();
    assert.ok(log.includes('/api/session'), 'requests were logged');
    assert.ok(!log.includes(ada.token), 'no session token in the log');
    assert.ok(!log.includes(srv.instructorToken), 'no instructor token in the log');
    assert.ok(!log.includes(srv.joinCode) && !log.includes(srv.joinCode.replace('-', '')), 'no join code in the log');
    // stdout names the instructor token once, on its own line, and nothing else secret.
    assert.equal(srv.stdout().split(srv.instructorToken).length - 1, 1);
    assert.ok(!srv.stdout().includes(ada.token));
  }));
