// A full disk loses no run: the class database on a small file system (a
// tmpfs mounted for the test) that is filled up while GPU runs are queued
// and running, and again while learners keep submitting. Submits the store
// cannot take answer 507 and are never run; a run the store cannot mark
// running waits unstarted; a run whose end cannot be stored keeps it until
// it can. Once space returns, every acknowledged run reaches a final state,
// and ran exactly once (the fake GPU logs each run it ran) — also across a
// restart, which requeues nothing. Needs root to mount the tmpfs: skipped,
// saying so, without it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from './lib.mjs';
import { makeClassDir, startClassServer, joinAs } from './class_lib.mjs';
import { fakeGpu, submit, getRun, waitRun } from './queue_lib.mjs';

const T = { timeout: 120000 };

// A fresh tmpfs of `mib` MiB, or null when this process may not mount one.
function mountTmpfs(mib) {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-fullfs-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${mib}m`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  return {
    dir,
    cleanup: () => {
      spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
const probe = mountTmpfs(1);
probe?.cleanup();
const skip = probe ? false : 'cannot mount a tmpfs here (needs root): no small file system to fill';

// Writes a filler file until the file system says it is full; returns its path.
function fill(dir) {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(256 * 1024, 0x61);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (e) {
    if (e.code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
  return path;
}

// How often the fake GPU ran each run: { id: count }.
function ranCounts(log) {
  const n = {};
  if (!existsSync(log)) return n;
  for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    const id = Number(line.split(' ')[0]);
    n[id] = (n[id] ?? 0) + 1;
  }
  return n;
}

test('a full disk loses no run: every acknowledged run ends once, the refused ones never run', { ...T, skip }, async () => {
  const fs = mountTmpfs(16);
  const dir = makeClassDir();
  const log = join(dir.data, 'ran.log'); // off the full file system
  const opts = {
    env: fakeGpu(150, { GPULAB_FAKE_GPU_LOG: log }),
    args: ['--runs-per-minute', '600', '--queued-runs-per-learner', '20', '--queue-max', '500', '--gpu-seconds', '3600'],
  };
  dir.db = join(fs.dir, 'class.db');
  let srv;
  try {
    srv = await startClassServer(dir, opts);
    const learners = [];
    for (let i = 0; i < 10; i++) learners.push(await joinAs(srv, `L${i}`));
    const acked = new Map(); // run id -> the learner's cookie
    const send = async (who) => {
      const r = await submit(srv, who.cookie);
      if (r.status === 202) acked.set(r.json.run.id, who.cookie);
      else assert.ok([507, 429, 503].includes(r.status), `a submit answered ${r.status}: ${r.text.slice(0, 300)}`);
      return r;
    };
    // runs queued and running when the disk fills
    for (const who of learners) for (let k = 0; k < 2; k++) await send(who);
    assert.equal(acked.size, 20);
    const filler = fill(fs.dir);
    // learners keep submitting on the full disk: some are refused (507), none is lost
    let refused = 0;
    for (let k = 0; k < 80 && refused < 10; k++) {
      const r = await send(learners[k % learners.length]);
      if (r.status === 507) {
        refused++;
        assert.equal(r.json.error.code, 'store_unavailable');
      }
    }
    assert.ok(refused > 0, 'the full disk refused a submit (else nothing here was full)');
    const full = await request(srv, '/api/health');
    assert.equal(full.status, 200, 'the server answers on a full disk');
    // the queue has met the full disk (a run's start or end not stored) before space returns
    const t0 = Date.now();
    const met = /gpulab: run \d+: (marking it running|storing its end)/; // the server logs a run the store refused
    while (!met.test(srv.stderr()) && Date.now() - t0 < 20000) await new Promise((res) => setTimeout(res, 50));
    assert.match(srv.stderr(), met, 'a run met the full store');
    rmSync(filler);
    for (const [id, cookie] of acked) {
      const run = await waitRun(srv, cookie, id, { timeoutMs: 60000, everyMs: 100 });
      assert.equal(run.status, 'done', `run ${id}: ${JSON.stringify(run).slice(0, 300)}`);
    }
    const ran = ranCounts(log);
    for (const id of acked.keys()) assert.equal(ran[id], 1, `run ${id} ran ${ran[id] ?? 0} times`);
    assert.equal(Object.keys(ran).length, acked.size, 'only acknowledged runs ran');
    // a restart finds nothing left to run again
    await srv.stop();
    srv = await startClassServer(dir, opts);
    assert.doesNotMatch(srv.stderr(), /recovered the queue/);
    for (const [id, cookie] of acked) assert.equal((await getRun(srv, cookie, id)).json.run.status, 'done');
    assert.deepEqual(ranCounts(log), ran, 'nothing ran after the restart');
  } finally {
    try {
      await srv?.stop();
    } finally {
      dir.cleanup();
      fs.cleanup();
    }
  }
});
