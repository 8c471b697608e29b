// Measurement kit files for the tests (kit/measure.py's format,
// docs/measure.md): simulated envelopes relabelled as a learner's
// (backend pytorch, the device's name), so the comparison is known, and
// the doctored ones the physical checks must flag. Used by the CLI's
// compare tests, the class hand-in tests and the page's (#yours) tests.
import assert from 'node:assert/strict';
import { cli } from './lib.mjs';

// A T4 on Colab by default; `device`, `kind`, `cc` (null: none, as an Apple
// or AMD GPU has) and `profile` (the simulated stand-in) change it.
export function kitFile(experiments, { device = 'Tesla T4', kind = 'cuda', cc = '7.5', profile = 't4',
  torch = '2.5.1+cu121', platform = 'Colab' } = {}) {
  const results = experiments.map((name) => {
    const params = name === 'timing' ? ['--view', 'pytorch'] : [];
    const r = cli(['run', name, '--backend', 'simulated', '--profile', profile, '--json', ...params]);
    assert.equal(r.code, 0, r.stderr);
    const env = r.json;
    env.backend = 'pytorch';
    env.device.name = device;
    env.device.profile = null;
    env.measured_with = { kit: '1.0', torch, platform, date: '2026-11-20' };
    return env;
  });
  return {
    gpulab_measure: '1.0',
    provenance: { device: { kind, name: device, compute_capability: cc }, torch, platform, date: '2026-11-20T10:00:00Z',
      kit_version: '1.0' },
    results, skipped: [{ experiment: 'graphs', why: 'not asked for' }], failed: [],
  };
}

// A T4 run with a copy faster than its PCIe link and a host clock read
// before the GPU finished: two figures no T4 can produce.
export function doctoredKit() {
  const kit = kitFile(['transfer', 'timing']);
  kit.results[0].metrics.h2d_pinned_gbps = 40; // a T4's PCIe Gen3 x16 link carries about 15.8 GB/s
  kit.results[1].metrics.host_sync_ms = kit.results[1].metrics.events_ms / 100;
  return kit;
}
