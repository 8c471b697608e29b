// Fairness across servers and workers: a learner flooding the queue through
// two servers cannot starve a quiet one. Two workers claim from one queue
// (the least recently served learner's oldest run first), so the quiet
// learner's runs start within a couple of claims of being queued, not after
// the flood.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeGpu } from '../api/queue_lib.mjs';
import { missing, newStore, startClusterServer, startWorker, joinWithJar, waitFor, workersSeen } from './cluster_lib.mjs';

const T = { timeout: 90000, skip: missing() || false };

const gpuRun = (jar, srv) =>
  jar.request(srv, '/api/experiments/timing', { method: 'POST', body: { params: {}, backend: 'cuda' } });

async function ended(jar, srvs, id) {
  return waitFor(async () => {
    const r = await jar.request(srvs[id % 2], `/api/runs/${id}`);
    return ['done', 'failed'].includes(r.json?.run?.status) && r.json.run;
  }, { timeoutMs: 60000, what: `run ${id} ending` });
}

test('a flooding learner and a quiet one across two servers and two workers: the quiet one is not starved', T, async (t0) => {
  const { uri } = newStore();
  // Runs long enough that the flood is still queued when the quiet learner
  // arrives even on a busy machine (each 202 waits for a fresh queue view).
  const env = fakeGpu(600);
  const args = ['--queued-runs-per-learner', '40', '--runs-per-minute', '600', '--queue-max', '200'];
  const a = await startClusterServer(uri, { env, args });
  const b = await startClusterServer(uri, { env, args });
  const workers = [await startWorker(uri, { env }), await startWorker(uri, { env })];
  try {
    await workersSeen([a, b], 2);
    const flood = await joinWithJar(a, 'Flood', a.joinCode);
    const quiet = await joinWithJar(b, 'Quiet', a.joinCode);
    const floodIds = [];
    for (let i = 0; i < 24; i++) {
      const r = await gpuRun(flood, i % 2 ? b : a);
      assert.equal(r.status, 202, r.text);
      floodIds.push(r.json.run.id);
    }
    const quietIds = [];
    for (const srv of [b, a]) {
      const r = await gpuRun(quiet, srv);
      assert.equal(r.status, 202, r.text);
      quietIds.push(r.json.run.id);
    }
    const floodRuns = [];
    for (const id of floodIds) floodRuns.push(await ended(flood, [a, b], id));
    const quietRuns = [];
    for (const id of quietIds) quietRuns.push(await ended(quiet, [a, b], id));
    for (const r of [...floodRuns, ...quietRuns]) assert.equal(r.status, 'done', JSON.stringify(r).slice(0, 300));
    // Each run ran once, on one of the two workers.
    const t = (s) => Date.parse(s);
    const quietQueued = t(quietRuns[0].queued_at), quietLast = t(quietRuns[1].started_at);
    const floodBetween = floodRuns.filter((r) => t(r.started_at) > quietQueued && t(r.started_at) < quietLast).length;
    const floodAfter = floodRuns.filter((r) => t(r.started_at) > quietLast).length;
    t0.diagnostic(`flood runs started while the quiet learner waited: ${floodBetween}; after it was served: ${floodAfter}`);
    assert.ok(floodBetween <= 3, `at most 3 flood runs started between the quiet learner's first queueing and its second run's start (${floodBetween})`);
    assert.ok(floodAfter >= 10, `most of the flood ran after the quiet learner was served (${floodAfter} of 24)`);
  } finally {
    for (const w of workers) await w.stop();
    await a.stop();
    await b.stop();
  }
});
