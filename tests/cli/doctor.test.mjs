// `gpulab doctor`: the committed fixtures (tests/doctor/fixtures) as text
// and --json, plain and .gz and on standard input; a fresh CPU trace from
// Debian's python3-torch when it is installed (skipped, saying so, when
// not); bad inputs exit 1 with their error codes (truncated, not a trace,
// a damaged .gz, a gzip bomb); usage errors exit 2; the idle step drawn in
// text and JSON; gpulab's own exported trace read as a simulation; a name
// cut inside a character still gives valid UTF-8.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIN, childEnv, cli } from '../api/lib.mjs';

const T = { timeout: 120000 };
const FIX = 'tests/doctor/fixtures';

const doctor = (args, input) =>
  spawnSync(BIN, ['doctor', ...args], { input, env: childEnv(), encoding: 'utf8', timeout: 60000, maxBuffer: 1 << 24 });
const json = (args, input) => {
  const r = doctor([...args, '--json'], input);
  return { status: r.status, env: JSON.parse(r.stdout) };
};
const find = (env, id) => env.findings.find((f) => f.id === id);

test('doctor_names_the_idle_step_behind_item_in_text_and_json', T, () => {
  const r = doctor([join(FIX, 'idle_item.json')]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /In ProfilerStep#12 the GPU was busy 30% of 10\.00 ms and idle 70%/);
  assert.match(r.stdout, /#lesson\/01-cuda-intuition\/async/);
  assert.match(r.stdout, /gpulab run profile --log_every=10/);
  const { status, env } = json([join(FIX, 'idle_item.json')]);
  assert.equal(status, 0);
  assert.equal(find(env, 'gpu_idle').facts.step, 'ProfilerStep#12');
  assert.equal(find(env, 'gpu_idle').facts.host, 'item');
});

test('doctor_draws_the_idle_step_and_says_so_in_text', T, () => {
  const r = doctor([join(FIX, 'idle_item.json')]);
  assert.match(r.stdout, /Timeline of ProfilerStep#12 \(the step in which the GPU was idle[^)]*\): 7 spans, 2 left out/);
  assert.match(r.stdout, /gpu:0\/stream7 +\|#+\.+\|/);
  const { env } = json([join(FIX, 'idle_item.json')]);
  assert.equal(env.timeline_of.step, 'ProfilerStep#12');
  assert.equal(env.timeline.length, 7);
  assert.ok(env.timeline.every((s) => ['cpu', 'gpu:0/stream7'].includes(s.lane) && s.end_us >= s.start_us));
});

test('doctor_reads_gpulabs_own_trace_as_a_simulation', T, () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-doctor-'));
  try {
    const file = join(dir, 'profile.json');
    const run = cli(['run', 'profile', '--backend', 'simulated', '--trace', file], { timeoutMs: 60000 });
    assert.equal(run.code, 0, run.stderr);
    const { status, env } = json([file]);
    assert.equal(status, 0);
    assert.equal(env.findings[0].id, 'simulated_trace');
    assert.match(env.trace.source, /^simulated: .*not a measurement/);
    assert.ok(find(env, 'gpu_idle'), 'the profile step waits on .item()');
    assert.match(env.timeline_of.step, /^ProfilerStep#\d+$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('doctor_reads_gzip_and_standard_input_alike', T, () => {
  const plain = json([join(FIX, 'cpu_train.json')]).env;
  const gz = json([join(FIX, 'cpu_train.json.gz')]).env;
  const stdin = json(['-'], readFileSync(join(FIX, 'cpu_train.json'))).env;
  assert.deepEqual(gz, plain);
  assert.deepEqual(stdin, plain);
  assert.equal(plain.findings[0].id, 'cpu_only');
});

// the first lease's cold H100 trace as the lease keeps it (4.3 MB gzipped to 206 kB; tests/doctor/gpu/README.md)
test('doctor_reads_a_real_h100_trace_from_its_gz', T, () => {
  const { status, env } = json(['tests/doctor/gpu/nvidia-h100-80gb-hbm3-train-cold.json.gz']);
  assert.equal(status, 0);
  assert.equal(env.trace.events, 11282);
  assert.equal(find(env, 'cold_start').facts.call, 'cudaDeviceGetStreamPriorityRange');
  assert.equal(find(env, 'device').facts.device, 'NVIDIA H100 80GB HBM3');
});

test('doctor_finds_launch_bound_work_and_pageable_copies', T, () => {
  const lb = json([join(FIX, 'launch_bound.json')]).env;
  assert.equal(find(lb, 'launch_bound').facts.short_kernels, 400);
  assert.equal(find(lb, 'launch_bound').experiment.params.kernels, 400);
  const pc = json([join(FIX, 'pageable_copy.json')]).env;
  assert.equal(find(pc, 'host_to_device').facts.pageable_copies, 2);
  assert.equal(find(pc, 'host_to_device').lesson.section, 'pinned');
});

test('doctor_reads_a_fresh_cpu_torch_trace', T, (t) => {
  const py = spawnSync('/usr/bin/python3', ['-c', 'import torch'], { encoding: 'utf8' });
  if (py.status !== 0) {
    t.skip('python3-torch is not installed (tools/deps.sh test installs it)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-doctor-'));
  try {
    const script = readFileSync('tests/doctor/torch_cpu_trace.py', 'utf8');
    writeFileSync(join(dir, 'make.py'), script);
    // the script writes next to itself, into fixtures/
    spawnSync('mkdir', ['-p', join(dir, 'fixtures')]);
    const made = spawnSync('/usr/bin/python3', [join(dir, 'make.py')], { encoding: 'utf8', timeout: 100000 });
    assert.equal(made.status, 0, made.stderr);
    const { status, env } = json([join(dir, 'fixtures', 'cpu_train.json.gz')]);
    assert.equal(status, 0);
    assert.equal(env.trace.profiler_steps, 3);
    assert.equal(find(env, 'cpu_only').lesson.section, 'profiling');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('doctor_bad_inputs_exit_1_with_their_codes', T, () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-doctor-'));
  try {
    const whole = readFileSync(join(FIX, 'idle_item.json'));
    const code = (args, input) => {
      const r = json(args, input);
      assert.equal(r.status, 1);
      return r.env.error.code;
    };
    assert.equal(code(['-'], whole.subarray(0, whole.length / 2)), 'doctor_truncated');
    assert.equal(code(['-'], 'Traceback (most recent call last):\n'), 'doctor_not_trace');
    assert.equal(code(['-'], '{"traceEvents":[{"ph":"X","ts":1,"dur":NaN}]}'), 'doctor_bad_number');
    assert.equal(code(['-'], '{"traceEvents":[{"ph":"X","name":"' + 'n'.repeat(70000) + '"}]}'), 'doctor_name_too_long');
    const gz = gzipSync(whole);
    writeFileSync(join(dir, 'cut.json.gz'), gz.subarray(0, gz.length - 20));
    assert.equal(code([join(dir, 'cut.json.gz')]), 'doctor_bad_gzip');
    // 100 MiB of spaces after a '[' inflate about 1000 times: refused past 64 MiB
    const bomb = Buffer.alloc(100 << 20, 0x20);
    bomb[0] = 0x5b;
    writeFileSync(join(dir, 'bomb.json.gz'), gzipSync(bomb, { level: 9 }));
    assert.equal(code([join(dir, 'bomb.json.gz')]), 'doctor_gzip_bomb');
    assert.ok(existsSync(join(dir, 'bomb.json.gz')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('doctor_usage_errors_exit_2', T, () => {
  assert.equal(cli(['doctor']).code, 2);
  assert.equal(cli(['doctor', 'a', 'b']).code, 2);
  assert.equal(cli(['doctor', '/nonexistent/trace.json']).code, 1);
  assert.match(cli(['help']).stdout, /gpulab doctor FILE/);
});

test('doctor_json_is_utf8_when_a_name_is_cut_inside_a_character', T, () => {
  // a kernel name of 255 bytes and a two-byte "é" across the 256-byte cut:
  // the answer keeps the name up to the last whole character
  const name = 'a'.repeat(255) + 'étail';
  const trace = Buffer.from(JSON.stringify({ traceEvents: [{ ph: 'X', cat: 'kernel', name, ts: 0, dur: 5 }] }));
  const r = spawnSync(BIN, ['doctor', '-', '--json'], { input: trace, env: childEnv(), timeout: 60000 });
  assert.equal(r.status, 0, String(r.stderr));
  const text = new TextDecoder('utf-8', { fatal: true }).decode(r.stdout); // throws on invalid UTF-8
  assert.deepEqual(JSON.parse(text).timeline.map((s) => s.label), ['a'.repeat(255)], 'the name cut before its "é"');
});
