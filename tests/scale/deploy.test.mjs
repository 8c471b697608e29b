// The files in deploy/ are checked, not only read: HAProxy accepts the
// shipped configuration, systemd the units (pointing at this build), and
// the Slurm batch example starts real workers on the Slurm fixture that
// register, take a run and stop on scancel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BIN } from '../api/lib.mjs';
import { fakeGpu } from '../api/queue_lib.mjs';
import { missing, newStore, startClusterServer, joinWithJar, waitFor, workersSeen, psql } from './cluster_lib.mjs';

const T = { timeout: 90000, skip: missing() || false };
const deploy = resolve('deploy');
const run = (cmd, args, opts = {}) => spawnSync(cmd, args, { encoding: 'utf8', timeout: 30000, ...opts });

test('deploy/haproxy.cfg is a valid HAProxy configuration', T, () => {
  const r = run('haproxy', ['-c', '-f', join(deploy, 'haproxy.cfg')]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

// The units' shape, always; systemd's own check too where systemd-analyze is installed.
test('deploy/systemd units are well formed and verify against this build', T, (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-units-'));
  try {
    const env = readFileSync(join(deploy, 'systemd', 'gpulab.env'), 'utf8');
    assert.match(env, /^GPULAB_STORE=postgresql:\/\/\S+$/m);
    assert.match(env, /^PGPASSWORD=/m);
    const units = ['gpulab-serve.service', 'gpulab-worker@.service'];
    for (const u of units) {
      const text = readFileSync(join(deploy, 'systemd', u), 'utf8');
      for (const section of ['[Unit]', '[Service]', '[Install]']) assert.ok(text.includes(section), `${u}: ${section}`);
      const exec = text.match(/^ExecStart=(\S+) (serve|worker) (.*)$/m);
      assert.ok(exec, `${u}: ExecStart runs gpulab serve or worker`);
      assert.equal(exec[1], '/opt/gpulab/bin/gpulab');
      assert.match(text, /^EnvironmentFile=\/etc\/gpulab\/gpulab\.env$/m);
      assert.match(text, /^KillSignal=SIGTERM$/m);
      // The options the unit passes are ones this build takes.
      const args = exec[3].replaceAll('${GPULAB_STORE}', 'postgresql://u@127.0.0.1:1/x').replace('%i', '0').split(/\s+/);
      const help = run(BIN, ['help']).stdout;
      for (const opt of args.filter((x) => x.startsWith('--'))) assert.ok(help.includes(opt), `${u}: ${opt} is in gpulab help`);
      writeFileSync(join(dir, u), text.replaceAll('/opt/gpulab/bin/gpulab', BIN)
        .replace('EnvironmentFile=/etc/gpulab/gpulab.env', `EnvironmentFile=${join(deploy, 'systemd', 'gpulab.env')}`));
    }
    if (run('systemd-analyze', ['--version']).status !== 0) {
      t.diagnostic('systemd-analyze is not installed: the units were checked for their shape only');
      return;
    }
    const r = run('systemd-analyze', ['verify', '--man=no', ...units.map((u) => `./${u}`)], { cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr.trim(), '', 'no warnings');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('deploy/slurm/gpulab-worker.sbatch starts workers that take runs and leave on scancel', { ...T, skip: T.skip || (!process.env.SLURM_CONF && 'no Slurm fixture') }, async () => {
  const { uri, db } = newStore();
  const env = fakeGpu(200);
  const a = await startClusterServer(uri, { env });
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-sbatch-'));
  const name = `gpulab-worker-${process.pid}`;
  try {
    // The fixture's node is small: flags on the command line beat the script's #SBATCH sizes.
    const r = run('sbatch', ['--parsable', `--job-name=${name}`, '--array=0-1', `--chdir=${dir}`, '--mem=200M', '--cpus-per-task=1',
      join(deploy, 'slurm', 'gpulab-worker.sbatch')],
      { env: { ...process.env, ...env, GPULAB_STORE: uri, GPULAB_BIN: BIN } });
    assert.equal(r.status, 0, r.stderr);
    const [list] = await workersSeen([a], 2, { timeoutMs: 30000 });
    assert.deepEqual(list.map((w) => w.cuda_visible_devices).sort(), ['0', '1']);
    assert.ok(list.every((w) => w.kind === 'slurm'));
    const jar = await joinWithJar(a, 'Ada', a.joinCode);
    const q = await jar.request(a, '/api/experiments/timing', { method: 'POST', body: { params: {}, backend: 'cuda' } });
    assert.equal(q.status, 202, q.text);
    await waitFor(async () => (await jar.request(a, `/api/runs/${q.json.run.id}`)).json.run.status === 'done', { what: 'the run done' });
    assert.equal(run('scancel', [`--name=${name}`]).status, 0);
    await waitFor(() => psql('SELECT count(*) FROM workers WHERE gone_at IS NULL', db) === '0', { timeoutMs: 30000, what: 'the workers signing off' });
  } finally {
    run('scancel', [`--name=${name}`]);
    await a.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
