// gpulab plan: the training planner on the command line (lab/plan/):
// presets, the flags, a pasted config.json, --json's counters and
// components, the text view, and bad input refused naming what was wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../api/lib.mjs';

const T = { timeout: 20000 };
const dir = mkdtempSync(join(tmpdir(), 'gpulab-plan-'));

test('--json holds the three counters, the components, the verdict and the step time', T, () => {
  const r = cli(['plan', '--json', '--preset', 'gpt2-124m', '--seq', '512', '--batch', '4', '--profile', 't4']);
  assert.equal(r.code, 0, r.stderr);
  const m = r.json.memory;
  assert.ok(m.allocated_bytes > 1e9 && m.allocated_bytes <= m.reserved_bytes && m.reserved_bytes < m.device_bytes);
  for (const id of ['weights', 'gradients', 'optimizer_state', 'activations'])
    assert.ok(m.components.some((c) => c.id === id && c.bytes > 0), `component ${id}`);
  assert.equal(typeof r.json.fits, 'boolean');
  assert.ok(r.json.step_ms > 0 && r.json.step_ms_band[0] <= r.json.step_ms && r.json.step_ms <= r.json.step_ms_band[1]);
  assert.ok(Number.isInteger(r.json.max_batch) && r.json.max_batch >= 4);
  assert.ok(r.json.levers.length >= 5);
});

test("the issue's model flags describe a model without a preset", T, () => {
  const r = cli(['plan', '--json', '--layers', '12', '--hidden', '768', '--heads', '12', '--vocab', '50257',
    '--seq', '1024', '--batch', '8', '--precision', 'amp-bf16', '--attention', 'sdpa', '--profile', 'a100-sxm']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.settings.layers, 12);
  assert.equal(r.json.settings.precision, 'amp-bf16');
  assert.equal(r.json.settings.profile, 'a100-sxm');
  assert.ok(r.json.model.params > 120e6 && r.json.model.params < 130e6, String(r.json.model.params));
});

test('the text view names each counter, the components and the levers', T, () => {
  const r = cli(['plan', '--preset', 'llama-3.2-1b', '--seq', '1024', '--batch', '1', '--precision', 'bf16',
    '--profile', 'l4']);
  assert.equal(r.code, 0, r.stderr);
  for (const s of ['max_memory_allocated', 'max_memory_reserved', 'nvidia-smi', 'optimizer state', 'Levers', 'tokens/s'])
    assert.ok(r.stdout.includes(s), `text mentions ${s}`);
});

test('--config reads a real config.json; MoE and multimodal configs are refused naming the field', T, () => {
  const llama = join('tests', 'fuzz', 'corpus', 'plan_config', 'llama-3.2-1b.json');
  let r = cli(['plan', '--json', '--config', llama, '--seq', '512', '--batch', '1', '--precision', 'bf16']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(Math.abs(r.json.model.params / 1.236e9 - 1) < 0.01, String(r.json.model.params));
  r = cli(['plan', '--json', '--config', join('tests', 'fuzz', 'corpus', 'plan_config', 'llava-1.5-7b-hf.json')]);
  assert.equal(r.code, 1);
  assert.equal(r.json.error.code, 'plan_unsupported_model');
  assert.match(r.json.error.param, /^config\./);
  const moe = join(dir, 'moe.json');
  writeFileSync(moe, JSON.stringify({ ...JSON.parse(readFileSync(llama, 'utf8')), num_local_experts: 8 }));
  r = cli(['plan', '--json', '--config', moe]);
  assert.equal(r.code, 1);
  assert.equal(r.json.error.param, 'config.num_local_experts');
});

test('flags before --settings stand over the file; bad input is refused naming it', T, () => {
  const f = join(dir, 'settings.json');
  writeFileSync(f, JSON.stringify({ preset: 'gpt2-124m', batch: 4, seq: 1024 }));
  let r = cli(['plan', '--json', '--seq', '256', '--settings', f]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.settings.seq, 256);
  assert.equal(r.json.settings.batch, 4);
  r = cli(['plan', '--json', '--preset', 'gpt2-124m', '--bogus', '1']);
  assert.equal(r.code, 1);
  assert.equal(r.json.error.param, 'bogus');
  r = cli(['plan', '--preset', 'gpt2-124m', '--batch', '0']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /batch must be between 1 and 4096/);
  const big = join(dir, 'big.json');
  writeFileSync(big, ' '.repeat(70 * 1024) + '{}');
  r = cli(['plan', '--json', '--settings', big]);
  assert.equal(r.code, 1);
  assert.equal(r.json.error.code, 'body_too_large');
  r = cli(['plan', 'gpt2']);
  assert.equal(r.code, 2);
});

test('--presets lists every preset with its source', T, () => {
  const r = cli(['plan', '--presets']);
  assert.equal(r.code, 0, r.stderr);
  for (const p of ['gpt2-124m', 'gpt2-1.5b', 'bert-base', 'bert-large', 'llama-3.2-1b', 'llama-3.2-3b', 'llama-2-7b-lora',
    'cnn-cifar10'])
    assert.match(r.stdout, new RegExp(`^  ${p.replace('.', '\\.')} `, 'm'), p);
});
