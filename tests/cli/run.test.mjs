// `gpulab run`: every registered experiment from the command line, options
// in both spellings, and failures with their exit status (1: the run failed,
// 2: usage) and, with --json, the error envelope on stdout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cli, registry, assertEnvelope } from '../api/lib.mjs';

const T = { timeout: 30000 };
const NO_NVML = { GPULAB_NVML_LIB: '/nonexistent/libnvidia-ml.so.1' };

function assertCliError(r, code, errCode, param) {
  assert.equal(r.code, code, `exit status (stdout ${r.stdout.slice(0, 200)}, stderr ${r.stderr.slice(0, 200)})`);
  assert.ok(r.json, `--json failure prints the error envelope on stdout; got: ${r.stdout.slice(0, 200)}`);
  assert.deepEqual(Object.keys(r.json), ['error']);
  assert.equal(r.json.error.code, errCode);
  assert.equal(typeof r.json.error.message, 'string');
  if (param !== undefined) assert.equal(r.json.error.param, param);
}

test('run device --json gives a device envelope', T, () => {
  const r = cli(['run', 'device', '--json'], { env: NO_NVML });
  assert.equal(r.code, 0, r.stderr);
  assertEnvelope(r.json, { experiment: 'device' });
});

test('run device --backend simulated --profile t4 --json is labelled simulated t4', T, () => {
  for (const args of [['--backend', 'simulated', '--profile', 't4'], ['--backend=simulated', '--profile=t4']]) {
    const r = cli(['run', 'device', ...args, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assertEnvelope(r.json, { experiment: 'device', backend: 'simulated', profile: 't4' });
    assert.equal(r.json.device.name, 'Tesla T4');
  }
});

test('run device takes a param as --index=1 or --index 1', T, () => {
  for (const args of [['--index=1'], ['--index', '1']]) {
    const r = cli(['run', 'device', ...args, '--backend', 'simulated', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.json.params.index, 1);
  }
});

test('run device --index=9 exits 1 with invalid_param', T, () => {
  const text = cli(['run', 'device', '--index=9']);
  assert.equal(text.code, 1);
  assert.match(text.stderr, /index.*\[invalid_param\]/);
  assertCliError(cli(['run', 'device', '--json', '--index=9']), 1, 'invalid_param', 'index');
});

test('a --json anywhere on the line makes even an early failure print the envelope', T, () => {
  assertCliError(cli(['run', 'nope', '--json']), 1, 'unknown_experiment');
  assertCliError(cli(['run', 'device', '--index=9', '--json']), 1, 'invalid_param', 'index');
  assertCliError(cli(['run', 'device', '--bogus=1', '--json']), 1, 'invalid_param', 'bogus');
});

test('run device with a non-number or non-integer index exits 1 with invalid_param', T, () => {
  for (const v of ['abc', '1.5', '', '1e999', '-1'])
    assertCliError(cli(['run', 'device', '--json', `--index=${v}`]), 1, 'invalid_param', 'index');
});

test('run nope exits 1 with unknown_experiment', T, () => {
  const r = cli(['run', 'nope']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /\[unknown_experiment\]/);
});

test('run device --bogus=1 exits 1 with invalid_param naming bogus', T, () => {
  const r = cli(['run', 'device', '--bogus=1']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /bogus.*\[invalid_param\]/);
  assertCliError(cli(['run', 'device', '--json', '--bogus=1']), 1, 'invalid_param', 'bogus');
});

test('run with an unknown backend or profile exits 1 naming it', T, () => {
  assertCliError(cli(['run', 'device', '--json', '--backend=bogus']), 1, 'invalid_param', 'backend');
  assertCliError(cli(['run', 'device', '--json', '--backend=simulated', '--profile=gtx-480']), 1, 'unknown_profile', 'profile');
});

test('run without an experiment name exits 2 (usage)', T, () => {
  for (const args of [['run'], ['run', '--json']]) {
    const r = cli(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, /experiment name/);
  }
});

test('run with an option missing its value or a stray word exits 2 (usage)', T, () => {
  assert.equal(cli(['run', 'device', '--backend']).code, 2);
  assert.equal(cli(['run', 'device', 'extra']).code, 2);
  assertCliError(cli(['run', 'device', '--json', '--profile']), 2, 'usage');
});

for (const e of registry()) {
  test(`run ${e.name} --backend simulated gives a valid envelope with its defaults`, T, () => {
    const r = cli(['run', e.name, '--backend', 'simulated', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assertEnvelope(r.json, { experiment: e.name, backend: 'simulated', spec: e });
    assert.deepEqual(r.json.params, Object.fromEntries(e.params.map((p) => [p.name, p.default])));
  });

  test(`run ${e.name} in text prints its metrics and findings`, T, () => {
    const r = cli(['run', e.name, '--backend', 'simulated']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^${e.name} — simulated: `));
    assert.match(r.stdout, /^Metrics$/m);
    assert.match(r.stdout, /^Findings$/m);
  });
}

test('run_prints_whole_numbers_as_whole_numbers', T, () => {
  const r = cli(['run', 'transfer', '--backend', 'simulated', '--profile', 't4']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ {2}largest_bytes +268435456$/m);
  assert.match(r.stdout, /^ +1048576 {2}[\d.]+$/m, 'a series x in bytes');
  const table = r.stdout.split('\nFindings\n')[0];
  assert.doesNotMatch(table, /\de[+-]\d/, 'no exponent in the metrics or series');
});
