// `gpulab compare RUN.json`: a measurement kit file beside the simulator.
// The files here are made from simulated envelopes relabelled as a
// learner's (backend pytorch, a T4's name), so the comparison is known;
// doctored ones carry a copy faster than the T4's link and a host clock
// that did not wait, and are flagged; bad files (too big, cut short, wrong
// shape, hostile texts) exit 1 with their error code. The kit's own runs
// are compared in tests/tools/kit.sh.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIN, childEnv, cli } from '../api/lib.mjs';
import { doctoredKit, kitFile } from '../api/kit_lib.mjs';

const T = { timeout: 60000 };

function withFiles(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-compare-'));
  try {
    return fn((name, content) => {
      const p = join(dir, name);
      writeFileSync(p, typeof content === 'string' || Buffer.isBuffer(content) ? content : JSON.stringify(content));
      return p;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const figure = (rep, exp, metric) =>
  rep.experiments.find((e) => e.experiment === exp).figures.find((f) => f.metric === metric);

test('compare_matches_a_t4_run_to_the_t4_profile_with_ratios_and_plausible_figures', T, () => withFiles((put) => {
  const r = cli(['compare', put('run.json', kitFile(['transfer', 'timing', 'placement'])), '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.profile.name, 't4');
  const f = figure(r.json, 'transfer', 'h2d_pinned_gbps');
  assert.ok(Math.abs(f.ratio - 1) < 0.15, `ratio ${f.ratio}`);
  assert.equal(f.plausible, true);
  assert.equal(r.json.implausible, 0);
  for (const e of r.json.experiments)
    for (const g of e.figures) assert.ok('measured' in g && 'predicted' in g && 'ratio' in g && 'plausible' in g, JSON.stringify(g));
  const text = cli(['compare', put('run2.json', kitFile(['transfer']))]);
  assert.equal(text.code, 0);
  assert.match(text.stdout, /Your run: Tesla T4 \(cuda\), PyTorch 2\.5\.1\+cu121, Colab/);
  assert.match(text.stdout, /h2d_pinned_gbps \(GB\/s\)/);
  assert.match(text.stdout, /skipped graphs: not asked for/);
}));

test('compare_flags_a_copy_faster_than_the_link_and_a_timing_without_synchronize', T, () => withFiles((put) => {
  const kit = doctoredKit();
  const r = cli(['compare', put('doctored.json', kit), '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.implausible, 2);
  const copy = figure(r.json, 'transfer', 'h2d_pinned_gbps');
  assert.equal(copy.plausible, false);
  assert.match(copy.reason, /PCIe Gen3 x16/);
  assert.match(copy.reason, /synchronize/);
  assert.equal(figure(r.json, 'timing', 'host_sync_ms').plausible, false);
  const text = cli(['compare', put('doctored2.json', kit)]);
  assert.match(text.stdout, /IMPLAUSIBLE: 40\.00 GB\/s is more than/);
  assert.match(text.stdout, /2 figures are physically impossible/);
}));

test('compare_refuses_bad_files_with_their_codes', T, () => withFiles((put) => {
  const good = JSON.stringify(kitFile(['placement']));
  const cases = [
    ['too_big.json', Buffer.alloc(1024 * 1024 + 10, 0x20), 'kit_too_large'],
    ['cut.json', good.slice(0, Math.floor(good.length / 2)), 'kit_not_json'],
    ['not_json.txt', 'PyTorch version: 2.5.1\n', 'kit_not_json'],
    ['wrong_schema.json', { results: [] }, 'kit_invalid'],
    ['wrong_backend.json', good.replace('"backend":"pytorch"', '"backend":"cuda"'), 'kit_invalid'],
    ['long_text.json', good.replace('"findings":[', `"findings":["${'A'.repeat(5000)}",`), 'kit_invalid'],
  ];
  for (const [name, content, code] of cases) {
    const r = cli(['compare', put(name, content), '--json']);
    assert.equal(r.code, 1, name);
    assert.equal(r.json.error.code, code, `${name}: ${r.stdout}`);
    assert.ok(r.json.error.message.length > 20, name);
  }
  assert.equal(cli(['compare']).code, 2);
  assert.equal(cli(['compare', 'a.json', 'b.json']).code, 2);
  assert.equal(cli(['compare', '/nonexistent/run.json']).code, 1);
  const unknown = cli(['compare', put('ok.json', good), '--profile', 'no-such-gpu', '--json']);
  assert.equal(unknown.code, 1);
  assert.equal(unknown.json.error.code, 'unknown_profile');
}));

test('compare_prints_hostile_texts_without_their_control_bytes', T, () => withFiles((put) => {
  const kit = kitFile(['placement']);
  kit.provenance.device.name = 'GPU\u001b[2J\u001b]0;pwned\u0007<script>alert(1)</script>';
  kit.skipped = [{ experiment: 'timing', why: 'why\u001b[31m red' }];
  const r = spawnSync(BIN, ['compare', put('hostile.json', kit)], { env: childEnv(), encoding: 'utf8', timeout: 20000 });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(!r.stdout.includes('\u001b'), 'an escape byte reached the terminal');
  assert.ok(!r.stdout.includes('\u0007'));
  assert.match(r.stdout, /GPU\?\[2J/);
}));
