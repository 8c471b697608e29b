// The Slurm keeper role on the one-node Slurm fixture (2 fake GPUs): two
// servers started with --workers slurm:2 share one pair of worker jobs,
// the class's, kept by whichever server holds the store's keeper role.
// kill -9 of that server: the jobs run on, the other server takes the role
// within seconds and GPU runs keep being served; a normal stop leaves the
// jobs to the other server; the last one cancels them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fakeGpu } from '../api/queue_lib.mjs';
import { missing, newStore, startClusterServer, joinWithJar, waitFor, workersSeen } from './cluster_lib.mjs';

const T = { timeout: 120000, skip: missing() || (!process.env.SLURM_CONF && 'no Slurm fixture') || false };

const jobs = (name) => {
  const r = spawnSync('squeue', ['-h', '-n', name, '-t', 'PD,CF,R,S', '-o', '%i'], { encoding: 'utf8', timeout: 20000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).sort();
};
const KEEPS = /this server keeps the class's 2 GPU worker jobs/;
const gpuRun = (jar, target) =>
  jar.request(target, '/api/experiments/timing', { method: 'POST', body: { params: {}, backend: 'cuda' } });

async function twoKeepers(uri, env) {
  const args = ['--runs-per-minute', '600'];
  const a = await startClusterServer(uri, { env, workers: 'slurm:2', args });
  const b = await startClusterServer(uri, { env, workers: 'slurm:2', args });
  const name = a.stderr().match(/Slurm jobs named (gpulab-worker-[0-9a-f]+)/)?.[1];
  assert.ok(name, a.stderr());
  assert.match(b.stderr(), new RegExp(`Slurm jobs named ${name}`), 'one job name for the class, whichever server');
  const keeper = await waitFor(() => [a, b].find((s) => KEEPS.test(s.stderr())), { what: 'a keeper' });
  const other = keeper === a ? b : a;
  await workersSeen([a, b], 2, { timeoutMs: 30000 });
  assert.equal(jobs(name).length, 2);
  assert.doesNotMatch(other.stderr(), KEEPS, 'one keeper at a time');
  return { keeper, other, name };
}

test('kill -9 of the Slurm-keeping server: its jobs run on, the other server keeps them within seconds, GPU runs served within 10 s', T, async (t) => {
  const { uri } = newStore();
  const { keeper, other, name } = await twoKeepers(uri, fakeGpu(200));
  try {
    const before = jobs(name);
    const jar = await joinWithJar(other, 'Ada', other.joinCode);
    const t0 = Date.now();
    keeper.proc.kill('SIGKILL');
    await keeper.exited;
    await waitFor(() => KEEPS.test(other.stderr()), { timeoutMs: 10000, what: 'the other server taking the keeper role' });
    const takeover = Date.now() - t0;
    const served = await waitFor(async () => {
      const r = await gpuRun(jar, other);
      if (r.status !== 202) return false;
      const id = r.json.run.id;
      return waitFor(async () => {
        const g = await jar.request(other, `/api/runs/${id}`);
        return g.json?.run?.status === 'done' && Date.now();
      }, { timeoutMs: 10000, what: `run ${id} done` });
    }, { timeoutMs: 10000, everyMs: 200, what: 'a GPU run accepted' });
    const servedMs = served - t0;
    t.diagnostic(`keeper takeover ${takeover} ms after kill -9; a GPU run done ${servedMs} ms after it`);
    assert.ok(servedMs < 10000, `a GPU run served ${servedMs} ms after the kill`);
    assert.deepEqual(jobs(name), before, 'the same jobs: none killed with the server, none submitted twice');
  } finally {
    await other.stop();
    keeper.proc.kill('SIGKILL');
  }
  await waitFor(() => jobs(name).length === 0, { timeoutMs: 15000, what: 'the last server cancelling the jobs' });
});

test('a normal stop leaves the jobs to the other server (within 5 s); the last one to stop cancels them', T, async () => {
  const { uri } = newStore();
  const { keeper, other, name } = await twoKeepers(uri, fakeGpu(200));
  try {
    const before = jobs(name);
    const { ms } = await keeper.stop({ poke: true });
    assert.ok(ms < 5000, `the keeper stopped in ${ms} ms`);
    assert.match(keeper.stderr(), /leaving the jobs \(gpulab-worker-[0-9a-f]+\) to the 1 other server/);
    await waitFor(() => KEEPS.test(other.stderr()), { timeoutMs: 10000, what: 'the other server taking the role' });
    assert.deepEqual(jobs(name), before, 'the jobs ran on');
  } finally {
    const { ms } = await other.stop({ poke: true });
    assert.ok(ms < 5000, `the last server stopped in ${ms} ms`);
  }
  assert.match(other.stderr(), /no other server of the class keeps workers: cancelled its jobs/);
  await waitFor(() => jobs(name).length === 0, { timeoutMs: 15000, what: 'the jobs ending' });
});
