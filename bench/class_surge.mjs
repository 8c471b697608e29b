// The class-start surge: a lecture hall of LEARNERS (default 300) joins one
// class server within RAMP_S (default 60) seconds, twice — all from ONE
// address (a school behind one NAT) and from 300 addresses — each doing what
// the page does: join (a 429 is retried after its Retry-After, as the page
// does), load the page's API calls, run one simulated experiment and one GPU
// run through the queue (the test-only fake GPU, 50 ms a run), polled to its
// end. Prints, per scenario: learners in, join time p50/p99 (first try to
// in, retries included) and request latency p50/p99, refusals by code, the
// server's peak RSS, and acknowledged runs vs runs stored in the class
// database. Goal: all in, request p99 < 1 s, nothing lost.
// Usage: node bench/class_surge.mjs BUILD
import { spawn, execFileSync } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, mkdirSync, cpSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const build = process.argv[2] ?? 'build';
const LEARNERS = Number(process.env.LEARNERS ?? 300);
const RAMP_S = Number(process.env.RAMP_S ?? 60);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

async function startClass() {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-surge-'));
  const db = join(dir, 'class.db');
  const env = { ...process.env, GPULAB_TEST_HOOKS: '1', GPULAB_FAKE_GPU_MS: '50' };
  const proc = spawn(join(build, 'bin/gpulab'),
    ['serve', '--host', '127.0.0.1', '--port', '0', '--root', join(build, 'web'), '--db', db, '--class-name', 'surge'],
    { env, stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (d) => (out += d));
  const t0 = Date.now();
  while (!/join code: ([A-Z2-9]{4}-[A-Z2-9]{4})/.test(out)) {
    if (Date.now() - t0 > 20000 || proc.exitCode !== null) throw new Error(`class server did not start:\n${out}`);
    await sleep(50);
  }
  const port = Number(out.match(/listening on http:\/\/127\.0\.0\.1:(\d+)/)[1]);
  const code = out.match(/join code: ([A-Z2-9]{4}-[A-Z2-9]{4})/)[1];
  return { proc, port, code, db, dir };
}

function call(port, localAddress, method, path, body, cookie) {
  return new Promise((resolve) => {
    const data = body ? JSON.stringify(body) : null;
    const headers = { ...(data ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) } : {}), ...(cookie ? { Cookie: cookie } : {}) };
    const t0 = performance.now();
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, localAddress, timeout: 30000, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let json;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolve({ status: res.statusCode, headers: res.headers, json, ms: performance.now() - t0 });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ status: 0, error: e.message, headers: {}, ms: performance.now() - t0 }));
    if (data) req.write(data);
    req.end();
  });
}

async function scenario(label, addressOf) {
  const srv = await startClass();
  const lat = [], joinMs = [], refusals = {}, problems = [];
  let inClass = 0, acked = 0;
  const jarOf = () => new Map();
  const cookie = (jar) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const keep = (res, jar) => {
    for (const line of [].concat(res.headers['set-cookie'] ?? [])) {
      const [pair] = line.split(';');
      const i = pair.indexOf('=');
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
  };
  const timed = async (addr, method, path, body, jar) => {
    const r = await call(srv.port, addr, method, path, body, cookie(jar));
    lat.push(r.ms);
    keep(r, jar);
    if (r.status >= 400 || r.status === 0) {
      const key = r.status ? `${r.status} ${r.json?.error?.code ?? ''}`.trim() : `socket ${r.error}`;
      refusals[key] = (refusals[key] ?? 0) + 1;
    }
    return r;
  };
  const learner = async (i) => {
    await sleep((RAMP_S * 1000 * i) / LEARNERS);
    const addr = addressOf(i), jar = jarOf();
    const t0 = performance.now();
    let j;
    for (let tries = 0; tries < 30; tries++) { // the page's own retry: Retry-After, bounded
      j = await timed(addr, 'POST', '/api/class/join', { code: srv.code, name: `learner ${i}` }, jar);
      if (j.status !== 429 && j.status !== 503) break;
      await sleep(Math.min(Number(j.headers['retry-after'] ?? 1), 10) * 1000);
    }
    if (j.status !== 200) return problems.push(`learner ${i}: join ${j.status}`);
    joinMs.push(performance.now() - t0);
    inClass++;
    for (const p of ['/api/health', '/api/device', '/api/session', '/api/lessons'])
      await timed(addr, 'GET', p, null, jar);
    const sim = await timed(addr, 'POST', '/api/experiments/timing', { params: {}, backend: 'simulated', profile: 't4' }, jar);
    if (sim.status === 200) acked++;
    else problems.push(`learner ${i}: simulated run ${sim.status}`);
    const q = await timed(addr, 'POST', '/api/experiments/timing', { params: {}, backend: 'cuda' }, jar);
    if (q.status !== 202) return problems.push(`learner ${i}: GPU run ${q.status} ${q.json?.error?.code ?? ''}`);
    acked++;
    for (let k = 0; k < 600; k++) {
      const r = await timed(addr, 'GET', `/api/runs/${q.json.run.id}`, null, jar);
      if (['done', 'failed', 'cancelled'].includes(r.json?.run?.status)) break;
      await sleep(500);
    }
  };
  const t0 = Date.now();
  await Promise.all(Array.from({ length: LEARNERS }, (_, i) => learner(i)));
  const wall = (Date.now() - t0) / 1000;
  const status = readFileSync(`/proc/${srv.proc.pid}/status`, 'utf8');
  const rssKiB = Number(status.match(/VmHWM:\s+(\d+)/)[1]);
  srv.proc.kill('SIGTERM');
  await new Promise((r) => srv.proc.on('exit', r));
  const stored = Number(execFileSync('sqlite3', [srv.db, 'SELECT count(*) FROM runs'], { encoding: 'utf8' }).trim());
  rmSync(srv.dir, { recursive: true, force: true });
  const f = (x) => `${x.toFixed(0)} ms`;
  console.log(`  ${label}: ${inClass}/${LEARNERS} in within ${wall.toFixed(0)} s; join (first try to in) p50 ${f(pct(joinMs, 50))} p99 ${f(pct(joinMs, 99))}; ` +
    `requests ${lat.length}, p50 ${f(pct(lat, 50))} p99 ${f(pct(lat, 99))}; peak RSS ${(rssKiB / 1024).toFixed(0)} MiB`);
  console.log(`    refusals by code: ${JSON.stringify(refusals)}; acknowledged runs ${acked}, stored ${stored} (${stored === acked ? 'nothing lost' : 'MISMATCH'})` +
    `; goal (all in, p99 < 1 s, nothing lost): ${inClass === LEARNERS && pct(lat, 99) < 1000 && stored === acked ? 'met' : 'MISSED'}`);
  if (problems.length) console.log(`    problems (first 5 of ${problems.length}): ${problems.slice(0, 5).join('; ')}`);
}

console.log(`Class-start surge: ${LEARNERS} learners join within ${RAMP_S} s, each loads the page's API calls, runs one simulated and one GPU-queue run (fake GPU, 50 ms)`);
await scenario('one address (127.0.0.1, a school NAT)', () => '127.0.0.1');
await scenario(`${LEARNERS} addresses`, (i) => `127.0.3.${1 + (i % 250)}`.replace(/^127\.0\.3\.(\d+)$/, (m, d) => (i < 250 ? m : `127.0.4.${d}`)));
