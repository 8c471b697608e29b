// A class's server while the readers are busy (server/api/reader_run.h):
// a simulated run and /api/health, timed one after another, idle (the
// peer), then during 20 reader requests (POST /api/doctor of an 8 MB
// trace, 4 learners on each of 5 addresses, each sending again once
// answered or after a refusal's Retry-After), then
// during the slow-upload attack of issue 32 (56 uploads from one address
// and 2 from each of four others, each just over 1 KiB/s). Prints p50 and
// p99 of each, the simulated run's median against idle (the ratio), the
// server's CPU and memory in each phase, and the readers' answers.
// Usage: node bench/reader_load.mjs BUILD [SAMPLES [SECONDS]]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import http from 'node:http';
import net from 'node:net';

const build = process.argv[2] ?? 'build';
const samples = Number(process.argv[3] ?? 40);
const seconds = Number(process.argv[4] ?? 8); // each phase lasts at least this long
const bin = resolve(build, 'bin', 'gpulab');
const dir = mkdtempSync(join(tmpdir(), 'gpulab-reader-bench-'));
const tracePath = join(dir, 'trace.json');
// bench/doctor_bench.py writes the Kineto-shaped trace the doctor bench reads.
spawnSync('/usr/bin/python3', ['-c', 'import sys; sys.path.insert(0, "bench"); import doctor_bench; doctor_bench.write_trace(sys.argv[1], 8)', tracePath], { stdio: 'inherit' });
const trace = readFileSync(tracePath);

mkdirSync(join(dir, 'web'));
writeFileSync(join(dir, 'web', 'index.html'), '<!doctype html><title>bench</title>\n');
const srv = spawn(bin, ['serve', '--host', '127.0.0.1', '--port', '0', '--root', join(dir, 'web')], { stdio: ['ignore', 'pipe', 'ignore'] });
const port = await new Promise((res, rej) => {
  let out = '';
  srv.stdout.on('data', (d) => {
    out += d;
    const m = out.match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
    if (m) res(Number(m[1]));
  });
  srv.on('exit', () => rej(new Error('the server exited before listening')));
});

function ask({ path, body, type = 'application/json', localAddress = '127.0.0.1', timeoutMs = 10000 }) {
  const t0 = performance.now();
  return new Promise((res) => {
    const req = http.request({ host: '127.0.0.1', port, path, localAddress, agent: false, timeout: timeoutMs,
      method: body ? 'POST' : 'GET', headers: body ? { 'Content-Type': type, 'Content-Length': body.length } : {} }, (r) => {
      r.resume().on('end', () => res({ status: r.statusCode, ms: performance.now() - t0 }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => res({ status: 0, ms: performance.now() - t0 }));
    req.end(body);
  });
}

const SIM = Buffer.from(JSON.stringify({ backend: 'simulated', params: {} }));
const cpuS = () => readFileSync(`/proc/${srv.pid}/stat`, 'utf8').split(') ')[1].split(' ').slice(11, 13).reduce((a, b) => a + Number(b), 0) / 100;
const memMiB = (k) => Number(readFileSync(`/proc/${srv.pid}/status`, 'utf8').match(new RegExp(`${k}:\\s+(\\d+) kB`))[1]) / 1024;
const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

// `samples` simulated runs and health checks, one after another, from an address of their own.
async function probe() {
  const sim = [], health = [];
  let failed = 0;
  for (let i = 0, t0 = Date.now(); i < samples || Date.now() - t0 < seconds * 1000; i++) {
    const s = await ask({ path: '/api/experiments/timing', body: SIM, localAddress: '127.0.0.20' });
    const h = await ask({ path: '/api/health', localAddress: '127.0.0.21' });
    if (s.status === 200) sim.push(s.ms); else failed++;
    if (h.status === 200) health.push(h.ms); else failed++;
  }
  return { sim, health, failed };
}

async function phase(name, load) {
  const cpu0 = cpuS();
  const stop = load();
  const r = await probe();
  const extra = await stop();
  r.cpu = cpuS() - cpu0;
  r.rss = memMiB('VmRSS');
  r.hwm = memMiB('VmHWM');
  const f = (xs) => (xs.length ? `p50 ${q(xs, 0.5).toFixed(1)} ms, p99 ${q(xs, 0.99).toFixed(1)} ms` : 'no answer');
  console.log(`  ${name.padEnd(34)} simulated run ${f(r.sim)}; /api/health ${f(r.health)}; ${r.failed} unanswered or refused`);
  console.log(`  ${''.padEnd(34)} server CPU ${r.cpu.toFixed(1)} s, RSS ${r.rss.toFixed(0)} MiB (peak so far ${r.hwm.toFixed(0)} MiB)${extra ? '; ' + extra : ''}`);
  return r;
}

// One upload as curl sends a large one: headers with "Expect: 100-continue",
// the body once the server says to go on; a refusal comes before any of it.
function post(path, body, localAddress) {
  return new Promise((res) => {
    const s = net.connect({ port, host: '127.0.0.1', localAddress });
    let answer = '', sent = false;
    s.setEncoding('latin1');
    s.on('data', (d) => {
      answer += d;
      if (!sent && answer.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        answer = answer.slice(25);
        sent = true;
        s.write(body);
      }
    });
    s.on('error', () => {});
    s.on('close', () => res({ status: Number((answer.match(/^HTTP\/1\.1 (\d{3})/) || [])[1] ?? 0),
      retry: Number((answer.match(/\r\nRetry-After: (\d+)/i) || [])[1] ?? 0) }));
    s.on('connect', () => {
      s.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`);
      setTimeout(() => { // curl's wait for a server that sends no 100 Continue
        if (!sent && !answer && !s.destroyed) {
          sent = true;
          s.write(body);
        }
      }, 1000);
    });
  });
}

// 20 learners sending traces: 4 from each of 5 addresses, each sending the
// next once answered, or after the Retry-After of a refusal.
function readers() {
  let on = true;
  const seen = {};
  const loops = Array.from({ length: 20 }, async (_, i) => {
    while (on) {
      const { status, retry } = await post('/api/doctor', trace, `127.0.1.${1 + (i % 5)}`);
      seen[status] = (seen[status] ?? 0) + 1;
      for (const end = Date.now() + retry * 1000; on && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
    }
  });
  return async () => {
    on = false;
    await Promise.all(loops);
    return `reader answers by status: ${JSON.stringify(seen)}`;
  };
}

// The slow-upload attack: 56 from one address and 2 from each of four others, just over 1 KiB/s.
function slowUploads() {
  const socks = [];
  const open = (localAddress, i) => {
    const doctor = i % 2 === 0;
    const s = net.connect({ port, host: '127.0.0.1', localAddress });
    s.on('error', () => {});
    s.on('data', () => {});
    s.on('connect', () => {
      s.write(`POST /api/${doctor ? 'doctor' : 'explain'} HTTP/1.1\r\nHost: x\r\nContent-Type: ${doctor ? 'application/json' : 'text/plain'}\r\n` +
        `Content-Length: ${doctor ? 32 << 20 : 256 << 10}\r\n\r\n`);
      s.timer = setInterval(() => !s.destroyed && s.write(Buffer.alloc(120, 0x20)), 100);
    });
    socks.push(s);
  };
  for (let i = 0; i < 56; i++) open('127.0.2.1', i);
  for (const a of [2, 3, 4, 5]) for (let i = 0; i < 2; i++) open(`127.0.2.${a}`, i);
  return async () => {
    for (const s of socks) {
      clearInterval(s.timer);
      s.destroy();
    }
    return '';
  };
}

try {
  console.log(`Readers under load: ${bin}; per phase, at least ${samples} simulated runs (timing) and health checks one after another, for ${seconds} s or more`);
  await ask({ path: '/api/health' });
  const idle = await phase('idle (peer)', () => async () => '');
  const busy = await phase('20 reader requests in flight', readers);
  await phase('slow uploads (56 + 8 at 1.2 KiB/s)', slowUploads);
  if (idle.sim.length && busy.sim.length)
    console.log(`  simulated run during the readers / idle: median ${(q(busy.sim, 0.5) / q(idle.sim, 0.5)).toFixed(2)}x, ` +
      `p99 ${(q(busy.sim, 0.99) / q(idle.sim, 0.99)).toFixed(2)}x`);
} finally {
  srv.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
