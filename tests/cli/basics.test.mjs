// The command line's read-only commands: help, version, device, experiments,
// profiles, in text and --json, and their usage errors (exit 2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cli } from '../api/lib.mjs';

const T = { timeout: 20000 };
// No real driver probe: the CLI must say what it found either way.
const NO_NVML = { GPULAB_NVML_LIB: '/nonexistent/libnvidia-ml.so.1' };

test('help lists every command and exits 0', T, () => {
  for (const args of [['help'], ['--help'], ['-h'], []]) {
    const r = cli(args);
    assert.equal(r.code, 0, args.join(' '));
    for (const cmd of ['device', 'experiments', 'profiles', 'run', 'serve', 'version'])
      assert.match(r.stdout, new RegExp(`gpulab ${cmd}`), `help mentions ${cmd}`);
    assert.match(r.stdout, /Exit status/);
  }
});

test('version prints the version and exits 0', T, () => {
  for (const args of [['version'], ['--version']]) {
    const r = cli(args);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^gpulab \d+\.\d+\.\d+\n$/);
  }
});

test('an unknown command exits 2 with a hint', T, () => {
  const r = cli(['frobnicate']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown command/);
  assert.match(r.stderr, /gpulab help/);
});

test('device prints both views and a verdict line', T, () => {
  const r = cli(['device'], { env: NO_NVML });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Driver view/);
  assert.match(r.stdout, /Runtime view/);
  assert.match(r.stdout, /^Verdict: .+/m);
  assert.match(r.stdout, /What to do: .+/);
});

test('device --json has the driver view, the runtime view and the verdict', T, () => {
  const r = cli(['device', '--json'], { env: NO_NVML });
  assert.equal(r.code, 0, r.stderr);
  const { driver, runtime, verdict } = r.json;
  assert.equal(typeof driver.present, 'boolean');
  assert.ok(Number.isInteger(driver.device_count));
  assert.equal(typeof runtime.status, 'string');
  assert.equal(typeof runtime.built_with_cuda, 'boolean');
  assert.equal(typeof verdict.usable, 'boolean');
  assert.equal(typeof verdict.summary, 'string');
});

test('device refuses an unknown option with exit 2', T, () => {
  const r = cli(['device', '--verbose']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--json/);
});

test('experiments lists each experiment and its parameters with bounds', T, () => {
  const list = cli(['experiments', '--json']);
  assert.equal(list.code, 0);
  const text = cli(['experiments']);
  assert.equal(text.code, 0);
  for (const e of list.json.experiments) {
    assert.match(text.stdout, new RegExp(`^${e.name} — `, 'm'), `${e.name} listed`);
    for (const p of e.params) assert.match(text.stdout, new RegExp(`--${p.name}=`), `${e.name} --${p.name}`);
  }
  assert.equal(cli(['experiments', '--xml']).code, 2);
});

test('experiments_prints_whole_number_parameters_as_whole_numbers', T, () => {
  const list = cli(['experiments', '--json']);
  const text = cli(['experiments']);
  assert.equal(text.code, 0, text.stderr);
  assert.doesNotMatch(text.stdout, /--\w+=[-\d.]+e[+-]\d/, 'no exponent in a parameter line');
  for (const e of list.json.experiments)
    for (const p of e.params) {
      if (p.type !== 'integer') continue;
      assert.match(text.stdout, new RegExp(`--${p.name}=${p.default} \\(${p.min} to ${p.max}[ )]`), `${e.name} --${p.name}`);
    }
  assert.match(text.stdout, /--max_bytes=268435456 /);
});

test('profiles lists the device profiles in text and --json', T, () => {
  const json = cli(['profiles', '--json']);
  assert.equal(json.code, 0);
  const list = Array.isArray(json.json) ? json.json : json.json.profiles;
  const names = list.map((p) => p.name);
  for (const n of ['t4', 'a100-sxm', 'h100-sxm', 'rtx-4090']) assert.ok(names.includes(n), n);
  const text = cli(['profiles']);
  assert.equal(text.code, 0);
  for (const n of names) assert.match(text.stdout, new RegExp(`^${n}\\s`, 'm'));
  assert.equal(cli(['profiles', 'extra']).code, 2);
});

test('experiments_names_prints_every_experiment_of_the_registry_one_a_line', T, () => {
  const names = cli(['experiments', '--names']);
  assert.equal(names.code, 0, names.stderr);
  const json = cli(['experiments', '--json']);
  const expected = JSON.parse(json.stdout).experiments.map((e) => e.name);
  assert.deepEqual(names.stdout.trimEnd().split('\n'), expected);
  const live = cli(['experiments', '--live']);
  assert.equal(live.code, 0, live.stderr);
  assert.deepEqual(live.stdout.trimEnd().split('\n'),
    JSON.parse(json.stdout).experiments.filter((e) => e.live).map((e) => e.name));
  assert.ok(!live.stdout.includes('multi_gpu') && names.stdout.includes('multi_gpu'), 'multi_gpu is simulated only');
  const bad = cli(['experiments', '--name']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--json, --names or --live/);
});
