// A GPU worker that dies while idle is replaced before the next run is
// given to it: that run never fails for it (it once failed 1 time in 6).
// The fake GPU stands in for the device; the worker is killed with SIGKILL
// between runs, six times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from './lib.mjs';
import { withClass, joinAs } from './class_lib.mjs';
import { fakeGpu, submitQueued, waitRun, childPids } from './queue_lib.mjs';

const T = { timeout: 60000 };

// The server's live (not zombie) children.
const liveChildren = (pid) => childPids(pid).filter((c) => {
  try {
    return !/^\d+ \([^)]*\) Z/.test(readFileSync(`/proc/${c}/stat`, 'utf8'));
  } catch {
    return false;
  }
});

async function killIdleWorker(srv) {
  const kids = liveChildren(srv.proc.pid);
  assert.equal(kids.length, 1, `one GPU worker: ${kids}`);
  process.kill(kids[0], 'SIGKILL');
  const t0 = Date.now();
  while (liveChildren(srv.proc.pid).includes(kids[0])) {
    if (Date.now() - t0 > 5000) assert.fail('the worker did not die');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a_worker_killed_while_idle_is_replaced_before_the_next_run', T, () =>
  withClass({ env: fakeGpu(50), args: ['--runs-per-minute', '60'] }, async (srv) => {
    const a = await joinAs(srv, 'Ada');
    assert.equal((await waitRun(srv, a.cookie, (await submitQueued(srv, a.cookie)).id)).status, 'done');
    for (let i = 0; i < 6; i++) {
      await killIdleWorker(srv);
      const run = await waitRun(srv, a.cookie, (await submitQueued(srv, a.cookie)).id);
      assert.equal(run.status, 'done', `run ${i + 1} after a kill: ${JSON.stringify(run.error ?? run).slice(0, 300)}`);
    }
    assert.ok((await request(srv, '/api/health')).json.worker.restarts >= 6, 'each replacement is counted');
  }));
