// `gpulab explain`: a file or standard input, text for a person or --json;
// usage errors exit 2; bad input exits 1 with the error envelope's code.
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIN, childEnv, cli } from '../api/lib.mjs';

const T = { timeout: 20000 };

const stdin = (input, args = []) =>
  spawnSync(BIN, ['explain', '-', ...args], { input, env: childEnv(), encoding: 'utf8', timeout: 15000 });

test('explain_reads_standard_input_and_prints_the_steps', T, () => {
  const r = stdin('TypeError: can\'t convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.\n');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\.numpy\(\) on a GPU tensor/);
  assert.match(r.stdout, /First things to try:\n {5}1\) /);
  assert.match(r.stdout, /#lesson\/01-cuda-intuition\/copies/);
  const j = stdin('RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)', ['--json']);
  const env = JSON.parse(j.stdout);
  assert.equal(env.items[0].diagnosis.id, 'mismatch_batch_or_model');
  assert.deepEqual(env.items[0].facts.devices, ['cuda:0', 'cpu']);
});

test('explain_usage_errors_exit_2_and_bad_input_exits_1_with_its_code', T, () => {
  assert.equal(cli(['explain']).code, 2);
  assert.equal(cli(['explain', 'a', 'b']).code, 2);
  assert.equal(cli(['explain', '/nonexistent/file.txt']).code, 1);
  const empty = stdin('   \n', ['--json']);
  assert.equal(empty.status, 1);
  assert.equal(JSON.parse(empty.stdout).error.code, 'explain_empty');
  const big = stdin('x'.repeat(256 * 1024 + 10), ['--json']);
  assert.equal(big.status, 1);
  assert.equal(JSON.parse(big.stdout).error.code, 'explain_too_large');
  const help = cli(['help']);
  assert.match(help.stdout, /gpulab explain FILE/);
});
