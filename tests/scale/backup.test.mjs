// Backups and upgrades of the class database, as docs/deploy.md tells an
// operator to do them: pg_dump, wipe, pg_restore, and the class and its
// history are back, served by a server; and a database of the previous
// schema version (tests/scale/schema_v1.sql) with data in it is migrated by
// the current server, which then serves that data and runs its queued run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from '../api/lib.mjs';
import { fakeGpu } from '../api/queue_lib.mjs';
import { missing, newStore, psql, startClusterServer, startWorker, joinWithJar, waitFor, workersSeen, asInstructor } from './cluster_lib.mjs';

const T = { timeout: 120000, skip: missing() || false };
const PG = ['-h', '127.0.0.1', '-p', process.env.GPULAB_SCALE_PG_PORT ?? '', '-U', 'postgres'];
const sh = (cmd, args) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

test('a pg_dump of the store restored into a wiped database brings back the class and its runs', T, async () => {
  const { uri, db } = newStore();
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-backup-'));
  let a = await startClusterServer(uri);
  let w = await startWorker(uri, { env: fakeGpu(50) });
  const code = a.joinCode;
  try {
    await workersSeen([a], 1);
    const jar = await joinWithJar(a, 'Ada', code);
    const ids = [];
    for (let i = 0; i < 2; i++) {
      const q = await jar.request(a, '/api/experiments/timing', { method: 'POST', body: { params: {}, backend: 'cuda' } });
      assert.equal(q.status, 202, q.text);
      ids.push(q.json.run.id);
      await waitFor(async () => (await jar.request(a, `/api/runs/${q.json.run.id}`)).json.run.status === 'done', { what: 'run done' });
    }
    await w.stop();
    await a.stop();
    // docs/deploy.md, "Backups": a custom-format dump, then (disaster) the database is gone.
    const dump = join(dir, 'cs101.dump');
    sh('pg_dump', ['--format=custom', `--file=${dump}`, uri]);
    psql(`DROP DATABASE ${db}`);
    assert.equal(psql(`SELECT count(*) FROM pg_database WHERE datname = '${db}'`), '0');
    psql(`CREATE DATABASE ${db} TEMPLATE template0`);
    sh('pg_restore', ['--no-owner', `--dbname=${uri}`, dump]);
    a = await startClusterServer(uri);
    w = await startWorker(uri, { env: fakeGpu(50) });
    assert.equal(a.joinCode, code, 'the same class: its join code');
    assert.match(a.stdout() + a.stderr(), /opened/, 'adopted, not created');
    // The learner's cookies still work, and its runs are there.
    for (const id of ids) {
      const r = await jar.request(a, `/api/runs/${id}`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.run.status, 'done');
    }
    const ov = await request(a, '/api/instructor/class', asInstructor);
    assert.equal(ov.status, 200, ov.text);
    assert.ok(ov.json.learners.some((l) => l.name === 'Ada'), 'the learner is in the instructor view');
    // The queue works on the restored database (its sequences came back too).
    await workersSeen([a], 1);
    const q = await jar.request(a, '/api/experiments/timing', { method: 'POST', body: { params: {}, backend: 'cuda' } });
    assert.equal(q.status, 202, q.text);
    assert.ok(q.json.run.id > Math.max(...ids), 'a new run id after the restored ones');
    await waitFor(async () => (await jar.request(a, `/api/runs/${q.json.run.id}`)).json.run.status === 'done', { what: 'a new run done' });
  } finally {
    await w.stop();
    await a.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

const sha = (s) => createHash('sha256').update(s).digest('hex');

test('a database of schema 1 with a class, a session and runs is upgraded by the current server and served', T, async () => {
  // A class row as a server writes it (the class file's format did not change with the schema).
  const scratch = newStore();
  const s0 = await startClusterServer(scratch.uri);
  const [config, hash] = psql("SELECT config_json || '|' || encode(instructor_hash, 'hex') FROM class", scratch.db).split('|');
  await s0.stop();

  const { uri, db } = newStore();
  sh('psql', [...PG, '-d', db, '-v', 'ON_ERROR_STOP=1', '-q', '-f', resolve('tests/scale/schema_v1.sql')]);
  assert.equal(psql('SELECT max(version) FROM gpulab_schema', db), '1');
  const learner = randomBytes(32).toString('hex'), session = randomBytes(32).toString('hex');
  const now = Date.now();
  psql(`INSERT INTO class VALUES (1, '${config.replaceAll("'", "''")}', decode('${hash}', 'hex'), ${now});
    INSERT INTO learners(token_hash, name, created, gpu_ms_used) VALUES (decode('${sha(learner)}', 'hex'), 'Grace', ${now}, 120);
    INSERT INTO sessions(token_hash, name, created, last_seen, gpu_ms_used, learner_id)
      VALUES (decode('${sha(session)}', 'hex'), 'Grace', ${now}, ${now}, 120, 1);
    INSERT INTO runs(session_id, learner_id, experiment, params_json, backend, status, result_json, gpu_ms,
      gpu_ms_reserved, queued_at, started_at, finished_at, worker_id)
      VALUES (1, 1, 'timing', '{}', 'cuda', 'done', '{"note":"ran under schema 1"}', 120, 120, ${now - 5000}, ${now - 4000}, ${now - 3880}, NULL);
    INSERT INTO runs(session_id, learner_id, experiment, params_json, backend, status, gpu_ms_reserved, queued_at)
      VALUES (1, 1, 'timing', '{}', 'cuda', 'queued', 100, ${now - 1000});`, db);

  const a = await startClusterServer(uri);
  let w;
  try {
    await waitFor(() => /schema 1 -> 5/.test(a.stderr()), { what: 'the migration logged' });
    assert.equal(psql('SELECT max(version) FROM gpulab_schema', db), '5');
    assert.equal(psql("SELECT count(*) FROM information_schema.columns WHERE table_name = 'runs' AND column_name = 'request_id'", db), '1');
    const cookie = { headers: { Cookie: `gpulab_session=${session}` } };
    const done = await request(a, '/api/runs/1', cookie);
    assert.equal(done.status, 200, done.text);
    assert.equal(done.json.run.status, 'done');
    assert.equal(done.json.run.result.note, 'ran under schema 1');
    // The run queued before the upgrade is run by a worker after it.
    w = await startWorker(uri, { env: fakeGpu(50) });
    await waitFor(async () => (await request(a, '/api/runs/2', cookie)).json?.run?.status === 'done',
      { timeoutMs: 30000, what: 'the queued run done after the upgrade' });
    assert.match(w.stderr(), /run 2 request=- experiment=timing status=done/, 'a run of schema 1 has no request id');
    // The current server refuses nothing of it and a second start does not migrate again.
    await a.stop();
    const b = await startClusterServer(uri);
    assert.doesNotMatch(b.stderr(), /schema \d+ -> /);
    await b.stop();
  } finally {
    await w?.stop();
    await a.stop();
  }
});
