// POST /api/lessons/ID/quiz against a real server: an attempt is scored
// against the server-only answer key (found beside the web root, or in
// --keys DIR), 7 of 9 passes at 75 % and 6 of 9 does not, and every bad
// request gets its stable error code. The key is written by the test, so
// the expected answers are known without reading the lesson.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withServer, request, rawRequest, assertError, assertSecurityHeaders } from './lib.mjs';

const T = { timeout: 20000 };
const LESSON = 'x'; // makeWebRoot's lesson

// Nine questions: q4 takes two options, the others one.
const KEY = {
  id: LESSON,
  pass_pct: 75,
  answers: Object.fromEntries(Array.from({ length: 9 }, (_, i) => {
    const id = `q${i + 1}`;
    return [id, { correct: id === 'q4' ? ['a', 'c'] : [['a', 'b', 'c', 'd'][i % 4]], explanation: `Because ${id}.` }];
  })),
};
const right = () => Object.fromEntries(Object.entries(KEY.answers).map(([q, k]) => [q, [...k.correct]]));
const wrongFor = (q) => (KEY.answers[q].correct.includes('d') ? ['b'] : ['d']);

// `n` right answers: the first n questions answered right, the rest wrong.
function answersWithRight(n) {
  const a = right();
  Object.keys(a).forEach((q, i) => { if (i >= n) a[q] = wrongFor(q); });
  return a;
}

// The server finds keys at <root>/../lessons by default; makeWebRoot's root
// is <base>/web, so the key goes to <base>/lessons.
function withQuizServer(opts, fn) {
  return withServer(opts, async (srv, web) => fn(srv, web));
}

function writeKey(dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${LESSON}.key.json`), JSON.stringify(KEY));
}

const score = (srv, body, opts = {}) => request(srv, `/api/lessons/${LESSON}/quiz`, { method: 'POST', body, ...opts });

// A web root whose keys sit at the default place; started per test.
async function defaultKeys(fn) {
  const base = mkdtempSync(join(tmpdir(), 'gpulab-quiz-'));
  const root = join(base, 'web');
  mkdirSync(join(root, 'lessons'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>quiz</title>\n');
  writeFileSync(join(root, 'lessons', 'index.json'), JSON.stringify({ lessons: [{ id: LESSON, title: 'X' }] }));
  writeFileSync(join(root, 'lessons', `${LESSON}.json`), JSON.stringify({ id: LESSON, title: 'X', sections: [] }));
  writeKey(join(base, 'lessons'));
  try {
    return await withQuizServer({ root }, fn);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

// A server given --keys DIR explicitly.
async function explicitKeys(fn) {
  const keys = mkdtempSync(join(tmpdir(), 'gpulab-keys-'));
  writeKey(keys);
  try {
    return await withQuizServer({ args: ['--keys', keys] }, fn);
  } finally {
    rmSync(keys, { recursive: true, force: true });
  }
}

test('all right: 9 of 9, each question marked with its answer and explanation', T, () =>
  defaultKeys(async (srv) => {
    const r = await score(srv, { answers: right() });
    assert.equal(r.status, 200, r.text);
    assertSecurityHeaders(r.headers);
    assert.match(r.headers.get('content-type'), /^application\/json/);
    const { score: s, total, pct, passed, pass_pct: passPct, questions } = r.json;
    assert.deepEqual({ s, total, pct, passed, passPct }, { s: 9, total: 9, pct: 100, passed: true, passPct: 75 });
    assert.equal(questions.length, 9);
    for (const q of questions) {
      assert.deepEqual(Object.keys(q).sort(), ['answer', 'correct', 'explanation', 'id', 'your']);
      assert.equal(q.correct, true);
      assert.deepEqual(q.answer, KEY.answers[q.id].correct);
      assert.equal(q.explanation, KEY.answers[q.id].explanation);
    }
  }));

test('wrong, partial and missing answers are each marked wrong', T, () =>
  explicitKeys(async (srv) => {
    const a = right();
    a.q1 = wrongFor('q1');
    a.q4 = ['a']; // half of a two-option answer is wrong
    delete a.q9; // left out
    const r = await score(srv, { answers: a });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.score, 6);
    const byId = Object.fromEntries(r.json.questions.map((q) => [q.id, q]));
    assert.equal(byId.q1.correct, false);
    assert.deepEqual(byId.q1.your, wrongFor('q1'));
    assert.deepEqual(byId.q1.answer, KEY.answers.q1.correct);
    assert.equal(byId.q4.correct, false);
    assert.equal(byId.q9.correct, false);
    assert.deepEqual(byId.q9.your, []);
    assert.equal(byId.q2.correct, true);
    // The order of a multi-answer does not matter.
    const r2 = await score(srv, { answers: { ...right(), q4: ['c', 'a'] } });
    assert.equal(r2.json.score, 9);
  }));

test('7 of 9 passes at 75 %, 6 of 9 does not', T, () =>
  explicitKeys(async (srv) => {
    const seven = await score(srv, { answers: answersWithRight(7) });
    assert.equal(seven.status, 200, seven.text);
    assert.equal(seven.json.score, 7);
    assert.equal(seven.json.passed, true);
    assert.equal(seven.json.pct, 77.8);
    const six = await score(srv, { answers: answersWithRight(6) });
    assert.equal(six.json.score, 6);
    assert.equal(six.json.passed, false);
    assert.equal(six.json.pct, 66.7);
    const none = await score(srv, { answers: {} });
    assert.equal(none.json.score, 0);
    assert.equal(none.json.passed, false);
  }));

test('an unknown question id is 400 invalid_param naming it', T, () =>
  explicitKeys(async (srv) => {
    assertError(await score(srv, { answers: { ...right(), q99: ['a'] } }), 400, 'invalid_param', 'q99');
  }));

test('answers that are not an object, or choices that are not arrays of ids, are 400 invalid_param', T, () =>
  explicitKeys(async (srv) => {
    for (const answers of [['a'], 'q1', 7, null])
      assertError(await score(srv, { answers }), 400, 'invalid_param', 'answers');
    assertError(await score(srv, {}), 400, 'invalid_param', 'answers');
    assertError(await score(srv, { answers: { q1: 'a' } }), 400, 'invalid_param', 'q1');
    assertError(await score(srv, { answers: { q1: [1] } }), 400, 'invalid_param', 'q1');
    assertError(await score(srv, { answers: { q1: ['a', 'a'] } }), 400, 'invalid_param', 'q1');
    assertError(await score(srv, { answers: right(), extra: 1 }), 400, 'invalid_param', 'extra');
  }));

test('a body that is not one JSON object is 400 invalid_json', T, () =>
  explicitKeys(async (srv) => {
    const body = JSON.stringify({ answers: right() });
    assertError(await score(srv, body + ' garbage'), 400, 'invalid_json');
    assertError(await score(srv, body + '{}'), 400, 'invalid_json');
    assertError(await score(srv, '{"answers":'), 400, 'invalid_json');
    assertError(await score(srv, '[]'), 400, 'invalid_json');
    assertError(await score(srv, ''), 400, 'invalid_json');
  }));

test('an unknown lesson is 404 unknown_lesson', T, () =>
  explicitKeys(async (srv) => {
    const r = await request(srv, '/api/lessons/no-such-lesson/quiz', { method: 'POST', body: { answers: {} } });
    assertError(r, 404, 'unknown_lesson', 'id');
    const bad = await request(srv, '/api/lessons/BAD_ID/quiz', { method: 'POST', body: { answers: {} } });
    assertError(bad, 404, 'unknown_lesson', 'id');
  }));

test('GET on the quiz is 405 with Allow: POST', T, () =>
  explicitKeys(async (srv) => {
    const r = await request(srv, `/api/lessons/${LESSON}/quiz`);
    assertError(r, 405, 'method_not_allowed');
    assert.match(r.headers.get('allow') ?? '', /POST/);
  }));

test('a body over 64 KiB is 413 body_too_large', T, () =>
  explicitKeys(async (srv) => {
    const big = JSON.stringify({ answers: right(), pad: 'x'.repeat(70 * 1024) });
    assertError(await score(srv, big), 413, 'body_too_large');
    // Declared too large: refused on the header alone.
    const r = await rawRequest(srv.port, `POST /api/lessons/${LESSON}/quiz HTTP/1.1\r\nHost: x\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${10 * 1024 * 1024}\r\nConnection: close\r\n\r\n{`);
    assert.equal(r.status, 413);
    assert.equal(JSON.parse(r.body).error.code, 'body_too_large');
  }));

test('the public lesson bundle carries no answer key', T, () =>
  defaultKeys(async (srv) => {
    const r = await request(srv, `/api/lessons/${LESSON}`);
    assert.equal(r.status, 200);
    assert.ok(!r.text.includes('Because q1'), 'no explanation leaks');
    assert.ok(!('key' in r.json));
    const key = await request(srv, `/lessons/${LESSON}.key.json`);
    assert.equal(key.status, 404, 'the key file is outside the web root');
  }));
