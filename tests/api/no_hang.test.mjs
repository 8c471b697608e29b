// Nothing waits forever (issue: a classroom server hung for good). The hang
// came from fork() in the device probe while OpenBLAS ran an sgemm: its
// fork handler shut the BLAS pool down under the running call. Children
// now start with posix_spawn (no fork handler runs); requests wait for the
// device probe at most 2 s; SIGTERM stops the server within 5 s with runs
// in flight; a watchdog says in /api/health what hangs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withServer, startServer, makeWebRoot, makeFakeSmi, request, postRun, assertError, assertEnvelope } from './lib.mjs';
import { withClass, joinAs, asLearner } from './class_lib.mjs';
import { fakeGpu, submitQueued, waitRunning } from './queue_lib.mjs';

const NO_NVML = { GPULAB_NVML_LIB: '/nonexistent/libnvidia-ml.so.1' };

function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-nohang-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// Polls fn until it returns a truthy value; fails after timeoutMs.
async function until(fn, { timeoutMs = 15000, everyMs = 100, what = 'the condition' } = {}) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) assert.fail(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

test('blas_busy_on_crossover_while_probes_and_worker_restarts_start_children_the_server_keeps_answering', { timeout: 120000 }, async () => {
  const t = tempDir();
  const smi = makeFakeSmi(t.dir, {
    csv: 'Fake GPU, 81559, 80000, 550.54, 00000000:01:00.0',
    banner: '| NVIDIA-SMI 550.54   Driver Version: 550.54   CUDA Version: 12.4 |',
  });
  try {
    await withServer({ env: { ...NO_NVML, GPULAB_NVIDIA_SMI: smi, GPULAB_TEST_HOOKS: '1' }, intentionalCrash: true }, async (srv) => {
      const end = Date.now() + 12000; // bounded: the race is built on purpose, not hoped for
      const seen = { crossover: 0, device: 0, crash: 0, health: 0 };
      const loop = async (fn) => {
        while (Date.now() < end) await fn();
      };
      await Promise.all([
        // two sgemm sweeps in flight at once keep OpenBLAS's threads busy
        ...[1, 2].map(() =>
          loop(async () => {
            const r = await postRun(srv, 'crossover', { params: { max_size: 512, samples: 3 }, backend: 'simulated' }, { timeoutMs: 30000 });
            assert.equal(r.status, 200, r.text.slice(0, 300));
            seen.crossover++;
          })),
        // every /api/device past the 1 s cache runs nvidia-smi
        loop(async () => {
          const r = await request(srv, '/api/device', { timeoutMs: 5000 });
          assert.ok(r.status === 200 || r.status === 503, r.text.slice(0, 300));
          if (r.status === 503) assertError(r, 503, 'device_check_timeout');
          seen.device++;
          await new Promise((res) => setTimeout(res, 150));
        }),
        // each crash restarts the GPU worker process
        loop(async () => {
          assertError(await postRun(srv, '_crash', {}, { timeoutMs: 30000 }), 500, 'worker_crashed');
          seen.crash++;
        }),
        loop(async () => {
          const r = await request(srv, '/api/health', { timeoutMs: 5000 });
          assert.equal(r.status, 200);
          seen.health++;
          await new Promise((res) => setTimeout(res, 100));
        }),
      ]);
      assert.ok(seen.crossover >= 2 && seen.device >= 5 && seen.crash >= 2, JSON.stringify(seen));
      const stop = await srv.stop({ poke: false });
      assert.ok(stop.ms < 5000, `stopped in ${stop.ms.toFixed(0)} ms`);
      assert.equal(stop.code, 0, srv.stderr().slice(-800));
    });
  } finally {
    t.cleanup();
  }
});

test('sigterm_with_a_gpu_run_in_flight_stops_within_5_s_and_answers_server_stopping', { timeout: 60000 }, async () => {
  const web = makeWebRoot();
  const srv = await startServer({
    root: web.root, deadline: 60, env: { GPULAB_TEST_HOOKS: '1', GPULAB_WATCHDOG_STUCK_S: '1' },
  });
  try {
    // Early answers first: they must not leave a request counted as running.
    assert.equal((await request(srv, '/api/nowhere')).status, 404);
    assertError(await postRun(srv, 'timing', '{', {}), 400, 'invalid_json');
    const hang = postRun(srv, '_hang', {}, { timeoutMs: 30000 });
    // The watchdog names the request that runs past every deadline: the
    // event that says the run is in flight.
    const h = await until(async () => {
      const r = await request(srv, '/api/health');
      return r.json.status === 'degraded' ? r : null;
    }, { what: 'health degraded' });
    assert.match(h.json.reason, /request has run for \d+ s.*POST \/api\/experiments\/_hang/);
    const stop = await srv.stop({ poke: false });
    assert.ok(stop.ms < 5000, `stopped in ${stop.ms.toFixed(0)} ms`);
    assertError(await hang, 503, 'server_stopping');
    assert.match(srv.stderr(), /gpulab: watchdog: degraded: a request has run for/);
  } finally {
    await srv.stop();
    web.cleanup();
  }
});

test('sigterm_in_class_mode_with_a_queued_run_running_stops_within_5_s_and_the_run_is_not_lost', { timeout: 60000 }, () =>
  withClass({ env: fakeGpu(60000) }, async (srv, dir) => {
    const a = await joinAs(srv, 'Ada');
    const run = await submitQueued(srv, a.cookie, 'timing');
    await waitRunning(srv, a.cookie, run.id);
    const stop = await srv.stop({ poke: false });
    assert.ok(stop.ms < 5000, `stopped in ${stop.ms.toFixed(0)} ms`);
    // The next start finds the run ended with a stable code, not vanished.
    const again = await startServer({ root: dir.root, args: ['--db', dir.db], env: fakeGpu(10) });
    try {
      const r = await request(again, `/api/runs/${run.id}`, asLearner(a.cookie));
      assert.equal(r.status, 200, r.text);
      assert.ok(['failed', 'queued', 'running', 'done'].includes(r.json.run.status), r.text);
      if (r.json.run.status === 'failed') assert.equal(r.json.run.error_code, 'worker_crashed');
    } finally {
      await again.stop();
    }
  }));

test('a_device_check_that_hangs_gives_the_last_view_marked_stale_then_never_holds_a_request', { timeout: 60000 }, async () => {
  const t = tempDir();
  const flag = join(t.dir, 'hang');
  const smi = join(t.dir, 'nvidia-smi');
  // Answers at once until the flag file exists; then hangs past the probe's deadline.
  writeFileSync(smi, `#!/bin/sh\nif [ -e '${flag}' ]; then exec sleep 60; fi\n` +
    `if [ "$#" -eq 0 ]; then echo 'CUDA Version: 12.4'; exit 0; fi\necho 'Fake GPU, 81559, 80000, 550.54, 00000000:01:00.0'\n`);
  chmodSync(smi, 0o755);
  try {
    await withServer({ env: { ...NO_NVML, GPULAB_NVIDIA_SMI: smi } }, async (srv) => {
      const first = await until(async () => {
        const r = await request(srv, '/api/device');
        return r.status === 200 && r.json.driver.source === 'nvidia-smi' ? r : null;
      }, { what: 'a first view from nvidia-smi' });
      assert.equal(first.json.stale, undefined);
      writeFileSync(flag, '');
      let slowest = 0;
      const stale = await until(async () => {
        const t0 = performance.now();
        const r = await request(srv, '/api/device');
        slowest = Math.max(slowest, performance.now() - t0);
        assert.equal(r.status, 200, r.text.slice(0, 200));
        return r.json.stale === true ? r : null;
      }, { what: 'a stale view' });
      assert.equal(stale.json.driver.source, 'nvidia-smi', 'the last good view');
      assert.equal(typeof stale.json.age_s, 'number');
      // Waiting is bounded by the 2 s probe wait, not by nvidia-smi's hang.
      assert.ok(slowest < 4500, `slowest /api/device ${slowest.toFixed(0)} ms`);
      const h = await request(srv, '/api/health', { timeoutMs: 5000 });
      assert.equal(h.status, 200);
      // nvidia-smi is killed at its 5 s deadline: the probe ends and says why.
      const failed = await until(async () => {
        const r = await request(srv, '/api/device');
        return r.status === 200 && !r.json.stale ? r : null;
      }, { what: 'the probe ended by the nvidia-smi deadline', timeoutMs: 20000 });
      assert.match(failed.json.driver.error, /nvidia-smi did not answer within 5 s and was stopped/);
      rmSync(flag);
      await until(async () => {
        const r = await request(srv, '/api/device');
        return r.status === 200 && !r.json.stale && r.json.driver.source === 'nvidia-smi';
      }, { what: 'a fresh view after nvidia-smi recovered', timeoutMs: 20000 });
    });
  } finally {
    t.cleanup();
  }
});

test('a_device_view_a_few_seconds_old_is_answered_at_once_with_its_age_while_a_probe_refreshes_it', { timeout: 60000 }, async () => {
  const t = tempDir();
  const slow = join(t.dir, 'slow'), started = join(t.dir, 'started'), release = join(t.dir, 'release');
  const smi = join(t.dir, 'nvidia-smi');
  // Answers at once until "slow" exists; then it says it started and waits for "release" (at most 30 s).
  writeFileSync(smi, `#!/bin/sh\nif [ -e '${slow}' ]; then touch '${started}'; i=0; ` +
    `while [ ! -e '${release}' ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; fi\n` +
    `if [ "$#" -eq 0 ]; then echo 'CUDA Version: 12.4'; exit 0; fi\necho 'Fake GPU, 81559, 80000, 550.54, 00000000:01:00.0'\n`);
  chmodSync(smi, 0o755);
  try {
    await withServer({ env: { ...NO_NVML, GPULAB_NVIDIA_SMI: smi } }, async (srv) => {
      await until(async () => {
        const r = await request(srv, '/api/device');
        return r.status === 200 && r.json.driver.source === 'nvidia-smi' && r.json.age_s === undefined ? r : null;
      }, { what: 'a first view from nvidia-smi, checked just now' });
      writeFileSync(slow, '');
      // Once the view is a second old, the request that finds it so starts a probe and is answered from the
      // cache at once: nvidia-smi is still held, so this answer cannot have waited for it.
      const cached = await until(async () => {
        const r = await request(srv, '/api/device');
        assert.equal(r.status, 200, r.text.slice(0, 200));
        return typeof r.json.age_s === 'number' ? r : null;
      }, { what: 'an answer from the cache' });
      assert.equal(existsSync(release), false);
      assert.equal(cached.json.stale, undefined, 'a view a second old is not a hung check');
      assert.ok(cached.json.age_s >= 1 && cached.json.age_s < 10, `age ${cached.json.age_s} s`);
      assert.equal(cached.json.driver.source, 'nvidia-smi');
      await until(async () => existsSync(started), { what: 'the refreshing probe running nvidia-smi' });
      writeFileSync(release, '');
      // The probe behind the answer ends and the next request gets its view, checked just now.
      await until(async () => {
        const r = await request(srv, '/api/device');
        return r.status === 200 && r.json.age_s === undefined && r.json.driver.source === 'nvidia-smi' ? r : null;
      }, { what: 'the refreshed view' });
    });
  } finally {
    t.cleanup();
  }
});

test('a_first_device_check_that_never_answers_is_503_device_check_timeout_and_runs_simulate', { timeout: 60000 }, async () => {
  const t = tempDir();
  const smi = join(t.dir, 'nvidia-smi');
  writeFileSync(smi, '#!/bin/sh\nexec sleep 60\n');
  chmodSync(smi, 0o755);
  try {
    await withServer({ env: { ...NO_NVML, GPULAB_NVIDIA_SMI: smi } }, async (srv) => {
      const r = await request(srv, '/api/device');
      if (r.status === 503) {
        assertError(r, 503, 'device_check_timeout');
        assert.ok(Number(r.headers.get('retry-after')) >= 1);
      } else {
        // On a very slow machine the 5 s nvidia-smi deadline may already have passed.
        assert.equal(r.status, 200);
        assert.match(r.json.driver.error, /did not answer within 5 s/);
      }
      const run = await postRun(srv, 'timing', { params: { size: 256 } }, { timeoutMs: 20000 });
      assert.equal(run.status, 200, run.text.slice(0, 300));
      assertEnvelope(run.json, { experiment: 'timing', backend: 'simulated' });
      const after = await until(async () => {
        const d = await request(srv, '/api/device');
        return d.status === 200 ? d : null;
      }, { what: 'the device view once nvidia-smi was stopped', timeoutMs: 20000 });
      assert.match(after.json.driver.error, /nvidia-smi did not answer within 5 s and was stopped/);
    });
  } finally {
    t.cleanup();
  }
});

test('health_is_degraded_while_the_class_store_cannot_be_written', { timeout: 60000 }, () =>
  withClass({}, async (srv, dir) => {
    const ok = await request(srv, '/api/health');
    assert.equal(ok.json.status, 'ok');
    rmSync(dir.data, { recursive: true, force: true });
    const h = await until(async () => {
      const r = await request(srv, '/api/health');
      assert.equal(r.status, 200, 'the server is up');
      return r.json.status === 'degraded' ? r : null;
    }, { what: 'health degraded', timeoutMs: 20000 });
    assert.match(h.json.reason, /class store cannot be written \(store_unavailable/);
    assert.ok(!existsSync(dir.db), 'no new database was made under the old name');
  }));
