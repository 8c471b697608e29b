// /api/openapi.json describes the API as it answers: every route is in it,
// and real responses — successes and error envelopes, plain and class mode —
// are walked against it: each status must be documented for its operation
// and each JSON body must match the documented schema (a small validator
// of the OpenAPI 3.0 schema subset the document uses). Every operation of
// the document is exercised at least once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { withServer, request, rawRequest } from './lib.mjs';
import { withClass, joinAs, asLearner, asInstructor } from './class_lib.mjs';
import { fakeGpu, waitRun } from './queue_lib.mjs';

const T = { timeout: 60000 };

function resolve(doc, ref) {
  return ref.slice(2).split('/').reduce((o, k) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

// Returns a list of problems ("" path = the root of the value).
function validate(doc, schema, value, where = '$', out = []) {
  if (schema.$ref) return validate(doc, resolve(doc, schema.$ref), value, where, out);
  if (value === null) {
    if (!schema.nullable && schema.type) out.push(`${where}: null is not allowed`);
    return out;
  }
  const type = Array.isArray(value) ? 'array' : typeof value;
  const ok = { string: type === 'string', boolean: type === 'boolean', object: type === 'object', array: type === 'array',
    number: type === 'number', integer: type === 'number' && Number.isInteger(value) };
  if (schema.type && !ok[schema.type]) return out.push(`${where}: ${JSON.stringify(value)?.slice(0, 60)} is not ${schema.type}`), out;
  if (schema.enum && !schema.enum.includes(value)) out.push(`${where}: ${JSON.stringify(value)} is not one of ${schema.enum.join(', ')}`);
  if (schema.oneOf && schema.oneOf.filter((s) => validate(doc, s, value, where).length === 0).length !== 1)
    out.push(`${where}: matches not exactly one of oneOf`);
  if (type === 'object') {
    for (const k of schema.required ?? []) if (!(k in value)) out.push(`${where}: ${k} is missing`);
    for (const [k, v] of Object.entries(value)) {
      if (schema.properties?.[k]) validate(doc, schema.properties[k], v, `${where}.${k}`, out);
      else if (schema.additionalProperties === false) out.push(`${where}: ${k} is not documented`);
      else if (typeof schema.additionalProperties === 'object') validate(doc, schema.additionalProperties, v, `${where}.${k}`, out);
    }
  }
  if (type === 'array' && schema.items) value.forEach((v, i) => validate(doc, schema.items, v, `${where}[${i}]`, out));
  if (type === 'array' && schema.minItems !== undefined && value.length < schema.minItems) out.push(`${where}: too short`);
  return out;
}

// The document's operation for a concrete method and path ("/api/runs/7" → "/api/runs/{id}").
function operationOf(doc, method, path) {
  const bare = path.split('?')[0];
  for (const [tpl, item] of Object.entries(doc.paths)) {
    const re = new RegExp(`^${tpl.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (re.test(bare)) return { tpl, op: item[method.toLowerCase() === 'head' ? 'get' : method.toLowerCase()], key: `${method} ${tpl}` };
  }
  return null;
}

// Checks one real answer against the document; records the operation as seen.
function check(doc, seen, method, path, res) {
  const found = operationOf(doc, method, path);
  assert.ok(found, `${method} ${path}: no documented path`);
  const { op, key, tpl } = found;
  if (!op) {
    // A method the path does not have: 405, with the error envelope.
    assert.equal(res.status, 405, `${method} ${tpl} is undocumented and answered ${res.status}`);
  } else {
    seen.add(key);
    const documented = op.responses[String(res.status)] ?? op.responses.default;
    assert.ok(documented, `${key}: status ${res.status} is not documented`);
    const response = documented.$ref ? resolve(doc, documented.$ref) : documented;
    for (const [h, spec] of Object.entries(response.headers ?? {})) {
      const required = spec.required || (spec.$ref && resolve(doc, spec.$ref).required);
      if (required) assert.ok(res.headers.get(h), `${key} ${res.status}: header ${h} is documented as required`);
    }
    const json = response.content?.['application/json'];
    if (json && method !== 'HEAD') {
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `${key} ${res.status}: content type`);
      const problems = validate(doc, json.schema, res.json);
      assert.deepEqual(problems, [], `${key} ${res.status}: ${res.text.slice(0, 200)}`);
    }
  }
  if (res.status >= 400 && method !== 'HEAD' && /^application\/json/.test(res.headers.get('content-type') ?? ''))
    assert.deepEqual(validate(doc, { $ref: '#/components/schemas/Error' }, res.json), [], `${method} ${path}: error envelope`);
}

async function walk(srv, doc, seen, list) {
  for (const [method, path, opts = {}] of list) {
    const res = await request(srv, path, { method, ...opts });
    check(doc, seen, method, path, res);
  }
}

test('openapi_lists_every_route_and_the_servers_own_codes', T, () =>
  withServer({}, async (srv) => {
    const r = await request(srv, '/api/openapi.json');
    assert.equal(r.status, 200);
    const doc = r.json;
    assert.match(doc.openapi, /^3\./);
    assert.equal(doc.info.version, (await request(srv, '/api/health')).json.version);
    const paths = Object.keys(doc.paths).sort();
    assert.deepEqual(paths, ['/', '/api/class/join', '/api/class/leave', '/api/class/simulated', '/api/device', '/api/doctor', '/api/experiments',
      '/api/experiments/{name}', '/api/explain', '/api/health', '/api/instructor/attempts', '/api/instructor/class', '/api/lessons', '/api/lessons/{id}',
      '/api/lessons/{id}/quiz', '/api/openapi.json', '/api/profiles', '/api/runs/{id}', '/api/session', '/metrics']);
    const codes = doc.components.schemas.ErrorCode.enum;
    for (const c of ['invalid_json', 'too_many_connections', 'request_timeout', 'too_many_queued', 'store_unavailable'])
      assert.ok(codes.includes(c), c);
    const names = doc.components.schemas.ExperimentName.enum;
    assert.deepEqual(names, (await request(srv, '/api/experiments')).json.experiments.map((e) => e.name));
  }));

test('real_answers_match_the_document_without_a_class', T, () =>
  withServer({}, async (srv) => {
    const doc = (await request(srv, '/api/openapi.json')).json;
    const seen = new Set();
    const sim = { body: { backend: 'simulated', profile: 't4' } };
    await walk(srv, doc, seen, [
      ['GET', '/api/health'], ['HEAD', '/api/health'], ['DELETE', '/api/health'], ['GET', '/api/device'],
      ['GET', '/api/experiments'], ['GET', '/api/experiments/timing'], ['GET', '/api/experiments/nope'],
      ['POST', '/api/experiments/timing', sim], ['POST', '/api/experiments/transfer', sim],
      ['POST', '/api/experiments/memory', sim], ['POST', '/api/experiments/train_step', sim],
      ['POST', '/api/experiments/transfer', { body: { backend: 'simulated', profile: 'm1-pro' } }],
      ['POST', '/api/experiments/timing', { body: { params: { size: 1 } } }],
      ['POST', '/api/experiments/timing', { body: '{"params":' }],
      ['POST', '/api/experiments/timing', { body: '{}', headers: { 'Content-Type': 'text/plain' } }],
      ['POST', '/api/experiments/timing', { body: 'x'.repeat(70000) }],
      ['GET', '/api/profiles'], ['GET', '/api/lessons'], ['GET', '/api/lessons/x'], ['GET', '/api/lessons/nope'],
      ['POST', '/api/lessons/x/quiz', { body: { answers: {} } }],
      ['GET', '/api/openapi.json'], ['GET', '/metrics'], ['GET', '/'],
      ['POST', '/api/class/join', { body: { code: 'ABCD-EFGH', name: 'Ada' } }], ['GET', '/api/session'],
      ['POST', '/api/class/simulated', { body: { experiment: 'timing' } }],
      ['POST', '/api/class/leave'], ['GET', '/api/instructor/class'], ['GET', '/api/runs/1'], ['DELETE', '/api/runs/1'],
      ['POST', '/api/explain', { body: 'RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.76 GiB total capacity; 7.35 GiB already allocated; 9.56 MiB free; 9.91 GiB reserved in total by PyTorch)', headers: { 'Content-Type': 'text/plain' } }],
      ['POST', '/api/explain', { body: 'hello', headers: { 'Content-Type': 'text/plain' } }],
      ['POST', '/api/explain', { body: ' ', headers: { 'Content-Type': 'text/plain' } }],
      ['POST', '/api/explain', { body: 'x'.repeat(262145), headers: { 'Content-Type': 'text/plain' } }],
      ['POST', '/api/explain', { body: {} }], ['GET', '/api/explain'],
      ['POST', '/api/doctor', { body: readFileSync(new URL('../doctor/fixtures/idle_item.json', import.meta.url), 'utf8') }],
      ['POST', '/api/doctor', { body: '{"traceEvents":[' }], ['POST', '/api/doctor', { body: 'hello' }],
    ]);
    // CivetWeb's own answer to a request it cannot parse is an error envelope too.
    const garbage = await rawRequest(srv.port, 'GARBAGE\r\n\r\n');
    assert.deepEqual(validate(doc, { $ref: '#/components/schemas/Error' }, JSON.parse(garbage.body)), []);
    assert.ok(seen.size >= 14, `operations exercised: ${[...seen].join(', ')}`);
  }));

test('real_answers_match_the_document_in_a_class', T, () =>
  withClass({ env: fakeGpu(100), args: ['--runs-per-minute', '60'] }, async (srv) => {
    const doc = (await request(srv, '/api/openapi.json')).json;
    const seen = new Set();
    const join = await request(srv, '/api/class/join', { method: 'POST', body: { code: srv.joinCode, name: 'Ada' } });
    check(doc, seen, 'POST', '/api/class/join', join);
    const a = await joinAs(srv, 'Bo');
    const me = asLearner(a.cookie);
    const queued = await request(srv, '/api/experiments/timing', { method: 'POST', body: { backend: 'cuda' }, ...me });
    check(doc, seen, 'POST', '/api/experiments/timing', queued);
    assert.equal(queued.status, 202);
    const id = queued.json.run.id;
    await waitRun(srv, a.cookie, id);
    await walk(srv, doc, seen, [
      ['GET', `/api/runs/${id}`, me], ['DELETE', `/api/runs/${id}`, me], ['GET', '/api/runs/999999', me],
      ['GET', `/api/runs/${id}`], ['POST', '/api/experiments/timing', { body: { backend: 'simulated' }, ...me }],
      ['POST', '/api/experiments/timing', { body: { backend: 'simulated' } }],
      ['POST', '/api/lessons/x/quiz', { body: { answers: { q1: ['a'] } }, ...me }],
      ['GET', '/api/session', me], ['GET', '/api/session'],
      ['POST', '/api/class/simulated', { body: { experiment: 'timing' }, ...me }],
      ['POST', '/api/class/simulated', { body: { experiment: 'nope' }, ...me }],
      ['POST', '/api/class/simulated', { body: { experiment: 'timing' } }],
      ['GET', '/api/instructor/class', asInstructor(srv.instructorToken)], ['GET', '/api/instructor/class', asInstructor('nope')],
      ['GET', '/api/instructor/attempts?learner=1&page=1&per_page=2', asInstructor(srv.instructorToken)],
      ['GET', '/api/instructor/attempts?learner=1&page=0', asInstructor(srv.instructorToken)],
      ['POST', '/api/class/join', { body: { code: 'WRNG-CODE', name: 'Eve' } }],
      ['POST', '/api/class/join', { body: { code: srv.joinCode, name: '' } }],
      ['POST', '/api/class/leave', me], ['POST', '/api/class/leave', me],
    ]);
    // A cancel that succeeds: a run queued behind another.
    const busy = await request(srv, '/api/experiments/timing', { method: 'POST', body: { backend: 'cuda' }, ...asLearner(join.headers.get('set-cookie').match(/gpulab_session=[0-9a-f]{64}/)[0]) });
    const b = await joinAs(srv, 'Cy');
    const waiting = await request(srv, '/api/experiments/timing', { method: 'POST', body: { backend: 'cuda' }, ...asLearner(b.cookie) });
    const cancel = await request(srv, `/api/runs/${waiting.json.run.id}`, { method: 'DELETE', ...asLearner(b.cookie) });
    check(doc, seen, 'DELETE', `/api/runs/${waiting.json.run.id}`, cancel);
    assert.ok([200, 409].includes(cancel.status));
    assert.equal(busy.status, 202);
    // Every operation of the document has now met a real answer.
    const all = Object.entries(doc.paths).flatMap(([tpl, item]) => Object.keys(item).filter((m) => m !== 'parameters').map((m) => `${m.toUpperCase()} ${tpl}`));
    const plain = ['GET /api/health', 'GET /api/device', 'GET /api/experiments', 'GET /api/experiments/{name}', 'GET /api/profiles',
      'GET /api/lessons', 'GET /api/lessons/{id}', 'GET /api/openapi.json', 'GET /metrics', 'GET /', 'POST /api/explain', 'POST /api/doctor'];
    const missing = all.filter((k) => !seen.has(k) && !plain.includes(k));
    assert.deepEqual(missing, [], 'operations only the plain-mode walk exercises are listed in `plain`');
  }));
