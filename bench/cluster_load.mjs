// A simulated course against one URL (HAProxy in front of several servers,
// or one server): LEARNERS learners arrive over RAMP_S seconds, each from
// one of 250 loopback addresses (as a class comes from many machines), joins,
// then runs RUNS GPU experiments one after the other, polling each every
// POLL_MS until it ended, as the page does. A refusal with Retry-After is
// waited out and tried again. Prints one JSON line: runs per second, queue
// waits (p50, p99; started_at - queued_at as the store recorded them), the
// spread of waits across learners, refusals by code, and — with the fake
// GPU's log (GPULAB_FAKE_GPU_LOG) — that every acknowledged run ran once.
// Usage: node bench/cluster_load.mjs URL CODE LEARNERS RUNS [LOG]
import http from 'node:http';
import { readFileSync, existsSync } from 'node:fs';

const [url, code, learnersArg, runsArg, log] = process.argv.slice(2);
const LEARNERS = Number(learnersArg), RUNS = Number(runsArg);
const RAMP_S = Number(process.env.RAMP_S ?? 5), POLL_MS = Number(process.env.POLL_MS ?? 1000);
const { hostname, port } = new URL(url);

function call(localAddress, method, path, body, cookie) {
  return new Promise((resolve) => {
    const data = body ? JSON.stringify(body) : null;
    const headers = { ...(data ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) } : {}), ...(cookie ? { Cookie: cookie } : {}) };
    const req = http.request({ host: hostname, port, method, path, headers, localAddress, timeout: 30000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode, headers: res.headers, json });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ status: 0, error: e.message, headers: {} }));
    if (data) req.write(data);
    req.end();
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const refusals = {};
const acked = [];
const waitsByLearner = [];
const problems = [];

function cookiesOf(res, jar) {
  for (const line of [].concat(res.headers['set-cookie'] ?? [])) {
    const [pair] = line.split(';');
    const i = pair.indexOf('=');
    jar.set(pair.slice(0, i), pair.slice(i + 1));
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
}

// Retries a call while it is refused with a Retry-After (or the connection fails).
async function patient(addr, method, path, body, jar, want) {
  for (let tries = 0; tries < 60; tries++) {
    const r = await call(addr, method, path, body, [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    cookiesOf(r, jar);
    if (r.status === want) return r;
    const key = r.status ? `${r.status} ${r.json?.error?.code ?? ''}`.trim() : `socket ${r.error}`;
    refusals[key] = (refusals[key] ?? 0) + 1;
    await sleep(r.headers['retry-after'] ? Math.min(Number(r.headers['retry-after']), 10) * 1000 : 500);
  }
  throw new Error(`${method} ${path}: never ${want}`);
}

async function learner(i) {
  await sleep((RAMP_S * 1000 * i) / LEARNERS);
  const addr = `127.0.1.${1 + (i % 250)}`;
  const jar = new Map();
  await patient(addr, 'POST', '/api/class/join', { code, name: `learner ${i}` }, jar, 200);
  const waits = [];
  for (let k = 0; k < RUNS; k++) {
    const q = await patient(addr, 'POST', '/api/experiments/timing', { params: {}, backend: 'cuda' }, jar, 202);
    const id = q.json.run.id;
    acked.push(id);
    for (;;) {
      await sleep(POLL_MS);
      const r = await patient(addr, 'GET', `/api/runs/${id}`, null, jar, 200);
      const run = r.json.run;
      if (run.status === 'done') {
        waits.push(Date.parse(run.started_at) - Date.parse(run.queued_at));
        break;
      }
      if (run.status === 'failed' || run.status === 'cancelled') {
        problems.push(`run ${id} ${run.status} ${run.error_code}`);
        break;
      }
    }
  }
  waitsByLearner.push(waits);
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

const t0 = performance.now();
await Promise.all(Array.from({ length: LEARNERS }, (_, i) => learner(i)));
const wall = (performance.now() - t0) / 1000;
const waits = waitsByLearner.flat();
const means = waitsByLearner.filter((w) => w.length).map((w) => w.reduce((a, b) => a + b, 0) / w.length);
let once = null;
if (log && existsSync(log)) {
  const seen = new Map();
  for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    const id = Number(line.split(' ')[0]);
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  const wrong = acked.filter((id) => seen.get(id) !== 1).length;
  const extra = [...seen.keys()].filter((id) => !acked.includes(id)).length;
  once = { acknowledged: acked.length, ran_exactly_once: acked.length - wrong, ran_not_once: wrong, unacknowledged_ran: extra };
}
console.log(JSON.stringify({
  learners: LEARNERS, runs: waits.length, wall_s: +wall.toFixed(1), runs_per_s: +(waits.length / wall).toFixed(1),
  wait_p50_ms: pct(waits, 50), wait_p99_ms: pct(waits, 99),
  learner_mean_wait_ms: { p10: Math.round(pct(means, 10)), p50: Math.round(pct(means, 50)), p90: Math.round(pct(means, 90)), max: Math.round(Math.max(...means)) },
  refusals, problems: problems.slice(0, 5), problem_count: problems.length, once,
}));
