// Deeply nested JSON must never reach cJSON's recursive parser: a body of a
// thousand '[' once overflowed a CivetWeb thread's stack and killed the
// server. Every JSON endpoint, in plain and class mode, answers 400
// invalid_json to 1000, 5000 and 60000 levels (413 where that is over the
// endpoint's body limit) and the server stays up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request, withServer, startServer, assertError } from './lib.mjs';
import { withClass, makeClassDir, joinAs, asLearner } from './class_lib.mjs';

const T = { timeout: 60000 };
const DEPTHS = [1000, 5000, 60000];
const nested = (n, open = '[') => open.repeat(n);

// limit: the endpoint's body limit in bytes; a longer body is refused
// (413) before it is parsed at all, which is just as safe.
async function assertRejectsNesting(srv, path, { limit = 65536, ...opts } = {}) {
  for (const n of DEPTHS) {
    for (const open of n <= 5000 ? ['[', '{"a":'] : ['[']) {
      const body = nested(n, open);
      const r = await request(srv, path, { method: 'POST', body, ...opts });
      if (body.length > limit) {
        assertError(r, 413, 'body_too_large');
        continue;
      }
      assertError(r, 400, 'invalid_json');
      assert.match(r.json.error.message, /nests deeper than 64 levels/);
    }
  }
  // Closed nesting is just as deep and just as refused.
  const closed = '['.repeat(200) + ']'.repeat(200);
  assertError(await request(srv, path, { method: 'POST', body: closed, ...opts }), 400, 'invalid_json');
}

test('nesting_deeper_than_64_is_invalid_json_on_every_plain_endpoint', T, async () => {
  const dir = makeClassDir(); // a web root with lesson x's key beside it
  const srv = await startServer({ root: dir.root });
  try {
    await assertRejectsNesting(srv, '/api/experiments/timing');
    await assertRejectsNesting(srv, '/api/lessons/x/quiz');
    assert.equal((await request(srv, '/api/health')).status, 200, 'the server is still up');
    // A body nested within the bound is read as usual (and refused for its content).
    const ok = await request(srv, '/api/experiments/timing', {
      method: 'POST', body: `{"params":{"size":${'['.repeat(60)}${']'.repeat(60)}}}`,
    });
    assertError(ok, 400, 'invalid_param', 'size');
  } finally {
    await srv.stop();
    dir.cleanup();
  }
});

test('nesting_deeper_than_64_is_invalid_json_on_every_class_endpoint', T, () =>
  withClass({}, async (srv) => {
    await assertRejectsNesting(srv, '/api/class/join', { limit: 1024 });
    const { cookie } = await joinAs(srv, 'Ada');
    await assertRejectsNesting(srv, '/api/experiments/timing', asLearner(cookie));
    await assertRejectsNesting(srv, '/api/lessons/x/quiz', asLearner(cookie));
    assert.equal((await request(srv, '/api/health')).status, 200, 'the server is still up');
  }));

test('brackets_inside_strings_do_not_count_as_nesting', T, () =>
  withServer({}, async (srv) => {
    const s = '['.repeat(2000) + '\\"' + '{'.repeat(2000);
    const r = await request(srv, '/api/experiments/timing', { method: 'POST', body: `{"profile":"${s}","backend":"simulated"}` });
    assertError(r, 400, 'unknown_profile');
  }));
