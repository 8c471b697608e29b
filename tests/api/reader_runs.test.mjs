// The readers (POST /api/explain, /api/doctor) are runs (server/api/reader_run.h):
// at most 4 uploads in flight from one address, 2 per learner, a quarter of
// the threads in all, the rest answered 503 busy at once; a whole body within
// the route's deadline; their work in the simulation gate's slots (at most
// the reader slots at once) under the server's CPU budget; a session in class
// mode; and every refusal says the page reads the same file with nothing
// uploaded. Slow uploads and a burst of readers leave /api/health and a
// simulated run from another address answered; a burst of abandoned runs
// leaves no line that turns the next learners away. An upload cut while its
// client is still sending gets its answer, not a reset (the lingering close).
// Bounded: at most 76 sockets at once, each test well under 60 s; it waits
// on the server's own counts (/metrics), never on fixed sleeps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { withServer, assertError, request } from './lib.mjs';
import { withClass, joinAs } from './class_lib.mjs';

const T = { timeout: 90000 };

// A Kineto-shaped trace of about `mb` MB (bench/doctor_bench.py's shape):
// steps, CPU ops, launches, kernels and their flows; `pad` bytes of input
// shapes in each CPU op's args make it larger without more events.
function trace(mb, pad = 0) {
  const dims = pad ? `, "Input Dims": "${'[1024, 1024], '.repeat(Math.ceil(pad / 14)).slice(0, pad)}"` : '';
  const parts = ['{"schemaVersion": 1, "traceEvents": ['];
  let size = parts[0].length, t = 0, n = 0;
  for (let step = 0; size < mb * 1e6; step++) {
    const ev = [`{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#${step}", "pid": 1, "tid": 1, "ts": ${t}, "dur": 10000, "args": {}}`];
    for (let k = 0; k < 200; k++, n++) {
      const s = t + k * 50;
      ev.push(`{"ph": "X", "cat": "cpu_op", "name": "aten::linear_${k % 50}", "pid": 1, "tid": 1, "ts": ${s}, "dur": 20, "args": {"External id": ${n}${dims}}}`,
        `{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ${s + 10}, "dur": 6, "args": {"correlation": ${n}}}`,
        `{"ph": "X", "cat": "kernel", "name": "void elementwise_kernel_${k % 50}", "pid": 0, "tid": 7, "ts": ${s + 15}, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": ${n}}}`);
    }
    const text = (step ? ',\n' : '') + ev.join(',\n');
    parts.push(text);
    size += text.length;
    t += 10000;
  }
  parts.push(']}\n');
  return Buffer.from(parts.join(''));
}

// One 16 MiB trace for every upload that must be cut (made once: 1-2 s).
let big16 = null;
const bigTrace = () => (big16 ??= new Uint8Array(trace(16)));

// The value of one series of /metrics ("name" or 'name{label="v"}'), or null.
async function metric(srv, series) {
  const text = (await request(srv, '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line ? Number(line.slice(series.length + 1)) : null;
}

async function until(what, cond, timeoutMs) {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > timeoutMs) assert.fail(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const statusOf = (answer) => Number((answer.match(/^HTTP\/1\.[01] (\d{3})/) || [])[1] || 0);
const complete = (answer) => {
  const end = answer.indexOf('\r\n\r\n');
  const len = Number((answer.match(/\r\ncontent-length:\s*(\d+)/i) || [])[1] ?? NaN);
  return end >= 0 && Buffer.byteLength(answer.slice(end + 4), 'latin1') >= len;
};
const answerOf = (answer) => {
  const end = answer.indexOf('\r\n\r\n');
  const headers = {};
  for (const l of answer.slice(0, end).split('\r\n').slice(1)) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const text = answer.slice(end + 4);
  return { status: statusOf(answer), headers, text, json: JSON.parse(text) };
};

// One upload over its own socket from localAddress: the headers, then
// `first` (a Buffer) at once, then filler bytes at `rate` bytes a second
// (counted from the start, so a late timer sends more, not less) until
// stopped or answered; send() adds bytes. Records the answer.
function upload(port, { path, type = 'application/json', declared, first = Buffer.alloc(0), rate = 0, localAddress = '127.0.0.1', cookie }) {
  const s = net.connect({ port, host: '127.0.0.1', localAddress });
  const st = { answer: '', closed: false, sent: 0, localAddress, path };
  s.setEncoding('latin1');
  s.on('data', (d) => (st.answer += d));
  s.on('error', () => {});
  s.on('close', () => {
    st.closed = true;
    clearInterval(st.timer);
  });
  s.on('connect', () => {
    s.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${declared}\r\n` +
      (cookie ? `Cookie: ${cookie}\r\n` : '') + '\r\n');
    if (first.length) s.write(first);
    st.sent = first.length;
    if (rate > 0) {
      const t0 = performance.now();
      st.timer = setInterval(() => {
        const owed = Math.min(declared, first.length + Math.floor((rate * (performance.now() - t0)) / 1000)) - st.sent;
        if (owed > 0 && !s.destroyed && !statusOf(st.answer)) {
          s.write(Buffer.alloc(owed, 0x20));
          st.sent += owed;
        }
      }, 100);
    }
  });
  st.send = (buf) => s.write(buf);
  st.stop = () => {
    clearInterval(st.timer);
    s.destroy();
  };
  return st;
}

// GET or POST from localAddress with node:http (no connection pool); resolves { status, ms, json }.
function ask(port, { path, localAddress, body, timeoutMs = 10000 }) {
  const t0 = performance.now();
  return new Promise((res, rej) => {
    const req = http.request({ host: '127.0.0.1', port, path, localAddress, agent: false, timeout: timeoutMs,
      method: body ? 'POST' : 'GET', headers: body ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } : {} },
    (r) => {
      let text = '';
      r.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () =>
        res({ status: r.statusCode, ms: performance.now() - t0, json: text ? JSON.parse(text) : null }));
    });
    req.on('timeout', () => req.destroy(new Error(`${path} from ${localAddress}: no answer within ${timeoutMs} ms`)));
    req.on('error', rej);
    req.end(body);
  });
}

const SIM_RUN = JSON.stringify({ backend: 'simulated', params: {} });
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

// The attack: 56 uploads from the school's address (its whole
// share of connections), half to each reader, each just over the minimum
// rate (1 KiB/s: a 32 MiB trace would take nine hours), and 2 from each of
// four other addresses. Before, they held every thread: no /api/health in
// 60 s. Now 4 per address are read and the rest are refused at once.
test('slow_uploads_to_both_readers_leave_health_and_a_simulated_run_answered', T, () =>
  withServer({}, async (srv) => {
    const ups = [];
    for (let i = 0; i < 56; i++)
      ups.push(upload(srv.port, i % 2 ? { path: '/api/explain', type: 'text/plain', declared: 256 * 1024, rate: 1200, localAddress: '127.0.0.2' }
        : { path: '/api/doctor', declared: 32 * 1024 * 1024, rate: 1200, localAddress: '127.0.0.2' }));
    for (const a of [3, 4, 5, 6])
      for (let i = 0; i < 2; i++)
        ups.push(upload(srv.port, { path: i ? '/api/explain' : '/api/doctor', type: i ? 'text/plain' : 'application/json',
          declared: i ? 256 * 1024 : 32 * 1024 * 1024, rate: 1200, localAddress: `127.0.0.${a}` }));
    try {
      const nat = ups.filter((u) => u.localAddress === '127.0.0.2');
      await until('52 refusals from the school address', () => nat.filter((u) => complete(u.answer)).length >= 52, 30000);
      for (const u of nat.filter((x) => complete(x.answer))) {
        const e = assertError(answerOf(u.answer), 503, 'busy');
        assert.match(e.message, /from your address/);
        assert.match(e.message, /nothing uploaded/);
        assert.ok(Number(answerOf(u.answer).headers['retry-after']) >= 1, 'Retry-After');
      }
      await until('12 uploads held', async () => (await metric(srv, 'gpulab_reader_uploads')) === 12, 15000);
      // While they are held: health and a simulated run from two other
      // addresses, and health from the school's own address, one after another.
      const health = [], runs = [], nat_health = [];
      for (let i = 0; i < 10; i++) {
        health.push(await ask(srv.port, { path: '/api/health', localAddress: '127.0.0.9' }));
        runs.push(await ask(srv.port, { path: '/api/experiments/timing', localAddress: '127.0.0.10', body: SIM_RUN }));
        nat_health.push(await ask(srv.port, { path: '/api/health', localAddress: '127.0.0.2' }));
      }
      for (const r of [...health, ...runs, ...nat_health]) assert.equal(r.status, 200);
      const held = ups.filter((u) => !statusOf(u.answer) && !u.closed).length;
      assert.equal(held, 12, 'the uploads read all along are still being read');
      console.log(`# during the slow uploads: /api/health p99 ${pct(health.map((r) => r.ms), 99).toFixed(1)} ms, ` +
        `simulated run p99 ${pct(runs.map((r) => r.ms), 99).toFixed(1)} ms`);
      assert.equal(await metric(srv, 'gpulab_reader_refused_total{reason="address"}'), 52);
    } finally {
      for (const u of ups) u.stop();
    }
  }));

// 20 traces from one address at once (a .gz each: 0.1 s of CPU to inflate
// and read): 4 are taken, 16 are busy at once, before any body is sent (a
// body refused half-sent can lose its answer to the TCP reset that closing
// with unread bytes makes). Then the 4 bodies come at once: the 4 readers
// take the one reader slot of two in turn, never two at once, and a
// simulated run from another address takes the other slot meanwhile.
test('twenty_readers_from_one_address_run_in_the_reader_slots_and_the_rest_are_busy', T, () =>
  withServer({ args: ['--sim-slots', '2'] }, async (srv) => {
    assert.equal(await metric(srv, 'gpulab_cpu_slots{kind="reader"}'), 1);
    const gz = gzipSync(trace(12));
    const ups = Array.from({ length: 20 }, () => upload(srv.port, {
      path: '/api/doctor', type: 'application/gzip', declared: gz.length, localAddress: '127.0.0.2',
    }));
    let done = false;
    try {
      await until('16 refusals', () => ups.filter((u) => complete(u.answer)).length === 16, 20000);
      assert.equal(await metric(srv, 'gpulab_reader_uploads'), 4, 'all 20 in flight: 4 taken, 16 answered');
      assert.equal(await metric(srv, 'gpulab_reader_refused_total{reason="address"}'), 16);
      let most = 0, waited = 0, ran = 0;
      const watch = (async () => { // the server's own counts, as often as it answers
        while (!done) {
          const text = (await request(srv, '/metrics').catch(() => ({ text: '' }))).text;
          const v = (s) => Number((text.match(new RegExp(`^${s.replace(/[{}"]/g, '\\$&')} (\\d+)$`, 'm')) || [])[1] ?? 0);
          const running = v('gpulab_cpu_runs_running{kind="reader"}');
          most = Math.max(most, running);
          ran += running > 0;
          waited += v('gpulab_cpu_runs_waiting{kind="reader"}') > 0;
        }
      })();
      for (const u of ups) if (!statusOf(u.answer)) u.send(gz);
      const sim = await ask(srv.port, { path: '/api/experiments/timing', localAddress: '127.0.0.3', body: SIM_RUN });
      assert.equal(sim.status, 200, 'a simulated run from another address is admitted while the readers run');
      await until('20 answers', () => ups.every((u) => complete(u.answer)), 30000);
      done = true;
      await watch;
      const answers = ups.map((u) => answerOf(u.answer));
      const ok = answers.filter((a) => a.status === 200), busy = answers.filter((a) => a.status === 503);
      assert.equal(ok.length, 4, `statuses: ${answers.map((a) => a.status)}`);
      assert.equal(busy.length, 16);
      for (const b of busy) assertError(b, 503, 'busy');
      for (const a of ok) assert.equal(a.json.doctor, 1);
      assert.ok(ran > 0 && waited > 0, `the counts saw readers run (${ran}) and wait (${waited})`);
      assert.equal(most, 1, 'never more readers at once than the reader slots');
    } finally {
      done = true;
      for (const u of ups) u.stop();
    }
  }));

// A body must arrive whole within the route's deadline (60 s for explain,
// 300 s for doctor; a test hook shortens it), not only faster than 1 KiB/s.
test('an_upload_past_its_deadline_is_408_and_names_the_page', T, () =>
  withServer({ env: { GPULAB_TEST_HOOKS: '1', GPULAB_TEST_READER_DEADLINE_S: '2' } }, async (srv) => {
    for (const [path, type, page] of [['/api/explain', 'text/plain', '#explain'], ['/api/doctor', 'application/json', '#doctor']]) {
      const t0 = performance.now();
      const u = upload(srv.port, { path, type, declared: 200 * 1024, rate: 3000 });
      try {
        await until(`${path}: an answer`, () => complete(u.answer), 20000);
        const e = assertError(answerOf(u.answer), 408, 'request_timeout');
        assert.match(e.message, /within 2 s/);
        assert.ok(e.message.includes(page) && /nothing uploaded/.test(e.message), e.message);
        assert.ok(performance.now() - t0 < 15000, 'cut at the deadline, not at the end of the body');
      } finally {
        u.stop();
      }
    }
  }));

// The server's CPU budget (--sim-cpu-budget-ms) holds for readers as for
// simulations: measured as the trace is read, between its chunks. The cut
// comes while the client is still sending most of its 16 MiB: the server
// answers, shuts its sending side and reads on, dropping the rest (the
// lingering close, reader_run.h), so the answer arrives, never a reset.
test('a_reader_over_the_cpu_budget_is_stopped_and_names_the_page', T, () =>
  withServer({ args: ['--sim-cpu-budget-ms', '50'] }, async (srv) => {
    const big = await request(srv, '/api/doctor', { method: 'POST', body: bigTrace(), timeoutMs: 60000 }).catch((err) => err);
    if (big instanceof Error) {
      // Only the server's own bound may end the lingering before this client
      // is done sending: no byte for 10 s, or 30 s in all (a client starved
      // of CPU on a loaded machine); then a reset is what the product promises.
      const bound = (await metric(srv, 'gpulab_reader_linger_total{end="idle"}')) + (await metric(srv, 'gpulab_reader_linger_total{end="time"}'));
      assert.equal(bound, 1, `no answer, though the lingering did not end at its bound: ${big} (${big.cause?.code ?? big.cause})`);
      assert.equal(await metric(srv, 'gpulab_reader_cut_total{reason="cpu_budget"}'), 1);
      return;
    }
    // counted when the lingering ends, just after this client closes its end
    await until('the lingering ended by the client closing, once it had the answer',
      async () => (await metric(srv, 'gpulab_reader_linger_total{end="client"}')) === 1, 40000);
    const e = assertError(big, 400, 'over_cpu_budget');
    assert.match(e.message, /#doctor.*nothing uploaded/);
    assert.equal(big.headers.get('connection'), 'close');
    assert.equal(await metric(srv, 'gpulab_reader_cut_total{reason="cpu_budget"}'), 1);
    const small = await request(srv, '/api/doctor', { method: 'POST', body: new Uint8Array(readFileSync('tests/doctor/fixtures/idle_item.json')) });
    assert.equal(small.status, 200, small.text);
  }));

// The lingering close holds a thread while it drops a cut upload's rest (at
// most SRV_READER_LINGER_S, 30 s, and a place in the reader bounds meanwhile): 20
// cut 16 MiB uploads from five addresses, ten at a time, each get their
// answer, and /api/health from a sixth address stays answered (its p99 is
// printed beside the p99 of the second before: timings are make bench's).
test('twenty_cut_uploads_get_their_answers_and_leave_health_answered', T, () =>
  withServer({ args: ['--sim-cpu-budget-ms', '50'] }, async (srv) => {
    const body = bigTrace(), health = [], before = [];
    for (const t0 = performance.now(); performance.now() - t0 < 1000;)
      before.push(await ask(srv.port, { path: '/api/health', localAddress: '127.0.0.9' }));
    let done = false;
    const poll = (async () => {
      while (!done) health.push(await ask(srv.port, { path: '/api/health', localAddress: '127.0.0.9' }));
    })();
    const answers = [];
    try {
      for (let wave = 0; wave < 2; wave++)
        answers.push(...await Promise.all(Array.from({ length: 10 }, (_, i) => new Promise((res, rej) => {
          const req = http.request({ host: '127.0.0.1', port: srv.port, path: '/api/doctor', method: 'POST', agent: false,
            localAddress: `127.0.0.${2 + (i % 5)}`, headers: { 'Content-Type': 'application/json', 'Content-Length': body.length } },
          (r) => {
            let text = '';
            r.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () => res({ status: r.statusCode, headers: r.headers, text, json: JSON.parse(text) }));
          });
          req.on('error', rej);
          req.end(body);
        }))));
    } finally {
      done = true;
      await poll;
    }
    for (const a of answers) {
      // cut over the budget, or busy when the reader slot's line was full: words either way
      const e = assertError(a, a.status, a.status === 503 ? 'busy' : 'over_cpu_budget');
      assert.match(e.message, /nothing uploaded/);
    }
    assert.equal(answers.length, 20);
    for (const h of health) assert.equal(h.status, 200);
    console.log(`# during 20 cut uploads: /api/health p99 ${pct(health.map((r) => r.ms), 99).toFixed(1)} ms over ` +
      `${health.length} polls (the second before: ${pct(before.map((r) => r.ms), 99).toFixed(1)} ms)`);
    // each place is given back once its client has closed (or after 30 s at most)
    await until('every place given back after its lingering close', async () => (await metric(srv, 'gpulab_reader_uploads')) === 0, 40000);
  }));

// The body is streamed into the reader: what the server holds follows what
// is being read (and the few events the doctor keeps), not the 24 MiB the
// request announced (before, the whole body was read into one buffer of
// its Content-Length first: the peak grew by more than the body).
test('a_large_trace_is_read_in_chunks_without_holding_its_body', T, () =>
  withServer({}, async (srv) => {
    const hwm = () => Number(readFileSync(`/proc/${srv.proc.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/)[1]) / 1024;
    const body = trace(24, 2000);
    assert.equal((await request(srv, '/api/health')).status, 200);
    const before = hwm();
    const r = await request(srv, '/api/doctor', { method: 'POST', body: new Uint8Array(body), timeoutMs: 30000 });
    assert.equal(r.status, 200, r.text.slice(0, 300));
    console.log(`# peak memory grew ${(hwm() - before).toFixed(1)} MiB for a ${(body.length / 2 ** 20).toFixed(0)} MiB trace`);
    const grew = hwm() - before;
    assert.ok(grew < body.length / 2 / 2 ** 20, `peak memory grew ${grew.toFixed(1)} MiB for a ${(body.length / 2 ** 20).toFixed(0)} MiB trace`);
  }));

test('class_mode_readers_need_a_session_and_hold_two_uploads_a_learner', T, () =>
  withClass({}, async (srv) => {
    assertError(await request(srv, '/api/explain', { method: 'POST', body: 'CUDA out of memory', headers: { 'Content-Type': 'text/plain' } }),
      401, 'no_session');
    const ada = await joinAs(srv, 'Ada');
    const ups = [2, 3, 4].map((a) => upload(srv.port, { path: '/api/explain', type: 'text/plain', declared: 64 * 1024, rate: 1200,
      localAddress: `127.0.0.${a}`, cookie: ada.cookie }));
    try {
      await until('a refusal', () => ups.some((u) => complete(u.answer)), 15000);
      const refused = ups.filter((u) => complete(u.answer));
      assert.equal(refused.length, 1);
      const e = assertError(answerOf(refused[0].answer), 503, 'busy');
      assert.match(e.message, /as many as a learner may/);
      assert.equal(await metric(srv, 'gpulab_reader_refused_total{reason="learner"}'), 1);
      assert.equal(await metric(srv, 'gpulab_reader_uploads'), 2);
      const bob = await joinAs(srv, 'Bob');
      const r = await request(srv, '/api/explain', { method: 'POST', body: 'RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB',
        headers: { 'Content-Type': 'text/plain', Cookie: bob.cookie } });
      assert.equal(r.status, 200, 'another learner is read meanwhile');
    } finally {
      for (const u of ups) u.stop();
    }
  }));

// The issue: once a burst of crossover runs was abandoned, the runs still
// waiting for a slot ran for nobody, and 3,639 of the next 3,670 answers
// were busy. A waiting run whose client hung up now leaves the line, and a
// running one stops at its next step.
test('an_abandoned_burst_of_runs_does_not_make_the_next_request_busy', T, () =>
  withServer({ args: ['--sim-slots', '1', '--sim-wait-ms', '60000', '--sim-cpu-budget-ms', '60000'] }, async (srv) => {
    const heavy = JSON.stringify({ backend: 'simulated', params: { batch: 64, features: 2048, classes: 256, steps: 1000 } });
    const burst = Array.from({ length: 8 }, () => {
      const s = net.connect(srv.port, '127.0.0.1');
      s.on('error', () => {});
      s.write(`POST /api/experiments/train_step HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${heavy.length}\r\n\r\n${heavy}`);
      return s;
    });
    // One runs, four wait (the waiting room of one slot), three are busy at once.
    await until('one run and four waiting', async () => (await metric(srv, 'gpulab_cpu_runs_running{kind="simulated"}')) === 1 &&
      (await metric(srv, 'gpulab_cpu_runs_waiting{kind="simulated"}')) === 4, 30000);
    for (const s of burst) s.destroy();
    await until('the five abandoned runs let go', async () => (await metric(srv, 'gpulab_cpu_runs_abandoned_total{kind="simulated"}')) >= 5 &&
      (await metric(srv, 'gpulab_cpu_runs_running{kind="simulated"}')) === 0 &&
      (await metric(srv, 'gpulab_cpu_runs_waiting{kind="simulated"}')) === 0, 15000);
    // The next learners: one runs, four wait, none is turned away.
    const next = await Promise.all(Array.from({ length: 5 }, () =>
      request(srv, '/api/experiments/timing', { method: 'POST', body: { backend: 'simulated' }, timeoutMs: 60000 })));
    assert.deepEqual(next.map((r) => r.status), [200, 200, 200, 200, 200]);
  }));
