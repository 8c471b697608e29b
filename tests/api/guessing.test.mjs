// Guessing is bounded: wrong join codes and wrong instructor tokens count
// in budgets of their own (60 a minute per address, then one a second), so
// a code cannot be tried thousands of times a second; the comparison comes
// first, so the right code or token still gets in from the same address.
// Right joins are limited by the class's join window, never by address;
// malformed bodies count as neither. Every 429 carries Retry-After.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, request } from './lib.mjs';
import { withClass, asInstructor } from './class_lib.mjs';

const T = { timeout: 60000 };
const BURST = 60;
const post = (srv, body, opts = {}) => request(srv, '/api/class/join', { method: 'POST', body, ...opts });

test('malformed_bodies_are_not_guesses_and_joins_wait_only_for_the_class_window', T, () =>
  withClass({ args: ['--class-size', String(BURST), '--join-rate', '1'] }, async (srv) => {
    for (let i = 0; i < 100; i++) {
      const bad = i % 2 ? '{"code":' : { code: srv.joinCode, name: '' };
      assertError(await post(srv, bad), 400, i % 2 ? 'invalid_json' : 'invalid_param');
    }
    // The bucket refills one a second while they join: a slow machine lets a few more in.
    let joined = 0;
    let r;
    for (; joined < 300; joined++) {
      r = await post(srv, { code: srv.joinCode, name: `Learner ${joined}` });
      if (r.status !== 200) break;
    }
    assert.ok(joined >= BURST && joined < BURST + 60, `joined before the throttle: ${joined}`);
    assertError(r, 429, 'rate_limited');
    // None of the malformed bodies was counted as a guess.
    assertError(await post(srv, { code: 'ZZZZ-2345', name: 'Eve' }), 403, 'bad_join_code');
    const after = Number(r.headers.get('retry-after'));
    assert.ok(after >= 1 && after <= 2, `the bucket refills one a second: Retry-After ${r.headers.get('retry-after')}`);
    // Once the bucket has refilled, the next learner gets in: until then it
    // is refused with the same code and a Retry-After that only shrinks.
    let late;
    for (let i = 0; i < 400; i++) {
      late = await post(srv, { code: srv.joinCode, name: 'Late but welcome' });
      if (late.status !== 429) break;
      assertError(late, 429, 'rate_limited');
      const left = Number(late.headers.get('retry-after'));
      assert.ok(left >= 1 && left <= after, `still refused: Retry-After ${late.headers.get('retry-after')}`);
      await new Promise((res) => setTimeout(res, 25)); // a poll, not the wait: the refill is the event
    }
    assert.equal(late.status, 200, late.text.slice(0, 200));
  }));

test('wrong_join_codes_are_throttled_per_address', T, () =>
  withClass({ args: ['--join-code', 'ABCD-EFGH'] }, async (srv) => {
    let guesses = 0;
    let r;
    for (; guesses < 200; guesses++) {
      r = await post(srv, { code: `ZZZZ-${String(guesses).padStart(4, '2').replace(/[01]/g, '3')}`, name: 'Eve' });
      if (r.status !== 403) break;
      assertError(r, 403, 'bad_join_code');
    }
    assert.ok(guesses >= BURST && guesses < BURST + 60, `wrong codes before the throttle: ${guesses}`);
    assertError(r, 429, 'rate_limited');
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
    // Others' guesses never refuse the right code, even from the same address.
    assert.equal((await post(srv, { code: 'ABCD-EFGH', name: 'Ada' })).status, 200);
  }));

test('wrong_instructor_tokens_are_throttled_per_address', T, () =>
  withClass({}, async (srv) => {
    const view = (token) => request(srv, '/api/instructor/class', asInstructor(token));
    assert.equal((await view(srv.instructorToken)).status, 200);
    let guesses = 0;
    let r;
    for (; guesses < 200; guesses++) {
      r = await view('f'.repeat(64));
      if (r.status !== 401) break;
    }
    assert.ok(guesses >= BURST && guesses < BURST + 60, `wrong tokens before the throttle: ${guesses}`);
    assertError(r, 429, 'rate_limited');
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
    assert.equal((await view(srv.instructorToken)).status, 200, 'the right token is never refused');
    // Asking without any token is not a guess, and is never throttled.
    assertError(await request(srv, '/api/instructor/class'), 401, 'instructor_only');
  }));
