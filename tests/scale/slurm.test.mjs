// `serve --workers slurm:2` on the one-node Slurm fixture with 2 fake GPUs:
// two long-lived batch jobs (`sbatch --gres=gpu:1 … gpulab worker`), the
// class's, each bound by Slurm to its own GPU (CUDA_VISIBLE_DEVICES 0 and
// 1), runs spread over both; a job cancelled mid-run (scancel) hands its
// run back and is replaced; at shutdown the server, the last one keeping
// the class's workers, cancels the jobs. keeper.test.mjs has two keepers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request } from '../api/lib.mjs';
import { fakeGpu } from '../api/queue_lib.mjs';
import { missing, newStore, startClusterServer, joinWithJar, waitFor, workersSeen, psql, asInstructor } from './cluster_lib.mjs';

const T = { timeout: 120000, skip: missing() || (!process.env.SLURM_CONF && 'no Slurm fixture') || false };

const slurm = (cmd, args) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 20000 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
};
// The ids of the jobs named NAME (in STATES, a squeue -t list, when given).
const jobs = (name, states) =>
  slurm('squeue', ['-h', '-n', name, ...(states ? ['-t', states] : []), '-o', '%i']).split('\n').filter(Boolean);
const jobStates = (name) => slurm('squeue', ['-h', '-t', 'all', '-n', name, '-o', '%i %T %r']);

test('--workers slurm:2: two GPU-bound Slurm workers, runs spread over both, the run of a cancelled job handed back and the job replaced, all cancelled at stop', T, async () => {
  const { uri, db } = newStore();
  // Runs outlast a worker's 2 s grace at SIGTERM, so the cancelled one is handed back.
  const env = fakeGpu(4000);
  const a = await startClusterServer(uri, { env, workers: 'slurm:2', args: ['--runs-per-minute', '60'] });
  let name = '';
  try {
    name = a.stderr().match(/Slurm jobs named (gpulab-worker-[0-9a-f]+)/)?.[1] ??
      (await waitFor(() => a.stderr().match(/Slurm jobs named (gpulab-worker-[0-9a-f]+)/), { what: 'the keeper line' }))[1];
    const [list] = await workersSeen([a], 2, { timeoutMs: 30000 });
    assert.deepEqual(list.map((w) => w.cuda_visible_devices).sort(), ['0', '1'], 'Slurm bound each to its own GPU');
    for (const w of list) {
      assert.equal(w.kind, 'slurm');
      assert.match(w.slurm_job_id, /^\d+$/);
    }
    assert.deepEqual(jobs(name).sort(), list.map((w) => w.slurm_job_id).sort());
    // Two learners, two runs each: both workers get some.
    const learners = [await joinWithJar(a, 'Ada', a.joinCode), await joinWithJar(a, 'Bo', a.joinCode)];
    const ids = [];
    for (let i = 0; i < 2; i++)
      for (const jar of learners) {
        const r = await jar.request(a, '/api/experiments/timing', { method: 'POST', body: { params: {}, backend: 'cuda' } });
        assert.equal(r.status, 202, r.text);
        ids.push([jar, r.json.run.id]);
      }
    // Cancel the job running the first run: its worker hands the run back; a new job replaces it.
    const first = ids[0][1];
    const runner = await waitFor(() => {
      const w = psql(`SELECT worker_id FROM runs WHERE id = ${first} AND status = 'running'`, db);
      return w && Number(w);
    }, { what: 'the first run on a worker' });
    const job = list.find((w) => w.id === runner).slurm_job_id;
    slurm('scancel', [job]);
    for (const [jar, id] of ids) {
      const run = await waitFor(async () => {
        const r = await jar.request(a, `/api/runs/${id}`);
        return ['done', 'failed'].includes(r.json?.run?.status) && r.json.run;
      }, { timeoutMs: 60000, what: `run ${id} ending` });
      assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 300));
    }
    assert.equal(psql(`SELECT attempts FROM runs WHERE id = ${first}`, db), '1', 'handed back once by the cancelled job');
    assert.equal(psql(`SELECT count(DISTINCT worker_id) FROM runs WHERE status = 'done'`, db) >= '2', true);
    const byWorker = psql(`SELECT string_agg(n::text, ',') FROM (SELECT count(*) AS n FROM runs WHERE status = 'done' GROUP BY worker_id) t`, db);
    assert.ok(byWorker.split(',').length >= 2, `runs spread over the workers: ${byWorker}`);
    const now = await workersSeen([a], 2, { timeoutMs: 30000 });
    assert.ok(!now[0].some((w) => w.slurm_job_id === job), 'the cancelled job was replaced by a new one');
    assert.match(a.stderr(), /a worker job of gpulab-worker-[0-9a-f]+ ended \(1 of 2 live\); replacing it/);
    const cls = (await request(a, '/api/instructor/class', asInstructor)).json;
    assert.ok(cls.workers.some((w) => w.slurm_job_id === job && w.state === 'gone'), 'the instructor sees the gone one');
  } finally {
    await a.stop({ killAfterMs: 30000 });
  }
  // scancel is asynchronous: a cancelled job may show as COMPLETING while
  // Slurm cleans up. None may still be pending or running.
  const ended = await waitFor(() => jobs(name, 'PD,R,S,CF').length === 0, { timeoutMs: 15000, what: 'the jobs ending' })
    .then(() => true, () => false);
  assert.ok(ended, `the server cancelled its jobs as it stopped: ${jobStates(name)}`);
  assert.match(jobStates(name), /CANCELLED|COMPLETING|COMPLETED|^$/);
});
