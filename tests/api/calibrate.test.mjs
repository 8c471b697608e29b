// Calibration from the outside: `gpulab calibrate` needs a GPU and says so;
// a calibrated profile file (what `calibrate --out` writes) is served beside
// the built-ins and simulates; a bad one stops the server with the reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, withServer, request, postRun, assertEnvelope, makeWebRoot, BIN } from './lib.mjs';
import { spawnSync } from 'node:child_process';

const T = { timeout: 30000 };

function calibratedProfile() {
  const r = cli(['profiles', '--json']);
  const base = r.json.find((p) => p.name === 'a100-sxm');
  return { ...base, name: 'calibrated', label: 'Calibrated on a test GPU', h2d_pinned_gbps: 20.5 };
}

test('calibrate without a usable GPU fails with no_gpu, as JSON too', T, (t) => {
  const dev = cli(['device', '--json']).json;
  if (dev.verdict.usable) return t.skip('this machine has a usable GPU');
  const r = cli(['calibrate', '--json']);
  assert.equal(r.code, 1);
  assert.equal(r.json.error.code, 'no_gpu');
  assert.equal(cli(['calibrate', '--bogus']).code, 2);
});

test('serve --profile-file offers the calibrated profile and simulates with it', T, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-cal-'));
  try {
    const file = join(dir, 'gpu.json');
    writeFileSync(file, JSON.stringify(calibratedProfile()));
    await withServer({ args: ['--profile-file', file] }, async (srv) => {
      const list = (await request(srv, '/api/profiles')).json.profiles;
      const cal = list.find((p) => p.name === 'calibrated');
      assert.ok(cal, 'listed');
      assert.equal(cal.h2d_pinned_gbps, 20.5);
      const res = await postRun(srv, 'transfer', { backend: 'simulated', profile: 'calibrated' });
      assert.equal(res.status, 200, res.text);
      assertEnvelope(res.json, { experiment: 'transfer', backend: 'simulated', profile: 'calibrated' });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('serve refuses a profile file that is missing, not JSON or incomplete, saying why', T, () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-cal-'));
  const web = makeWebRoot();
  try {
    const bad = { missing: join(dir, 'nope.json'), notjson: join(dir, 'a.json'), partial: join(dir, 'b.json') };
    writeFileSync(bad.notjson, '{not json');
    const partial = calibratedProfile();
    delete partial.launch_us;
    writeFileSync(bad.partial, JSON.stringify(partial));
    for (const [what, file] of Object.entries(bad)) {
      const r = spawnSync(BIN, ['serve', '--port', '0', '--root', web.root, '--profile-file', file],
        { encoding: 'utf8', timeout: 10000 });
      assert.equal(r.status, 1, `${what}: ${r.stderr}`);
      assert.match(r.stderr, /profile file/, what);
    }
  } finally {
    web.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});
