// POST /api/plan: the training planner on JSON settings (a preset or a
// pasted config.json), answering the same JSON as `gpulab plan --json`;
// bounded (64 KiB), refused with stable codes naming the field, and in
// class mode a session is needed and each plan is charged to the learner
// like a simulated run (429 rate_limited past the learner's runs per minute).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';

import { asLearner, joinAs, withClass } from './class_lib.mjs';
import { assertError, assertSecurityHeaders, cli, request, withServer } from './lib.mjs';

const T = { timeout: 60000 };
const LLAMA = { config: { model_type: 'llama', hidden_size: 256, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2,
  intermediate_size: 688, vocab_size: 1000 }, seq: 256, batch: 2, lora_rank: 8, lora_targets: 'qkvo', checkpointing: 'full' };
const post = (srv, body, headers = { 'Content-Type': 'application/json' }, extra = {}) =>
  request(srv, '/api/plan', { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers, ...extra });

test('plans_a_preset_and_a_pasted_config_json_as_the_cli_does', T, () =>
  withServer({}, async (srv) => {
    const dir = mkdtempSync(join(tmpdir(), 'gpulab-plan-api-'));
    for (const settings of [{ preset: 'gpt2-124m', seq: 512, batch: 4, profile: 't4' }, LLAMA]) {
      const res = await post(srv, settings);
      assert.equal(res.status, 200, res.text);
      assertSecurityHeaders(res.headers);
      assert.equal(res.json.plan, 1);
      assert.ok(res.json.memory.allocated_bytes > 0 && res.json.memory.allocated_bytes <= res.json.memory.reserved_bytes);
      assert.equal(typeof res.json.fits, 'boolean');
      const file = join(dir, 'settings.json');
      writeFileSync(file, JSON.stringify(settings));
      const c = cli(['plan', '--json', '--settings', file]);
      assert.equal(c.code, 0, c.stderr);
      assert.deepEqual(res.json, c.json);
    }
  }));

test('refuses_bad_settings_wrong_types_and_too_large_bodies_with_their_codes', T, () =>
  withServer({}, async (srv) => {
    assertError(await post(srv, '{"preset":'), 400, 'invalid_json');
    assertError(await post(srv, '[1,2]'), 400, 'invalid_json');
    const unknown = assertError(await post(srv, { preset: 'gpt2-124m', bogus_field: 1 }), 400, 'invalid_param');
    assert.match(unknown.message + (unknown.param ?? ''), /bogus_field/);
    const batch = assertError(await post(srv, { preset: 'gpt2-124m', batch: -3 }), 400, 'invalid_param');
    assert.match(batch.message + (batch.param ?? ''), /batch/);
    assertError(await post(srv, { preset: 'gpt2-124m', profile: 'nope' }), 400, 'unknown_profile');
    assertError(await post(srv, { config: { model_type: 'mixtral', num_local_experts: 8 } }), 400, 'plan_unsupported_model');
    assertError(await post(srv, { preset: 'gpt2-124m' }, { 'Content-Type': 'text/plain' }), 415, 'unsupported_media_type');
    assertError(await request(srv, '/api/plan'), 405, 'method_not_allowed');
    const big = JSON.stringify({ preset: 'gpt2-124m', config: { pad: 'x'.repeat(64 * 1024) } });
    const e = assertError(await post(srv, big), 413, 'body_too_large');
    assert.match(e.message, /#plan/, 'the refusal names the page that plans in the browser');
  }));

test('class_mode_needs_a_session_and_charges_each_plan_to_the_learner', T, () =>
  withClass({ args: ['--sim-runs-per-minute', '2'] }, async (srv) => {
    assertError(await post(srv, { preset: 'gpt2-124m' }), 401, 'no_session');
    const ada = await joinAs(srv, 'Ada');
    const me = (body) => post(srv, body, { 'Content-Type': 'application/json', ...asLearner(ada.cookie).headers });
    let refused = null, ok = 0;
    for (let i = 0; i < 6 && !refused; i++) {
      const r = await me({ preset: 'gpt2-124m', batch: 2 });
      if (r.status === 200) ok++;
      else refused = r;
    }
    assert.ok(ok >= 2, `the learner's burst holds 2 plans: ${ok}`);
    assert.ok(refused, 'plans are counted against the learner');
    assertError(refused, 429, 'rate_limited');
    const bob = await joinAs(srv, 'Bob');
    const r = await post(srv, { preset: 'gpt2-124m' }, { 'Content-Type': 'application/json', ...asLearner(bob.cookie).headers });
    assert.equal(r.status, 200, 'another learner has a budget of its own');
  }));
