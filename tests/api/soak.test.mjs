// Soak: 5000 bad requests of many kinds (bad JSON, unknown experiments,
// out-of-range params, no session, someone else's run, wrong methods,
// oversized bodies) against a class server; every one gets its error, and
// the server's resident memory does not grow past a small bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from './lib.mjs';
import { withClass, joinAs, asLearner } from './class_lib.mjs';
import { fakeGpu } from './queue_lib.mjs';

// 5000: a growth of about 800 bytes per request shows past the bound; 10,000 did not end within 300 s
// with eight busy loops on two cores
const COUNT = Number(process.env.GPULAB_SOAK_COUNT ?? 5000);
const WARMUP = 1000;
const CONCURRENCY = 16;
const GROWTH_BOUND_KIB = 4096; // RSS may settle a little (allocator arenas), not grow with the count

// AddressSanitizer keeps freed memory in quarantine and its own caches, so
// RSS says nothing there; LeakSanitizer checks for leaks at exit instead.
const underAsan = (pid) => readFileSync(`/proc/${pid}/maps`, 'utf8').includes('libasan');
const rssKiB = (pid) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]);

function badRequests(srv, cookie) {
  const big = 'x'.repeat(70 * 1024);
  const kinds = [
    () => request(srv, '/api/experiments/timing', { method: 'POST', body: '{"params":', ...asLearner(cookie) }),
    () => request(srv, '/api/experiments/nope', { method: 'POST', body: {}, ...asLearner(cookie) }),
    () => request(srv, '/api/experiments/timing', { method: 'POST', body: { params: { size: -1 } }, ...asLearner(cookie) }),
    () => request(srv, '/api/experiments/timing', { method: 'POST', body: { params: {} } }), // no session
    () => request(srv, '/api/runs/999999', asLearner(cookie)),
    () => request(srv, '/api/runs/abc', { method: 'DELETE', ...asLearner(cookie) }),
    () => request(srv, '/api/health', { method: 'PUT', body: {} }),
    () => request(srv, '/api/experiments/timing', { method: 'POST', body: big, ...asLearner(cookie) }),
    () => request(srv, '/api/class/join', { method: 'POST', body: { code: 'WRONG-CODE', name: 'x' } }),
    () => request(srv, '/api/nothing/here'),
  ];
  return kinds;
}

test(`${COUNT} bad requests: each answered with an error, and no memory growth`, { timeout: 300000 }, () =>
  withClass({ env: { ...fakeGpu(10), ASAN_OPTIONS: 'quarantine_size_mb=1:detect_leaks=1' } }, async (srv) => {
    const { cookie } = await joinAs(srv, 'Soak');
    const kinds = badRequests(srv, cookie);
    let sent = 0;
    const statuses = new Map();
    async function pump(n) {
      let next = 0;
      const worker = async () => {
        while (next < n) {
          const i = next++;
          const r = await kinds[(sent + i) % kinds.length]();
          assert.ok(r.status >= 400 && r.status < 500, `bad request answered ${r.status}: ${r.text.slice(0, 200)}`);
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      sent += n;
    }
    await pump(WARMUP);
    const before = rssKiB(srv.proc.pid);
    const t0 = performance.now();
    await pump(COUNT);
    const s = (performance.now() - t0) / 1000;
    const after = rssKiB(srv.proc.pid);
    const h = await request(srv, '/api/health');
    assert.equal(h.status, 200, 'still healthy');
    console.log(`soak: ${COUNT} bad requests in ${s.toFixed(1)} s (${(COUNT / s).toFixed(0)}/s); RSS ${before} → ${after} KiB; ` +
      `statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    if (underAsan(srv.proc.pid)) {
      console.log('soak: RSS bound not applied under AddressSanitizer; LeakSanitizer checks the exit');
      return;
    }
    assert.ok(after - before <= GROWTH_BOUND_KIB, `RSS grew ${after - before} KiB over ${COUNT} bad requests`);
  }));
