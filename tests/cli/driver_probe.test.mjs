// The driver view without a GPU: NVML pointed at nothing and nvidia-smi
// replaced by a script, so the nvidia-smi path (parsing, the CUDA version
// from the banner, failures) is exercised for real on any machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, makeFakeSmi, withServer, request, deviceView } from '../api/lib.mjs';

const T = { timeout: 20000 };
const CSV = 'NVIDIA H100 80GB HBM3, 81559, 80000, 550.54.15, 00000000:01:00.0';
const BANNER = '| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4     |';
const FAIL = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.";

async function withFakeSmi(opts, fn) {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-smi-'));
  try {
    const smi = makeFakeSmi(dir, opts);
    return await fn({ GPULAB_NVML_LIB: '/nonexistent/libnvidia-ml.so.1', GPULAB_NVIDIA_SMI: smi });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a working nvidia-smi gives the driver view: source, versions, one GPU in bytes', T, () =>
  withFakeSmi({ csv: CSV, banner: BANNER }, (env) => {
    const r = cli(['device', '--json'], { env });
    assert.equal(r.code, 0, r.stderr);
    const d = r.json.driver;
    assert.equal(d.source, 'nvidia-smi');
    assert.equal(d.present, true);
    assert.equal(d.driver_version, '550.54.15');
    assert.equal(d.cuda_version, '12.4');
    assert.equal(d.device_count, 1);
    assert.equal(d.devices[0].name, 'NVIDIA H100 80GB HBM3');
    assert.equal(d.devices[0].memory_total_bytes, 81559 * 1048576);
    assert.equal(d.devices[0].memory_free_bytes, 80000 * 1048576);
    assert.equal(d.devices[0].bus_id, '00000000:01:00.0');
    assert.equal(d.error, null);
  }));

test('the text view names nvidia-smi, the driver, the CUDA version and the GPU', T, () =>
  withFakeSmi({ csv: CSV, banner: BANNER }, (env) => {
    const r = cli(['device'], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /driver 550\.54\.15 via nvidia-smi, supports CUDA up to 12\.4, 1 GPU\b/);
    assert.match(r.stdout, /GPU 0: NVIDIA H100 80GB HBM3/);
    assert.match(r.stdout, /^Verdict: /m);
  }));

test('a failing nvidia-smi leaves the driver view absent, with its error text', T, () =>
  withFakeSmi({ exitCode: 9, failText: FAIL }, (env) => {
    const r = cli(['device', '--json'], { env });
    assert.equal(r.code, 0, r.stderr);
    const d = r.json.driver;
    assert.equal(d.present, false);
    assert.equal(d.source, 'none');
    assert.equal(d.device_count, 0);
    assert.match(d.error, /NVML/);
    assert.match(d.error, /nvidia-smi failed \(exit 9\)/);
    assert.match(d.error, /NVIDIA-SMI has failed/);
    assert.equal(r.json.verdict.usable, false);
    const text = cli(['device'], { env });
    assert.match(text.stdout, /no driver answered: .*NVIDIA-SMI has failed/);
  }));

test('a missing nvidia-smi says it was not found', T, () => {
  const r = cli(['device', '--json'], {
    env: { GPULAB_NVML_LIB: '/nonexistent/libnvidia-ml.so.1', GPULAB_NVIDIA_SMI: '/nonexistent/nvidia-smi' },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.driver.present, false);
  assert.match(r.json.driver.error, /nvidia-smi was not found/);
});

test('GET /api/device shows the same nvidia-smi driver view', T, () =>
  withFakeSmi({ csv: CSV, banner: BANNER }, (env) =>
    withServer({ env }, async (srv) => {
      const r = await deviceView(srv);
      assert.equal(r.status, 200);
      assert.equal(r.json.driver.source, 'nvidia-smi');
      assert.equal(r.json.driver.cuda_version, '12.4');
      assert.equal(r.json.driver.devices[0].memory_total_bytes, 81559 * 1048576);
    })));

test('run device reports the fake driver in its findings and metrics', T, () =>
  withFakeSmi({ csv: CSV, banner: BANNER }, (env) => {
    const r = cli(['run', 'device', '--json'], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.json.metrics.driver_device_count, 1);
    assert.ok(r.json.findings.some((f) => /nvidia-smi/.test(f)), r.json.findings.join(' | '));
  }));
