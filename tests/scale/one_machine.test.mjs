// docs/deploy.md "Try the whole cluster on one machine", run as written:
// the fenced block after the `<!-- one-machine: start -->` marker, then a
// learner through HAProxy runs an experiment on a Slurm worker's fake GPU,
// then the block after `<!-- one-machine: stop -->`, which must leave
// nothing running. Only the variables the block lets a reader set are set:
// a temporary folder, free ports, this build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, existsSync, mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import net from 'node:net';
import { BIN } from '../api/lib.mjs';
import { missing, joinWithJar, waitFor } from './cluster_lib.mjs';

const T = { timeout: 300000, skip: missing() || (!process.env.SLURM_CONF && 'no Slurm fixture') || false };

export function docBlock(marker) {
  const doc = readFileSync('docs/deploy.md', 'utf8');
  const at = doc.indexOf(`<!-- one-machine: ${marker} -->`);
  assert.ok(at >= 0, `docs/deploy.md has the ${marker} marker`);
  const m = doc.slice(at).match(/```sh\n([\s\S]*?)```/);
  assert.ok(m, `a sh block follows the ${marker} marker`);
  return m[1];
}

const freePort = () => new Promise((res, rej) => {
  const s = net.createServer();
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => res(port)); });
  s.on('error', rej);
});

test('docs_deploy_one_machine_section_runs_as_written_and_serves_through_haproxy', T, async () => {
  const base = mkdtempSync(join(tmpdir(), 'gpulab-try-'));
  chmodSync(base, 0o755); // PostgreSQL runs as its own user, as under /tmp/gpulab-try
  const env = { ...process.env, TRY: join(base, 'try'), GPULAB: resolve(BIN),
    S1_PORT: String(await freePort()), S2_PORT: String(await freePort()), LB_PORT: String(await freePort()) };
  delete env.SLURM_CONF; // the stage's own cluster is not the reader's
  const sh = (block, what) => {
    const r = spawnSync('bash', ['-o', 'pipefail', '-e', '-c', block], { env, encoding: 'utf8', timeout: 180000 });
    return { ...r, what };
  };
  let started;
  try {
    started = sh(docBlock('start'), 'start');
    assert.equal(started.status, 0, `the start block failed:\n${started.stdout}\n${started.stderr}`);
    const code = started.stdout.match(/join code: (\S+)/)?.[1];
    assert.ok(code, `the block printed the join code:\n${started.stdout}`);
    const lb = { url: `http://127.0.0.1:${env.LB_PORT}` };
    const jar = await joinWithJar(lb, 'Newcomer', code);
    await waitFor(async () => (await jar.request(lb, '/api/health')).json?.workers?.length === 2,
      { timeoutMs: 60000, what: 'the 2 Slurm workers alive' });
    const q = await jar.request(lb, '/api/experiments/timing', { method: 'POST', body: { params: {}, backend: 'cuda' } });
    assert.equal(q.status, 202, q.text);
    const run = await waitFor(async () => {
      const r = (await jar.request(lb, `/api/runs/${q.json.run.id}`)).json.run;
      return r.status === 'done' && r;
    }, { timeoutMs: 30000, what: 'the run done on a Slurm worker' });
    assert.equal(run.status, 'done');
  } finally {
    // Always stopped; its own failure is reported only when the rest passed.
    var stopped = sh(docBlock('stop'), 'stop'); // eslint-disable-line no-var
    var left = existsSync(env.TRY); // eslint-disable-line no-var
    rmSync(base, { recursive: true, force: true });
  }
  assert.equal(stopped.status, 0, `the stop block failed:\n${stopped.stdout}\n${stopped.stderr}`);
  assert.ok(!left, 'the stop block removed everything');
  // Nothing of it still answers.
  const r = spawnSync('curl', ['-fs', '--max-time', '2', `http://127.0.0.1:${env.LB_PORT}/api/health`]);
  assert.notEqual(r.status, 0, 'HAProxy is gone');
});
