// Fixtures for the scale tests: real components on loopback, always
// stopped. tests/scale/run.sh starts one PostgreSQL (and a one-node Slurm)
// for the whole stage and exports where they are; each test gets its own
// database (created from template0 in about 0.3 s), its own servers, GPU
// workers and HAProxy on free ports. Every wait is for an event (a line
// printed, an answer, a row), bounded in time.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import net from 'node:net';
import { after } from 'node:test';
import assert from 'node:assert/strict';
import { BIN, childEnv, makeWebRoot, startServer, request, assertNoSanitizerFindings } from '../api/lib.mjs';
import { QUIZ_KEY, readClassLines } from '../api/class_lib.mjs';
import { haproxyConfig } from './haproxy_cfg.mjs';

const here = dirname(new URL(import.meta.url).pathname);
export const TOKEN = 'scale-test-instructor-token-0123456789';
const PG_PORT = process.env.GPULAB_SCALE_PG_PORT;

// Why these tests cannot run here ("" when they can): they need the stage's fixtures.
export function missing() {
  if (!PG_PORT) return 'no PostgreSQL fixture: run the scale stage (tests/scale/run.sh)';
  return '';
}

// ---- processes, always stopped ------------------------------------------------

const live = new Set();
const killAll = () => {
  for (const p of live) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
};
after(killAll);
process.on('exit', killAll);

function track(proc) {
  live.add(proc);
  proc.on('exit', () => live.delete(proc));
  let out = '';
  let err = '';
  proc.stdout?.setEncoding('utf8').on('data', (d) => (out += d));
  proc.stderr?.setEncoding('utf8').on('data', (d) => (err += d));
  const exited = new Promise((res) => proc.on('exit', (code, signal) => res({ code, signal })));
  return { stdout: () => out, stderr: () => err, exited };
}

// Polls fn() until it returns something truthy; returns that.
export async function waitFor(fn, { timeoutMs = 15000, everyMs = 50, what = 'a condition' } = {}) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

// ---- PostgreSQL -----------------------------------------------------------------

export function psql(sql, db = 'postgres') {
  const r = spawnSync('psql', ['-h', '127.0.0.1', '-p', PG_PORT, '-U', 'postgres', '-d', db, '-At', '-c', sql],
    { encoding: 'utf8', timeout: 20000 });
  if (r.status !== 0) throw new Error(`psql ${sql}: ${r.stderr}`);
  return r.stdout.trim();
}

let dbs = 0;
// A fresh database; returns its URI and name.
export function newStore() {
  const name = `scale_${process.pid}_${++dbs}`;
  psql(`CREATE DATABASE ${name} TEMPLATE template0`);
  return { uri: `postgresql://postgres@127.0.0.1:${PG_PORT}/${name}`, db: name };
}

// Stops and starts the stage's PostgreSQL (pg_ctl as the postgres user).
export function pgStop() {
  const r = spawnSync('bash', ['-c', `source ${here}/fixtures.sh && fx_pg_stop fast`], { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
}
export function pgStart() {
  const r = spawnSync('bash', ['-c', `source ${here}/fixtures.sh && fx_pg_up "$GPULAB_SCALE_DIR"`],
    { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
}

// ---- gpulab ---------------------------------------------------------------------

// A class server on the store; srv.joinCode etc. as class_lib's. stop() also removes its web root.
export async function startClusterServer(uri, { args = [], env = {}, workers = 'none' } = {}) {
  const web = makeWebRoot();
  mkdirSync(join(web.base, 'lessons'), { recursive: true }); /* lesson x's quiz key, beside the web root */
  writeFileSync(join(web.base, 'lessons', 'x.key.json'), JSON.stringify(QUIZ_KEY));
  let srv;
  try {
    srv = await startServer({
      root: web.root,
      args: ['--store', uri, '--workers', workers, ...args],
      env: { GPULAB_INSTRUCTOR_TOKEN: TOKEN, ...env },
    });
    await readClassLines(srv);
  } catch (e) {
    web.cleanup();
    throw e;
  }
  srv.instructorToken = TOKEN;
  const stop = srv.stop.bind(srv);
  srv.stop = async (opts) => {
    try {
      return await stop(opts);
    } finally {
      web.cleanup();
    }
  };
  return srv;
}

// `gpulab worker` on the store (GPULAB_STORE); resolves once it registered:
// { proc, id, stdout(), stderr(), exited, stop({signal}) }.
export async function startWorker(uri, { env = {}, args = [], timeoutMs = 15000 } = {}) {
  const proc = spawn(BIN, ['worker', ...args], { env: childEnv({ GPULAB_STORE: uri, ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  const w = { proc, ...track(proc) };
  const m = await waitFor(() => w.stdout().match(/gpulab worker (\d+): on /) || (proc.exitCode !== null && 'exited'),
    { timeoutMs, what: 'a worker registering' });
  if (m === 'exited') throw new Error(`worker exited before registering: ${w.stderr()}`);
  w.id = Number(m[1]);
  w.stop = async ({ signal = 'SIGTERM', timeoutMs: t = 15000 } = {}) => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    const timer = setTimeout(() => proc.kill('SIGKILL'), t);
    const r = await w.exited;
    clearTimeout(timer);
    assertNoSanitizerFindings(w.stderr(), 'worker stderr');
    return r;
  };
  return w;
}

// Resolves once every server's /api/health lists n live workers; returns their lists.
// ids: workers that must be among them. A server's list is read every few
// seconds, so a worker killed a moment ago can still count as live there;
// naming the new one waits for the list that has it.
export async function workersSeen(servers, n, { timeoutMs = 15000, ids = [] } = {}) {
  return waitFor(async () => {
    const lists = await Promise.all(servers.map(async (s) => (await request(s, '/api/health')).json?.workers ?? []));
    return lists.every((l) => l.length === n && ids.every((id) => l.some((w) => w.id === id))) && lists;
  }, { timeoutMs, what: `${n} live worker(s)${ids.length ? ` (with ${ids.join(', ')})` : ''} seen by every server` });
}

// ---- HAProxy: deploy/haproxy.cfg with the test's addresses (haproxy_cfg.mjs) -------

export function freePort() {
  return new Promise((res, rej) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
    s.on('error', rej);
  });
}

export async function startHaproxy(servers) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, haproxyConfig(port, servers.map((s) => s.port)));
  const proc = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  const h = { proc, port, url: `http://127.0.0.1:${port}`, ...track(proc) };
  await waitFor(async () => {
    if (proc.exitCode !== null) assert.fail(`haproxy exited: ${h.stderr()}`);
    try {
      return (await request(h, '/api/health', { timeoutMs: 2000 })).status === 200;
    } catch {
      return false;
    }
  }, { what: 'HAProxy answering' });
  h.stop = async () => {
    if (proc.exitCode === null) proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await h.exited;
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
  };
  return h;
}

// ---- a browser's cookies ------------------------------------------------------------

// Keeps what Set-Cookie sets (session, learner, HAProxy's server) and sends it back.
export class Jar {
  constructor() {
    this.cookies = new Map();
  }
  take(res) {
    for (const line of res.headers.getSetCookie?.() ?? []) {
      const [pair] = line.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim(), value = pair.slice(i + 1).trim();
      if (/Max-Age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  async request(target, path, opts = {}) {
    const res = await request(target, path, { ...opts, headers: { ...(opts.headers ?? {}), Cookie: this.header() } });
    return this.take(res);
  }
}

// Joins through target (a server or HAProxy) as name; returns the jar.
export async function joinWithJar(target, name, code) {
  const jar = new Jar();
  const r = await jar.request(target, '/api/class/join', { method: 'POST', body: { code, name } });
  assert.equal(r.status, 200, `join as ${name}: ${r.text}`);
  return jar;
}

export const asInstructor = { headers: { Authorization: `Bearer ${TOKEN}` } };
