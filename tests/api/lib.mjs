// Shared helpers for the API and CLI tests: find the gpulab binary, make a
// throw-away web root, start a real server on a free port (always stopped),
// speak raw HTTP where fetch would clean the request up, and check the
// shapes every answer must have. Sanitizer reports on stderr fail the test.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, symlinkSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import net from 'node:net';
import { after } from 'node:test';
import assert from 'node:assert/strict';

export const BIN = resolve(process.env.GPULAB_BIN ?? 'build/bin/gpulab');

// What a sanitizer build writes when it finds something; a test fails on it.
const SANITIZER_MARKS = ['ERROR: AddressSanitizer', 'runtime error:', 'ERROR: LeakSanitizer'];

export function sanitizerFindings(text) {
  return SANITIZER_MARKS.some((m) => text.includes(m));
}

export function assertNoSanitizerFindings(text, what) {
  if (sanitizerFindings(text)) assert.fail(`sanitizer report in ${what}:\n${text.slice(-4000)}`);
}

// Environment for a child gpulab: the caller's, plus extra. `intentionalCrash`
// lets a worker that crashes on purpose die by its signal instead of being
// reported by ASan's SEGV handler (the crash is the point of that test).
export function childEnv(extra = {}, { intentionalCrash = false } = {}) {
  const env = { ...process.env, ...extra };
  if (intentionalCrash) env.ASAN_OPTIONS = [env.ASAN_OPTIONS, 'handle_segv=0'].filter(Boolean).join(':');
  return env;
}

// A web root with one file of each type the server must label, a
// sub-folder, a link out of the root, and two lesson bundles. The secret
// file the link points at lives outside the root; its text must never leak.
export function makeWebRoot() {
  const base = mkdtempSync(join(tmpdir(), 'gpulab-api-'));
  const root = join(base, 'web');
  mkdirSync(join(root, 'sub'), { recursive: true });
  mkdirSync(join(root, 'lessons'));
  const secret = `SECRET-${process.pid}-${Date.now()}`;
  writeFileSync(join(base, 'secret.txt'), secret + '\n');
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>gpulab test</title><p>index</p>\n');
  writeFileSync(join(root, 'app.wasm'), Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
  writeFileSync(join(root, 'app.js'), 'export const answer = 42;\n');
  writeFileSync(join(root, 'sub', 'inner.txt'), 'inner file\n');
  symlinkSync(join(base, 'secret.txt'), join(root, 'leak.txt'));
  symlinkSync(base, join(root, 'up'));
  writeFileSync(join(root, 'lessons', 'index.json'), JSON.stringify({ lessons: [{ id: 'x', title: 'Lesson X' }] }));
  writeFileSync(join(root, 'lessons', 'x.json'), JSON.stringify({ id: 'x', title: 'Lesson X', sections: [] }));
  return { base, root, secret, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

// A fake nvidia-smi: a shell script printing a canned query line and, when
// run with no arguments, a banner with the CUDA version. exitCode != 0 makes
// it fail the way a broken driver does.
export function makeFakeSmi(dir, { csv, banner, exitCode = 0, failText = '' }) {
  const path = join(dir, 'nvidia-smi');
  const q = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
  const script = exitCode
    ? `#!/bin/sh\necho ${q(failText)}\nexit ${exitCode}\n`
    : `#!/bin/sh\nif [ "$#" -eq 0 ]; then printf '%s\\n' ${q(banner)}; exit 0; fi\nprintf '%s\\n' ${q(csv)}\n`;
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  return path;
}

// Starts `gpulab serve` on 127.0.0.1, port 0, and waits for its listening
// line. Returns { url, port, proc, stderr(), stop() }. stop() sends SIGTERM,
// waits, and fails on any sanitizer report in the server's stderr.
// Every server still running; killed after each test file and on exit, so
// a test that timed out mid-way cannot leave the runner waiting forever.
const live = new Set();
const killAll = () => {
  for (const p of live) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
};
after(killAll);
process.on('exit', killAll);

export async function startServer({ root, deadline, env = {}, intentionalCrash = false, args = [], timeoutMs = 10000 } = {}) {
  const argv = ['serve', '--host', '127.0.0.1', '--port', '0'];
  if (root) argv.push('--root', root);
  if (deadline) argv.push('--deadline', String(deadline));
  argv.push(...args);
  const proc = spawn(BIN, argv, { env: childEnv(env, { intentionalCrash }), stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(proc);
  proc.on('exit', () => live.delete(proc));
  let out = '';
  let err = '';
  proc.stderr.setEncoding('utf8');
  proc.stdout.setEncoding('utf8');
  proc.stderr.on('data', (d) => (err += d));
  const exited = new Promise((res) => proc.on('exit', (code, signal) => res({ code, signal })));
  const port = await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`server did not start in ${timeoutMs} ms; stderr:\n${err}`)), timeoutMs);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/gpulab: listening on http:\/\/127\.0\.0\.1:(\d+)/);
      if (m) {
        clearTimeout(timer);
        res(Number(m[1]));
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      rej(new Error(`server exited (${code ?? signal}) before listening; stderr:\n${err}`));
    });
  }).catch((e) => {
    proc.kill('SIGKILL');
    throw e;
  });
  let stopped = null;
  const server = {
    port,
    url: `http://127.0.0.1:${port}`,
    proc,
    exited,
    stderr: () => err,
    stdout: () => out, // everything printed so far (class mode prints its join code and token after listening)
    // Stops the server; resolves to { code, signal, ms }. CivetWeb's accept
    // loop polls in 2 s steps, so by default empty connections are made
    // while it stops to wake that loop (keeps the suite fast); pass
    // poke:false to measure the server's own stopping time.
    async stop({ signal = 'SIGTERM', killAfterMs = 8000, poke = true } = {}) {
      if (stopped) return stopped;
      stopped = (async () => {
        const t0 = performance.now();
        if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
        const timer = setTimeout(() => proc.kill('SIGKILL'), killAfterMs);
        const poker = poke
          ? setInterval(() => {
              const s = net.connect(port, '127.0.0.1', () => s.destroy());
              s.on('error', () => {});
            }, 100)
          : null;
        const r = await exited;
        clearTimeout(timer);
        if (poker) clearInterval(poker);
        return { ...r, ms: performance.now() - t0 };
      })();
      const r = await stopped;
      assertNoSanitizerFindings(err, 'server stderr');
      return r;
    },
  };
  return server;
}

// Runs fn(server) with a fresh server (and web root) and always stops both.
export async function withServer(opts, fn) {
  const web = opts.root ? null : makeWebRoot();
  let srv;
  try {
    srv = await startServer({ root: web?.root, ...opts });
  } catch (e) {
    web?.cleanup();
    throw e;
  }
  try {
    return await fn(srv, web);
  } finally {
    try {
      await srv.stop();
    } finally {
      web?.cleanup();
    }
  }
}

// Resolves once test(text) is true of what the server wrote to stderr so
// far (a log line is written after its answer is sent, so it may lag).
export async function waitForStderr(srv, test, { timeoutMs = 10000, what = 'a log line' } = {}) {
  const end = Date.now() + timeoutMs;
  while (!test(srv.stderr())) {
    if (Date.now() > end) throw new Error(`no ${what} after ${timeoutMs} ms; stderr ends:\n${srv.stderr().slice(-1500)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// fetch with a timeout; returns { status, headers, text, json }.
export async function request(srv, path, { method = 'GET', body, headers = {}, timeoutMs = 10000 } = {}) {
  const init = { method, headers: { ...headers }, signal: AbortSignal.timeout(timeoutMs) };
  if (body !== undefined) {
    init.body = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
    if (!Object.keys(init.headers).some((k) => k.toLowerCase() === 'content-type'))
      init.headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(srv.url + path, init);
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

// GET /api/device as the page reads it: a busy server's first device check
// may not have answered within its 2 s (503 device_check_timeout, with
// Retry-After); it is asked again after that many seconds, until a view
// comes (at most timeoutMs), so a test reads a verdict, not a timeout.
export async function deviceView(srv, { timeoutMs = 30000 } = {}) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const r = await request(srv, '/api/device');
    if (r.status !== 503 || r.json?.error?.code !== 'device_check_timeout' || Date.now() > end) return r;
    await new Promise((res) => setTimeout(res, 1000 * Number(r.headers.get('retry-after') || 1)));
  }
}

export const postRun = (srv, name, body, opts = {}) =>
  request(srv, `/api/experiments/${name}`, { method: 'POST', body, ...opts });

// Raw HTTP over a socket, for requests fetch would refuse or normalise.
// Resolves with { status, headers (lower-case keys), body, raw } once the
// answer is complete: its Content-Length has arrived, or the server closed
// the connection (HEAD, or no length). The server may still be draining
// an unread request body; the socket is closed from this side then.
function parseAnswer(raw) {
  const split = raw.indexOf('\r\n\r\n');
  const head = split < 0 ? raw : raw.slice(0, split);
  const lines = head.split('\r\n');
  const m = lines[0].match(/^HTTP\/1\.[01] (\d{3})/);
  const headers = {};
  for (const l of lines.slice(1)) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status: m ? Number(m[1]) : 0, headers, body: split < 0 ? '' : raw.slice(split + 4), raw, complete: split >= 0 };
}

export function rawRequest(port, text, { timeoutMs = 5000 } = {}) {
  const isHead = text.startsWith('HEAD ');
  return new Promise((res, rej) => {
    const sock = net.connect(port, '127.0.0.1');
    const chunks = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      res(parseAnswer(Buffer.concat(chunks).toString('latin1')));
    };
    const timer = setTimeout(() => {
      done = true;
      sock.destroy();
      rej(new Error(`no complete answer within ${timeoutMs} ms; got: ${Buffer.concat(chunks).toString('latin1').slice(0, 300)}`));
    }, timeoutMs);
    sock.on('data', (c) => {
      chunks.push(c);
      const a = parseAnswer(Buffer.concat(chunks).toString('latin1'));
      const len = a.headers['content-length'];
      if (a.complete && !isHead && len !== undefined && Buffer.byteLength(a.body, 'latin1') >= Number(len)) finish();
    });
    sock.on('error', () => {}); // a reset after the answer is fine; 'close' still fires
    sock.on('close', finish);
    sock.write(text);
  });
}

// ---- shape checks ------------------------------------------------------------

const header = (h, name) => (typeof h.get === 'function' ? h.get(name) : h[name.toLowerCase()]);

export function assertSecurityHeaders(h, what = 'response') {
  assert.equal(header(h, 'cross-origin-opener-policy'), 'same-origin', `${what}: COOP`);
  assert.equal(header(h, 'cross-origin-embedder-policy'), 'require-corp', `${what}: COEP`);
  assert.equal(header(h, 'x-content-type-options'), 'nosniff', `${what}: nosniff`);
  const csp = header(h, 'content-security-policy');
  assert.ok(csp && csp.includes("default-src 'self'"), `${what}: CSP present (${csp})`);
}

// The error envelope: {"error":{"code","message"[, "param"]}} and nothing else.
export function assertError(res, status, code, param) {
  assert.equal(res.status, status, `status (body: ${res.text ?? res.body})`);
  const ct = header(res.headers, 'content-type') ?? '';
  assert.match(ct, /^application\/json/, 'error content type');
  const json = res.json ?? JSON.parse(res.body);
  assert.deepEqual(Object.keys(json), ['error'], 'envelope has only "error"');
  const e = json.error;
  for (const k of Object.keys(e)) assert.ok(['code', 'message', 'param'].includes(k), `unexpected key ${k}`);
  assert.equal(e.code, code, `code (message: ${e.message})`);
  assert.equal(typeof e.message, 'string');
  assert.ok(e.message.length > 10, 'message says what to do');
  if (param !== undefined) assert.equal(e.param, param, 'param names the field at fault');
  else if ('param' in e) assert.equal(typeof e.param, 'string');
  assertSecurityHeaders(res.headers, `${status} ${code}`);
  return e;
}

const isNum = (x) => typeof x === 'number' && Number.isFinite(x);

// The result envelope (docs/architecture.md): every key, with its type. spec: the
// experiment from /api/experiments, to check that params are all stated.
export function assertEnvelope(env, { experiment, backend, profile, spec } = {}) {
  for (const k of ['experiment', 'schema', 'backend', 'device', 'params', 'metrics', 'series', 'timeline', 'findings', 'stats'])
    assert.ok(k in env, `envelope has ${k}`);
  if (experiment) assert.equal(env.experiment, experiment);
  assert.equal(env.schema, 1);
  assert.ok(['cuda', 'simulated', 'recorded'].includes(env.backend));
  if (backend) assert.equal(env.backend, backend);
  assert.equal(typeof env.device, 'object');
  assert.ok(env.device.name === null || typeof env.device.name === 'string', 'device.name');
  assert.ok('profile' in env.device, 'device.profile');
  if (profile !== undefined) assert.equal(env.device.profile, profile);
  if (env.backend === 'simulated') assert.equal(typeof env.device.profile, 'string', 'a simulation names its profile');
  assert.equal(typeof env.params, 'object');
  if (spec) assert.deepEqual(Object.keys(env.params).sort(), spec.params.map((p) => p.name).sort(), 'params stated');
  assert.equal(typeof env.metrics, 'object');
  for (const [k, v] of Object.entries(env.metrics)) assert.ok(isNum(v), `metric ${k} is a finite number (${v})`);
  assert.ok(Array.isArray(env.series));
  for (const s of env.series) {
    for (const k of ['id', 'label', 'x_unit', 'y_unit']) assert.equal(typeof s[k], 'string', `series.${k}`);
    assert.ok(Array.isArray(s.points));
    for (const p of s.points) assert.ok(p.length === 2 && isNum(p[0]) && isNum(p[1]), `point ${JSON.stringify(p)}`);
  }
  assert.ok(Array.isArray(env.timeline));
  for (const e of env.timeline) {
    assert.equal(typeof e.lane, 'string');
    assert.equal(typeof e.label, 'string');
    assert.ok(isNum(e.start_us) && isNum(e.end_us) && e.end_us >= e.start_us, `timeline event ${JSON.stringify(e)}`);
  }
  assert.ok(Array.isArray(env.findings) && env.findings.length > 0, 'at least one finding');
  for (const f of env.findings) assert.ok(typeof f === 'string' && f.length > 0, 'finding is a sentence');
  assert.equal(typeof env.stats, 'object');
  assert.ok(isNum(env.stats.samples), 'stats.samples');
}

// Runs the gpulab CLI synchronously; fails on sanitizer reports.
export function cli(args, { env = {}, timeoutMs = 20000 } = {}) {
  const r = spawnSync(BIN, args, { env: childEnv(env), encoding: 'utf8', timeout: timeoutMs });
  if (r.error) throw r.error;
  assertNoSanitizerFindings(r.stderr, `gpulab ${args.join(' ')}`);
  let json;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, json };
}

// The registry and profiles, read once from the CLI (same data as the API).
export function registry() {
  return cli(['experiments', '--json']).json.experiments;
}
