// Text from outside must be well-formed UTF-8: invalid bytes in a key or a
// profile name are refused (400 invalid_json), never echoed raw into an
// answer; every answer stays valid UTF-8 even when its message quotes input
// cut at a byte count; display names refuse surrogates, overlong forms and
// the bidi controls that can make one name look like another.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withServer, assertError, request } from './lib.mjs';
import { withClass, joinAs } from './class_lib.mjs';

const T = { timeout: 30000 };
const strict = new TextDecoder('utf-8', { fatal: true });

// POSTs raw bytes as JSON; the answer must decode as strict UTF-8.
async function postBytes(srv, path, bytes) {
  const res = await fetch(srv.url + path, {
    method: 'POST', body: bytes, headers: { 'Content-Type': 'application/json' }, signal: AbortSignal.timeout(10000),
  });
  const raw = new Uint8Array(await res.arrayBuffer());
  const text = strict.decode(raw); // throws on invalid UTF-8
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
}

const bytes = (...parts) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

test('invalid_utf8_in_keys_and_profile_names_is_refused_not_echoed', T, () =>
  withServer({}, async (srv) => {
    const cases = [
      bytes('{"params":{"si', [0xc0, 0xaf], 'ze":1}}'), // overlong '/'
      bytes('{"backend":"simulated","profile":"t', [0xff], '4"}'), // a byte that is never UTF-8
      bytes('{"params":{"', [0xed, 0xa0, 0x80], '":1}}'), // a surrogate, raw
      bytes('{"profile":"', [0xe2, 0x82], '"}'), // cut short
    ];
    for (const body of cases) {
      const r = await postBytes(srv, '/api/experiments/timing', body);
      const e = assertError(r, 400, 'invalid_json');
      assert.match(e.message, /UTF-8/);
    }
    const lone = await postBytes(srv, '/api/experiments/timing', bytes('{"profile":"\\ud800"}'));
    assertError(lone, 400, 'invalid_json');
  }));

test('messages_that_quote_input_cut_mid_character_stay_valid_utf8', T, () =>
  withServer({}, async (srv) => {
    // 39 ASCII bytes and a euro sign: the message quotes 40 bytes of it.
    const key = 'k'.repeat(39) + '€€';
    const r = await postBytes(srv, '/api/experiments/timing', bytes(JSON.stringify({ params: { [key]: 1 } })));
    assertError(r, 400, 'invalid_param');
    const p = await postBytes(srv, '/api/experiments/timing',
      bytes(JSON.stringify({ backend: 'simulated', profile: 'p'.repeat(39) + '€' })));
    assertError(p, 400, 'unknown_profile');
  }));

test('display_names_refuse_surrogates_overlongs_and_bidi_overrides', T, () =>
  withClass({}, async (srv) => {
    const join = (name) => request(srv, '/api/class/join', { method: 'POST', body: { code: srv.joinCode, name } });
    for (const name of ['Ada\u202eecafevol', '\u2066Bob\u2069', 'Eve\u200f', 'line\u2028break', 'tab\there', '\u0085next'])
      assertError(await join(name), 400, 'invalid_param', 'name');
    const raw = await postBytes(srv, '/api/class/join',
      bytes(`{"code":"${srv.joinCode}","name":"Ad`, [0xc1, 0x81], '"}')); // overlong 'A'
    assertError(raw, 400, 'invalid_json');
    const sur = await postBytes(srv, '/api/class/join', bytes(`{"code":"${srv.joinCode}","name":"\\udc00"}`));
    assertError(sur, 400, 'invalid_json');
    const ok = await joinAs(srv, 'Zoë 李 שלום');
    assert.equal(ok.res.json.session.name, 'Zoë 李 שלום', 'letters of any script are welcome');
  }));
