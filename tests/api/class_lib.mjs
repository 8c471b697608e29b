// Helpers for class-mode tests: start a server with a class (its own
// database in a temp folder) and read the join code and instructor token it
// prints; join as a learner and keep the session cookie; many learners
// joining from one address (joinMany: a lecture hall behind one NAT); hold
// an SQLite lock from another process. Built on lib.mjs's startServer.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { makeWebRoot, startServer, request, deviceView } from './lib.mjs';

const JOIN_LINE = /gpulab: class "([^"\n]*)" join code: ([A-Z2-9]{4}-[A-Z2-9]{4})\n/;
const TOKEN_LINE = /gpulab: instructor token: (\S[^\n]*)\n/;

// A folder for one test's class: a web root (with lesson x and its quiz
// key), the database path, and cleanup.
export function makeClassDir() {
  const web = makeWebRoot();
  const keys = join(web.base, 'lessons');
  mkdirSync(keys, { recursive: true });
  writeFileSync(join(keys, 'x.key.json'), JSON.stringify(QUIZ_KEY));
  const data = mkdtempSync(join(tmpdir(), 'gpulab-class-'));
  return {
    root: web.root,
    base: web.base,
    db: join(data, 'class.db'),
    data,
    cleanup: () => {
      web.cleanup();
      rmSync(data, { recursive: true, force: true });
    },
  };
}

// Two questions; a1 and b1 are right.
export const QUIZ_KEY = {
  id: 'x',
  pass_pct: 75,
  answers: {
    q1: { correct: ['a'], explanation: 'Because q1.' },
    q2: { correct: ['b'], explanation: 'Because q2.' },
  },
};

// Starts `gpulab serve` in class mode on dir's database; resolves once the
// join code and instructor token lines are out. srv.joinCode ("ABCD-EFGH"),
// srv.className and srv.instructorToken are set. With the fake GPU, also
// once the first device check has answered (it starts the GPU worker,
// seconds on a busy machine), as a page reads /api/device before it runs
// anything: a GPU run sent before then is refused with device_check_timeout.
export async function startClassServer(dir, { args = [], env = {}, timeoutMs = 10000, ...opts } = {}) {
  const srv = await startServer({ root: dir.root, args: ['--db', dir.db, ...args], env, timeoutMs, ...opts });
  await readClassLines(srv, timeoutMs);
  if (env.GPULAB_FAKE_GPU_MS !== undefined) {
    const d = await deviceView(srv);
    assert.equal(d.status, 200, `the fake GPU's device check: ${d.text.slice(0, 300)}`);
  }
  return srv;
}

// Waits for a class server's join code and instructor token lines; sets
// srv.joinCode, srv.className and srv.instructorToken; returns srv.
export async function readClassLines(srv, timeoutMs = 10000) {
  const t0 = Date.now();
  while (!(JOIN_LINE.test(srv.stdout()) && TOKEN_LINE.test(srv.stdout()))) {
    if (Date.now() - t0 > timeoutMs) {
      await srv.stop();
      throw new Error(`no join code / token lines; stdout:\n${srv.stdout()}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const j = srv.stdout().match(JOIN_LINE);
  srv.className = j[1];
  srv.joinCode = j[2];
  srv.instructorToken = srv.stdout().match(TOKEN_LINE)[1];
  return srv;
}

// Runs fn(srv, dir) with a fresh class server and folder; always cleans up.
export async function withClass(opts, fn) {
  const dir = makeClassDir();
  let srv;
  try {
    srv = await startClassServer(dir, opts);
    return await fn(srv, dir);
  } finally {
    try {
      if (srv) await srv.stop();
    } finally {
      dir.cleanup();
    }
  }
}

// The session cookie ("gpulab_session=<hex>") from a response's Set-Cookie.
export function sessionCookie(res) {
  const set = res.headers.get('set-cookie') ?? '';
  const m = set.match(/gpulab_session=([0-9a-f]{64})/);
  return m ? `gpulab_session=${m[1]}` : null;
}

// The learner cookie ("gpulab_learner=<hex>"), set by a join that made a learner.
export function learnerCookie(res) {
  const m = (res.headers.get('set-cookie') ?? '').match(/gpulab_learner=([0-9a-f]{64})/);
  return m ? `gpulab_learner=${m[1]}` : null;
}

// Joins as `name`; returns { res, cookie, learner, token }. Asserts success.
// `learner`: the learner cookie of an earlier join, sent as a browser
// would (then the same learner comes back); without it, a new learner.
export async function joinAs(srv, name, code = srv.joinCode, { learner } = {}) {
  const headers = learner ? { Cookie: learner } : {};
  const res = await request(srv, '/api/class/join', { method: 'POST', body: { code, name }, headers });
  assert.equal(res.status, 200, `join as ${name}: ${res.text}`);
  const cookie = sessionCookie(res);
  assert.ok(cookie, `a session cookie in ${res.headers.get('set-cookie')}`);
  return { res, cookie, learner: learnerCookie(res) ?? learner, token: cookie.split('=')[1] };
}

export const asLearner = (cookie, extra = {}) => ({ headers: { Cookie: cookie, ...extra } });
export const asInstructor = (token) => ({ headers: { Authorization: `Bearer ${token}` } });

// A simulated run, answered at once and stored with the session.
export const simulate = (srv, cookie, name = 'timing', params = {}) =>
  request(srv, `/api/experiments/${name}`, {
    method: 'POST',
    body: { params, backend: 'simulated', profile: 't4' },
    ...asLearner(cookie),
  });

export const quizAttempt = (srv, cookie, answers = { q1: ['a'], q2: ['b'] }) =>
  request(srv, '/api/lessons/x/quiz', { method: 'POST', body: { answers }, ...asLearner(cookie) });

// Holds an exclusive lock on an SQLite file from another process (the
// sqlite3 shell) until release() is called. Resolves once the lock is held.
export async function holdExclusiveLock(dbPath) {
  const p = spawn('sqlite3', [dbPath], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  p.stdout.setEncoding('utf8');
  p.stdout.on('data', (d) => (out += d));
  p.stdin.write('BEGIN EXCLUSIVE;\nSELECT \'locked\';\n');
  const t0 = Date.now();
  while (!out.includes('locked')) {
    if (p.exitCode !== null || Date.now() - t0 > 5000) throw new Error('sqlite3 could not take the lock');
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    async release() {
      p.stdin.end('COMMIT;\n.quit\n');
      await new Promise((r) => (p.exitCode !== null ? r() : p.on('exit', r)));
    },
  };
}

// ---- many learners at once ----------------------------------------------------

// A POST of JSON from a chosen local address (127.0.0.N plays another
// client); resolves { status, headers (lower-case keys), json, ms }.
export function postFrom(srv, path, body, { localAddress = '127.0.0.1', headers = {}, method = 'POST', timeoutMs = 20000 } = {}) {
  const data = body === undefined ? '' : JSON.stringify(body);
  const t0 = performance.now();
  return new Promise((res, rej) => {
    const req = http.request({
      host: '127.0.0.1', port: srv.port, path, method, localAddress, timeout: timeoutMs, agent: false,
      headers: { ...(data ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) } : {}), ...headers },
    }, (r) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (d) => (text += d));
      r.on('end', () => {
        let json;
        try { json = JSON.parse(text); } catch { json = undefined; }
        res({ status: r.statusCode, headers: r.headers, json, text, ms: performance.now() - t0 });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} from ${localAddress}: no answer in ${timeoutMs} ms`)));
    req.on('error', rej);
    req.end(data);
  });
}

// The p-quantile (0..1) of numbers, nearest rank.
export function quantile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] : NaN;
}

// n learners join from one address (default 127.0.0.1), `concurrency` at a
// time, as fast as the server answers. Resolves { joined, refused (the
// answers that were not 200), ms (each join's latency), p50, p99, wallMs }.
export async function joinMany(srv, n, { concurrency = 16, localAddress = '127.0.0.1', prefix = 'Learner', code = srv.joinCode } = {}) {
  const answers = new Array(n);
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < n) {
      const i = next++;
      answers[i] = await postFrom(srv, '/api/class/join', { code, name: `${prefix} ${i}` }, { localAddress });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  const ms = answers.map((a) => a.ms);
  return {
    joined: answers.filter((a) => a.status === 200).length,
    refused: answers.filter((a) => a.status !== 200),
    ms, p50: quantile(ms, 0.5), p99: quantile(ms, 0.99), wallMs: performance.now() - t0,
  };
}
