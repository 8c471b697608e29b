// Two servers and one GPU worker on one PostgreSQL store serve a learner
// interchangeably: join on A, run on A, result on B; a run queued on either
// is run by the worker; the class, its limits and the learner's records
// hold whichever server a request reaches; a later server adopts the class
// and one that contradicts it refuses to start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, cli, makeWebRoot, request } from '../api/lib.mjs';
import { fakeGpu } from '../api/queue_lib.mjs';
import { missing, newStore, startClusterServer, startWorker, joinWithJar, asInstructor, waitFor, workersSeen, psql, TOKEN } from './cluster_lib.mjs';

const T = { timeout: 60000, skip: missing() || false };

const gpuRun = (jar, srv, name = 'timing') =>
  jar.request(srv, `/api/experiments/${name}`, { method: 'POST', body: { params: {}, backend: 'cuda' } });

async function waitDone(jar, srv, id) {
  return waitFor(async () => {
    const r = await jar.request(srv, `/api/runs/${id}`);
    assert.equal(r.status, 200, r.text);
    return ['done', 'failed', 'cancelled'].includes(r.json.run.status) && r.json.run;
  }, { what: `run ${id} ending` });
}

test('two servers and a worker on one store serve one learner interchangeably', T, async () => {
  const { uri } = newStore();
  const env = fakeGpu(200);
  const a = await startClusterServer(uri, { env });
  const b = await startClusterServer(uri, { env });
  // No worker yet: GPU runs do not queue (503 no_gpu, with advice); auto is simulated at once.
  const early = await joinWithJar(a, 'Early', a.joinCode);
  const refused = assertError(await gpuRun(early, a), 503, 'no_gpu');
  assert.match(refused.message, /no GPU worker of this class is running .*\(gpulab worker --store/);
  const auto = await early.request(a, '/api/experiments/timing', { method: 'POST', body: { params: {} } });
  assert.equal(auto.status, 200, auto.text);
  assert.equal(auto.json.backend, 'simulated');
  const none = (await request(b, '/api/device')).json;
  assert.equal(none.verdict.usable, false);
  assert.match(none.verdict.summary, /no GPU worker of this class has reported/);
  assert.deepEqual(none.workers, []);
  assert.equal((await request(b, '/api/health')).json.mode, 'cpu');
  const w = await startWorker(uri, { env });
  try {
    await workersSeen([a, b], 1);
    assert.equal(b.joinCode, a.joinCode, 'B adopted the class A created');
    assert.match(a.stdout(), /class "gpulab class" created in postgresql:\/\/postgres@127\.0\.0\.1:\d+\/scale_/);
    assert.match(b.stdout(), /class "gpulab class" opened in/);
    const jar = await joinWithJar(a, 'Ada', a.joinCode);
    const queued = await gpuRun(jar, a);
    assert.equal(queued.status, 202, queued.text);
    const run = await waitDone(jar, b, queued.json.run.id); // polled on B only
    assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 300));
    assert.equal(run.result.device.name, 'gpulab fake GPU (test)');
    // Queued on B, run by the same worker; the session lists both on either server.
    const second = await gpuRun(jar, b, 'transfer');
    assert.equal(second.status, 202, second.text);
    assert.equal((await waitDone(jar, a, second.json.run.id)).status, 'done');
    // A quiz attempt scored on A is the learner's on B, and in the instructor's view of either.
    const quiz = await jar.request(a, '/api/lessons/x/quiz', { method: 'POST', body: { answers: { q1: ['a'], q2: ['b'] } } });
    assert.equal(quiz.status, 200, quiz.text);
    for (const srv of [a, b]) {
      const s = await jar.request(srv, '/api/session');
      assert.deepEqual(s.json.runs.map((r) => r.experiment), ['transfer', 'timing']);
      assert.deepEqual(s.json.quiz.map((q) => [q.lesson, q.passed]), [['x', true]]);
    }
    const seen = (await request(b, '/api/instructor/class', asInstructor)).json.learners.find((l) => l.name === 'Ada');
    assert.deepEqual(seen.quiz.lessons.map((q) => [q.lesson, q.passed]), [['x', true]]);
    assert.equal(seen.runs.done, 2);
    // A leave on B ends the session A gave.
    assert.equal((await jar.request(b, '/api/class/leave', { method: 'POST' })).status, 200);
    assertError(await jar.request(a, '/api/session'), 401, 'no_session');
    // Workers: listed with their devices by /api/health, /api/device and the instructor's view.
    const health = (await request(a, '/api/health')).json;
    assert.equal(health.mode, 'cuda');
    assert.equal(health.store, 'ok');
    assert.deepEqual(health.workers.map((x) => [x.id, x.devices]), [[w.id, ['gpulab fake GPU (test)']]]);
    const device = (await request(b, '/api/device')).json;
    assert.equal(device.verdict.usable, true);
    assert.equal(device.mode, 'cuda');
    assert.equal(device.workers[0].id, w.id);
    const metrics = (await request(b, '/metrics')).text;
    assert.match(metrics, /^gpulab_workers_alive 1$/m);
    assert.match(metrics, /^gpulab_store_up 1$/m);
    assert.match(metrics, /^gpulab_queue_length \d+$/m); // (the view is at most half a second old)
    // (the list is refreshed every second: it counts both runs soon)
    const listed = await waitFor(async () => {
      const cls = (await request(a, '/api/instructor/class', asInstructor)).json;
      const mine = cls.workers.find((x) => x.id === w.id);
      return mine?.runs_done === 2 && mine;
    }, { what: 'the instructor view counting the worker\'s two runs' });
    assert.equal(listed.kind, 'worker');
    assert.equal(typeof listed.host, 'string');
    assert.ok('cuda_visible_devices' in listed);
  } finally {
    await w.stop();
    await a.stop();
    await b.stop();
  }
});

test('--workers local: a server\'s own GPUs serve the shared queue, whichever server queued the run', T, async () => {
  const { uri } = newStore();
  const env = fakeGpu(300);
  const a = await startClusterServer(uri, { env, workers: 'local', args: ['--gpus', '0,1'] });
  const b = await startClusterServer(uri, { env });
  try {
    const [list] = await workersSeen([a, b], 2);
    assert.deepEqual(list.map((x) => [x.kind, x.gpu]).sort(), [['local', 0], ['local', 1]]);
    const jar = await joinWithJar(b, 'Cy', a.joinCode);
    const q = await gpuRun(jar, b);
    assert.equal(q.status, 202, q.text);
    assert.equal((await waitDone(jar, b, q.json.run.id)).status, 'done');
  } finally {
    await b.stop();
    await a.stop();
  }
  // A's workers signed off as it stopped.
  assert.match(a.stderr(), /gpulab: stopping/);
});

test('a learner\'s limits hold across servers: runs per minute counted in the store', T, async () => {
  const { uri } = newStore();
  const env = fakeGpu(50);
  const args = ['--runs-per-minute', '2'];
  const a = await startClusterServer(uri, { env, args });
  const b = await startClusterServer(uri, { env, args });
  const w = await startWorker(uri, { env });
  try {
    await workersSeen([a, b], 1);
    const jar = await joinWithJar(a, 'Bo', a.joinCode);
    assert.equal((await gpuRun(jar, a)).status, 202);
    assert.equal((await gpuRun(jar, b)).status, 202);
    const third = await gpuRun(jar, a);
    assertError(third, 429, 'rate_limited');
    assert.ok(Number(third.headers.get('retry-after')) >= 1);
  } finally {
    await w.stop();
    await a.stop();
    await b.stop();
  }
});

test('a later server adopts the stored class; one that contradicts it refuses to start', T, async () => {
  const { uri } = newStore();
  const a = await startClusterServer(uri, { args: ['--class-name', 'CS 101', '--join-code', 'ABCD-EFGH', '--queue-max', '7'] });
  try {
    const b = await startClusterServer(uri); // no class flags: everything adopted
    try {
      assert.equal(b.className, 'CS 101');
      assert.equal(b.joinCode, 'ABCD-EFGH');
      const limits = (await request(b, '/api/instructor/class', asInstructor)).json.class.limits;
      assert.equal(limits.queue_max, 7);
    } finally {
      await b.stop();
    }
    const web = makeWebRoot();
    const serve = (args, env) => cli(['serve', '--port', '0', '--root', web.root, ...args], { env });
    const r = serve(['--store', uri, '--queue-max', '9'], { GPULAB_INSTRUCTOR_TOKEN: TOKEN });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--queue-max: the class stored in postgresql:\/\/postgres@127\.0\.0\.1:\d+\/scale_\S+ has limits\.queue_max = 7, but this server was given 9\./);
    assert.match(r.stderr, /--update-class/);
    const t = serve(['--store', uri], { GPULAB_INSTRUCTOR_TOKEN: 'another-token-of-sixteen' });
    web.cleanup();
    assert.equal(t.code, 2, t.stderr);
    assert.match(t.stderr, /GPULAB_INSTRUCTOR_TOKEN is not the instructor token of the class stored in/);
  } finally {
    await a.stop();
  }
});

test('servers starting together on an empty store create one schema and one class', T, async () => {
  const { uri, db } = newStore();
  const servers = await Promise.all([1, 2, 3].map(() => startClusterServer(uri)));
  try {
    assert.equal(new Set(servers.map((s) => s.joinCode)).size, 1, 'one join code');
    assert.equal(servers.filter((s) => /class "gpulab class" created/.test(s.stdout())).length, 1, 'one creator');
    assert.equal(psql('SELECT string_agg(version::text, \',\' ORDER BY version) FROM gpulab_schema', db), '1,2,3,4,5');
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
});

test('gpulab worker refuses a store that is not shared, and --workers none on SQLite', T, () => {
  const r = cli(['worker', '--store', 'sqlite:/tmp/x.db']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /a worker needs the class's shared store: --store postgresql:/);
  const web = makeWebRoot();
  const db = `${web.base}/class.db`;
  const s = cli(['serve', '--port', '0', '--root', web.root, '--db', db, '--workers', 'none']);
  web.cleanup();
  assert.equal(s.code, 1, s.stderr);
  assert.match(s.stderr, /--workers none and slurm need a store every server and worker shares/);
  const bad = cli(['serve', '--port', '0', '--db', db, '--workers', 'slurm:0']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--workers must be local, none or slurm:N/);
});
