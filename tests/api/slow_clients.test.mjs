// Slow and idle clients must not take the server from everyone else: one
// address holds at most its share of the threads (the rest of its
// connections are refused at once with 429 too_many_connections), a body
// must arrive at a minimum rate (else 408), and a body shorter than its
// Content-Length is answered 400 instead of being served as complete.
// Bounded: at most 80 sockets, each test well under 30 s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { withServer, assertError, request } from './lib.mjs';
import { withClass } from './class_lib.mjs';

const T = { timeout: 60000 };
const SHARE = 56; // 64 threads, an eighth kept for other addresses (conn_limit.h)

// GET from a chosen loopback source address; resolves { status, ms, json }.
function getFrom(port, path, localAddress, timeoutMs = 5000) {
  const t0 = performance.now();
  return new Promise((res, rej) => {
    const req = http.get({ host: '127.0.0.1', port, path, localAddress, timeout: timeoutMs }, (r) => {
      let text = '';
      r.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () =>
        res({ status: r.statusCode, headers: r.headers, ms: performance.now() - t0, json: JSON.parse(text || 'null') }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${localAddress} within ${timeoutMs} ms`)));
    req.on('error', rej);
  });
}

// A connection that sends its headers at once and then its body one byte
// a second. Records what the server answers (or that it closed).
function slowUpload(port, { declared = 1000, localAddress = '127.0.0.1', path = '/api/experiments/timing' } = {}) {
  const s = net.connect({ port, host: '127.0.0.1', localAddress });
  const state = { answer: '', closed: false, sock: s };
  s.setEncoding('latin1');
  s.on('data', (d) => (state.answer += d));
  s.on('error', () => {});
  s.on('close', () => (state.closed = true));
  s.on('connect', () => {
    s.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
    state.timer = setInterval(() => !s.destroyed && s.write('{'), 1000);
  });
  state.stop = () => {
    clearInterval(state.timer);
    s.destroy();
  };
  return state;
}

const statusOf = (answer) => Number((answer.match(/^HTTP\/1\.[01] (\d{3})/) || [])[1] || 0);
// A whole answer: its headers and as many body bytes as Content-Length says
// (the status line may arrive in an earlier packet than the rest).
const complete = (answer) => {
  const end = answer.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const len = Number((answer.slice(0, end).match(/\r\ncontent-length:\s*(\d+)/i) || [])[1] ?? NaN);
  return Number.isFinite(len) && Buffer.byteLength(answer.slice(end + 4), 'latin1') >= len;
};
const bodyOf = (answer) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

async function until(what, cond, timeoutMs) {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) assert.fail(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function eightySlowUploads(srv, path) {
  const slow = Array.from({ length: 80 }, () => slowUpload(srv.port, { path }));
  try {
    // Past the share the server refuses at once: once it has, all 80 reached it.
    await until('the refusals past the share', () => slow.filter((s) => statusOf(s.answer) === 429).length >= 80 - SHARE, 15000);
    const refused = slow.filter((s) => statusOf(s.answer) === 429);
    const e = bodyOf(refused[0].answer).error;
    assert.equal(e.code, 'too_many_connections');
    assert.match(refused[0].answer, /\r\nRetry-After: \d+\r\n/i);
    // Answered beside them, not after them: a health check that had to wait
    // for a thread would be answered only once one of the slow uploads it
    // holds was let go (cut off with 408 or closed), so none may be.
    const held = (x) => statusOf(x.answer) === 0 && !x.closed;
    for (let i = 0; i < 3; i++) {
      const before = slow.filter(held);
      const h = await getFrom(srv.port, '/api/health', '127.0.0.2');
      assert.equal(h.status, 200);
      const letGo = before.filter((x) => !held(x)).length;
      assert.equal(letGo, 0, `/api/health from another address was answered after ${letGo} of the ${before.length} slow uploads were let go`);
    }
    // The rest are being read slowly, or (on a slow machine) already cut off with 408.
    for (const s of slow) assert.ok([0, 408, 429].includes(statusOf(s.answer)), s.answer.slice(0, 120));
  } finally {
    for (const s of slow) s.stop();
  }
}

test('eighty_slow_uploads_from_one_address_leave_health_answered_for_another', T, () =>
  withServer({}, async (srv) => {
    await eightySlowUploads(srv);
    // Once they are gone, the address is served again.
    let status = 0;
    const t0 = Date.now();
    while (status !== 200 && Date.now() - t0 < 10000) status = (await getFrom(srv.port, '/api/health', '127.0.0.1')).status;
    assert.equal(status, 200);
    const refused = (await request(srv, '/metrics')).text.match(/^gpulab_connections_refused_total (\d+)$/m);
    assert.ok(refused && Number(refused[1]) >= 80 - SHARE, `refusals counted: ${refused?.[0]}`);
  }));

test('eighty_slow_uploads_to_join_do_not_stop_a_class', T, () =>
  withClass({}, async (srv) => {
    await eightySlowUploads(srv, '/api/class/join');
  }));

test('idle_connections_past_the_share_are_refused_at_once', T, () =>
  withServer({}, async (srv) => {
    const idle = Array.from({ length: SHARE + 10 }, () => {
      const s = net.connect(srv.port, '127.0.0.1');
      const st = { answer: '', sock: s };
      s.setEncoding('latin1').on('data', (d) => (st.answer += d)).on('error', () => {});
      return st;
    });
    try {
      await until('ten refusals', () => idle.filter((s) => statusOf(s.answer) === 429).length >= 10, 10000);
      const h = await getFrom(srv.port, '/api/health', '127.0.0.2', 2000);
      assert.equal(h.status, 200);
    } finally {
      for (const s of idle) s.sock.destroy();
    }
  }));

test('a_body_dribbled_at_one_byte_a_second_is_cut_off_with_408', T, () =>
  withServer({}, async (srv) => {
    const t0 = performance.now();
    const s = slowUpload(srv.port, { declared: 200 });
    try {
      await until('an answer to the slow body', () => s.closed || complete(s.answer), 30000);
      const r = { status: statusOf(s.answer), headers: {}, body: s.answer.slice(s.answer.indexOf('\r\n\r\n') + 4) };
      for (const line of s.answer.split('\r\n\r\n')[0].split('\r\n').slice(1)) {
        const i = line.indexOf(':');
        r.headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      assertError(r, 408, 'request_timeout');
      const ms = performance.now() - t0;
      assert.ok(ms < 20000, `cut off after ${ms.toFixed(0)} ms`);
    } finally {
      s.stop();
    }
  }));

test('a_body_shorter_than_its_content_length_is_400_not_served', T, () =>
  withServer({}, async (srv) => {
    const s = net.connect(srv.port, '127.0.0.1');
    let answer = '';
    let closed = false;
    s.setEncoding('latin1').on('data', (d) => (answer += d)).on('error', () => {}).on('close', () => (closed = true));
    s.write('POST /api/experiments/timing HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"backend":"simulated"}');
    try {
      await until('an answer to the short body', () => closed || complete(answer), 30000);
      assert.equal(statusOf(answer), 400, answer.slice(0, 300));
      const e = bodyOf(answer).error;
      assert.equal(e.code, 'bad_request');
      assert.match(e.message, /ended after 23 of the 100 bytes/);
      const h = await getFrom(srv.port, '/api/health', '127.0.0.1', 2000);
      assert.equal(h.status, 200, 'the thread was freed');
    } finally {
      s.destroy();
    }
  }));
