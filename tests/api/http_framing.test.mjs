// The HTTP edge: same origin only (no CORS headers, a CORS preflight is not
// granted), JSON bodies only with Content-Type: application/json, requests
// whose framing two parsers could read differently are refused (two
// lengths, a length beside chunked, spaces before a colon, more headers
// than CivetWeb keeps), headers past 16 KiB are 431, and the answers
// CivetWeb itself gives to requests it cannot parse carry our JSON error
// envelope like every other error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withServer, rawRequest, request, assertError } from './lib.mjs';

const T = { timeout: 30000 };

// rawRequest's answer in the shape assertError reads.
const asRes = (a) => ({ status: a.status, headers: a.headers, text: a.body, json: JSON.parse(a.body) });

test('a_cross_origin_preflight_gets_no_allow_origin', T, () =>
  withServer({}, async (srv) => {
    for (const path of ['/api/experiments/timing', '/api/class/join', '/api/lessons/x/quiz', '/']) {
      const r = await rawRequest(srv.port,
        `OPTIONS ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\n` +
        'Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n\r\n');
      assert.notEqual(r.status, 200, `${path}: a preflight is not granted`);
      for (const h of Object.keys(r.headers)) assert.ok(!h.startsWith('access-control-'), `${path}: ${h} sent`);
    }
    const get = await request(srv, '/api/health', { headers: { Origin: 'http://evil.example' } });
    assert.equal(get.status, 200);
    assert.equal(get.headers.get('access-control-allow-origin'), null, 'no CORS header on a plain answer');
  }));

test('a_post_from_another_origin_is_403_cross_origin', T, () =>
  withServer({}, async (srv) => {
    const body = { backend: 'simulated' };
    for (const origin of ['http://evil.example', 'null', `http://127.0.0.1:${srv.port + 1}`]) {
      const r = await request(srv, '/api/experiments/timing', { method: 'POST', body, headers: { Origin: origin } });
      assertError(r, 403, 'cross_origin');
    }
    // The server's own pages may, over HTTP or behind a proxy ending TLS.
    for (const origin of [srv.url, `https://127.0.0.1:${srv.port}`]) {
      const r = await request(srv, '/api/experiments/timing', { method: 'POST', body, headers: { Origin: origin } });
      assert.equal(r.status, 200, `${origin}: ${r.text.slice(0, 200)}`);
    }
    // Reading is not refused (without CORS headers another page cannot read the answer anyway).
    assert.equal((await request(srv, '/api/health', { headers: { Origin: 'http://evil.example' } })).status, 200);
  }));

test('a_json_body_without_content_type_is_415', T, () =>
  withServer({}, async (srv) => {
    const body = '{"backend":"simulated"}';
    const none = await rawRequest(srv.port,
      `POST /api/experiments/timing HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    const e = assertError(asRes(none), 415, 'unsupported_media_type');
    assert.match(e.message, /Content-Type: application\/json/);
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp', 'multipart/form-data; boundary=x'])
      assertError(await request(srv, '/api/experiments/timing', { method: 'POST', body, headers: { 'Content-Type': ct } }),
        415, 'unsupported_media_type');
    const ok = await request(srv, '/api/experiments/timing',
      { method: 'POST', body, headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    assert.equal(ok.status, 200, ok.text.slice(0, 200));
    // No body at all is no JSON body: the defaults run.
    const empty = await rawRequest(srv.port, 'POST /api/experiments/device HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n');
    assert.equal(empty.status, 200, empty.body.slice(0, 200));
  }));

test('two_content_lengths_or_a_malformed_one_are_400', T, () =>
  withServer({}, async (srv) => {
    const head = 'POST /api/experiments/timing HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n';
    for (const lengths of ['Content-Length: 2\r\nContent-Length: 30\r\n', 'Content-Length: 2\r\nContent-Length: 2\r\n',
      'Content-Length: 2abc\r\n', 'Content-Length: 0x2\r\n']) {
      const r = await rawRequest(srv.port, `${head}${lengths}\r\n{}`);
      assertError(asRes(r), 400, 'bad_request');
    }
    const both = await rawRequest(srv.port, `${head}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`);
    assertError(asRes(both), 400, 'bad_request');
  }));

test('civetweb_own_errors_carry_the_json_envelope', T, () =>
  withServer({}, async (srv) => {
    assertError(asRes(await rawRequest(srv.port, 'GARBAGE\r\n\r\n')), 400, 'bad_request');
    const neg = await rawRequest(srv.port, 'POST /api/experiments/timing HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n');
    assertError(asRes(neg), 411, 'length_required');
    // Headers past 16 KiB are 431, as docs/api.md says, in one header or
    // in many (CivetWeb itself calls them malformed: 400 blaming the
    // request line, until the socket's count of bytes read tells them apart).
    for (const headers of [`X-Big: ${'a'.repeat(20000)}\r\n`, Array.from({ length: 60 }, (_, i) => `X-H${i}: ${'b'.repeat(300)}\r\n`).join('')]) {
      const big = await rawRequest(srv.port, `GET /api/health HTTP/1.1\r\nHost: x\r\n${headers}\r\n`);
      const e = assertError(asRes(big), 431, 'headers_too_large');
      assert.match(e.message, /16 KiB/);
    }
    // Headers that stop half-way are answered once the read timeout passes.
    const half = await rawRequest(srv.port, 'GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ', { timeoutMs: 15000 });
    assertError(asRes(half), 400, 'bad_request');
    assert.equal((await request(srv, '/api/health')).status, 200, 'still up');
  }));

// RFC 9112 (5.1): no whitespace between a header's name and its colon, and
// a server must refuse it. CivetWeb drops such spaces and read
// "Transfer-Encoding : chunked" as chunked, where a proxy in front may read
// no Transfer-Encoding at all: the two would disagree on where the body ends.
test('a_header_with_spaces_before_its_colon_is_400', T, () =>
  withServer({}, async (srv) => {
    const head = 'POST /api/experiments/timing HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n';
    for (const framing of ['Transfer-Encoding : chunked\r\n\r\n17\r\n{"backend":"simulated"}\r\n0\r\n\r\n',
      'Transfer-Encoding  : chunked\r\n\r\n17\r\n{"backend":"simulated"}\r\n0\r\n\r\n',
      'Content-Length : 23\r\n\r\n{"backend":"simulated"}',
      'Content-Length: 23\r\nX-Empty :\r\n\r\n{"backend":"simulated"}']) {
      const r = await rawRequest(srv.port, head + framing);
      const e = assertError(asRes(r), 400, 'bad_request');
      assert.match(e.message, /colon/, JSON.stringify(framing.split('\r\n')[0]));
    }
    assertError(asRes(await rawRequest(srv.port, 'GET /api/health HTTP/1.1\r\nHost : x\r\n\r\n')), 400, 'bad_request');
    // An empty value, and spaces after the colon, are fine.
    const ok = await rawRequest(srv.port, `${head}X-Empty:\r\nContent-Length:    23\r\n\r\n{"backend":"simulated"}`);
    assert.equal(ok.status, 200, ok.body.slice(0, 200));
  }));

// CivetWeb keeps 64 headers and drops the rest unread, where a proxy in
// front reads them all (a Content-Length among them would frame the body
// for it and not here): 64 or more are refused.
test('sixty_four_headers_or_more_are_431', T, () =>
  withServer({}, async (srv) => {
    const many = (n) => Array.from({ length: n }, (_, i) => `X-H${i}: v\r\n`).join('');
    const fine = await rawRequest(srv.port, `GET /api/health HTTP/1.1\r\nHost: x\r\n${many(62)}\r\n`);
    assert.equal(fine.status, 200, '63 headers are read');
    const r = await rawRequest(srv.port, `POST /api/experiments/timing HTTP/1.1\r\nHost: x\r\n${many(63)}` +
      'Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
    assertError(asRes(r), 431, 'headers_too_large');
  }));

test('a_post_or_put_without_content_length_is_411', T, () =>
  withServer({}, async (srv) => {
    // Read as an empty body, it would run the experiment with defaults the client never chose.
    for (const method of ['POST', 'PUT']) {
      const r = await rawRequest(srv.port, `${method} /api/experiments/timing HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n`);
      assertError(asRes(r), 411, 'length_required');
      assert.match(r.headers.connection ?? '', /close/i, `${method}: the connection closes after the answer`);
    }
    const chunked = await rawRequest(srv.port, 'POST /api/experiments/timing HTTP/1.1\r\nHost: x\r\n' +
      'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n17\r\n{"backend":"simulated"}\r\n0\r\n\r\n');
    assert.equal(chunked.status, 200, `chunked needs no length: ${chunked.body.slice(0, 200)}`);
  }));

test('absolute_form_and_asterisk_targets_get_a_400_answer', T, () =>
  withServer({}, async (srv) => {
    for (const line of [`GET http://127.0.0.1:${srv.port}/api/health HTTP/1.1`, 'GET http://example.com/api/health HTTP/1.1',
      'OPTIONS * HTTP/1.1']) {
      const r = await rawRequest(srv.port, `${line}\r\nHost: 127.0.0.1\r\n\r\n`);
      const e = assertError(asRes(r), 400, 'bad_request');
      assert.match(e.message, /path/, `${line}: says to send a path`);
    }
  }));

test('a_raw_space_or_control_byte_in_the_path_is_400_without_echoing_the_request', T, () =>
  withServer({}, async (srv) => {
    const secret = `gpulab_session=S${Date.now()}cret`;
    for (const line of ['GET /api/he alth HTTP/1.1', 'GET /api/health x HTTP/1.1', 'GET /api/health HTTP/1.1 x',
      'GET /api/he\x01alth HTTP/1.1', 'GET /api/health HTTP/9.9']) {
      const r = await rawRequest(srv.port, `${line}\r\nHost: x\r\nCookie: ${secret}\r\nX-Other: header-bytes\r\n\r\n`);
      assert.match(r.raw, /^HTTP\/1\.1 400 Bad Request\r\n/, `${JSON.stringify(line)}: ${JSON.stringify(r.raw.slice(0, 120))}`);
      assertError(asRes(r), 400, 'bad_request');
      assert.ok(!r.raw.includes(secret.slice(15)), `${JSON.stringify(line)}: the answer quotes the cookie`);
      assert.ok(!r.raw.includes('header-bytes'), `${JSON.stringify(line)}: the answer quotes a header`);
    }
  }));
