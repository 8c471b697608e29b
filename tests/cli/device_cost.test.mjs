// The device check is cheap where there is no NVIDIA driver: `gpulab
// device` asks the driver first (NVML, nvidia-smi, /dev/nvidia*) and, when
// none is installed, does not start the GPU worker (which links cuBLAS:
// 1.3 s and 219 MB of resident memory just to learn there is no driver).
// It maps no libcuda, libcudart or libcublas (its own /proc/self/maps,
// printed by a test hook), peaks under 20 MiB with its children, and says
// exactly what the worker would have said. Where a driver is installed (or
// nvidia-smi answers at all) the worker is still asked. Skipped, saying
// so, on a machine with an NVIDIA driver.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BIN, childEnv, makeFakeSmi, withServer, deviceView, assertNoSanitizerFindings } from '../api/lib.mjs';

const T = { timeout: 60000 };
const NO_DRIVER = { GPULAB_NVML_LIB: '/nonexistent/libnvidia-ml.so.1', GPULAB_NVIDIA_SMI: '/nonexistent/nvidia-smi' };
const driverHere = existsSync('/dev/dxg') || readdirSync('/dev').some((n) => n.startsWith('nvidia'));
const skip = driverHere ? 'this machine has an NVIDIA device node: the check is meant to ask its worker' : false;

// `gpulab device --json` with the self report: { view, maps, workerRan, maxrssKib, childrenKib }.
function device(env) {
  const r = spawnSync(BIN, ['device', '--json'], {
    env: childEnv({ GPULAB_TEST_HOOKS: '1', GPULAB_SELF_REPORT: '1', ...env }),
    encoding: 'utf8',
    timeout: 30000,
  });
  assert.equal(r.status, 0, r.stderr);
  assertNoSanitizerFindings(r.stderr, 'gpulab device');
  const cost = r.stderr.match(/gpulab self: worker_ran (\d) maxrss_kib (\d+) children_maxrss_kib (\d+)/);
  assert.ok(cost, `no self report in:\n${r.stderr}`);
  return {
    view: JSON.parse(r.stdout),
    maps: [...r.stderr.matchAll(/^gpulab self: maps (.*)$/gm)].map((m) => m[1]),
    workerRan: cost[1] === '1',
    maxrssKib: Number(cost[2]),
    childrenKib: Number(cost[3]),
  };
}

// What the GPU worker itself answers for the runtime view (the old path).
function workerRuntimeView() {
  const r = spawnSync(join(dirname(BIN), 'gpulab-worker'), [], {
    input: '{"job":"runtime_view"}\n',
    env: childEnv(),
    encoding: 'utf8',
    timeout: 30000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n')[0]).result;
}

test('without a driver the device check maps no CUDA library, starts no worker and stays under 20 MiB', { ...T, skip }, () => {
  const d = device(NO_DRIVER);
  assert.deepEqual(d.maps.filter((m) => /lib(cuda|cudart|cublas)/.test(m)), []);
  assert.ok(d.maps.some((m) => /libc\.so/.test(m)), 'the maps were read'); // the report is not empty
  assert.equal(d.workerRan, false, 'the GPU worker was not started');
  assert.ok(d.maxrssKib < 20 * 1024, `peak RSS ${d.maxrssKib} KiB`);
  assert.ok(d.childrenKib < 20 * 1024, `children's peak RSS ${d.childrenKib} KiB`);
  assert.equal(d.view.driver.present, false);
  assert.ok(['no_driver', 'not_built'].includes(d.view.verdict.code), d.view.verdict.code);
});

test('without a driver the runtime view is the one the worker gives', { ...T, skip }, () => {
  assert.deepEqual(device(NO_DRIVER).view.runtime, workerRuntimeView());
});

test('where nvidia-smi runs, even failing, a CUDA build still asks its worker', { ...T, skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-smi-'));
  try {
    const smi = makeFakeSmi(dir, { exitCode: 9, failText: "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." });
    const d = device({ GPULAB_NVML_LIB: '/nonexistent/libnvidia-ml.so.1', GPULAB_NVIDIA_SMI: smi });
    // a build without CUDA knows its answer whatever the machine has
    assert.equal(d.workerRan, d.view.runtime.built_with_cuda);
    assert.deepEqual(d.view.runtime, workerRuntimeView());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the server answers its first /api/device without starting a worker', { ...T, skip }, () =>
  withServer({ env: NO_DRIVER }, async (srv) => {
    const r = await deviceView(srv);
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(r.json.driver.present, false);
    const kids = spawnSync('pgrep', ['-P', String(srv.proc.pid)], { encoding: 'utf8' });
    assert.equal(kids.stdout.trim(), '', 'no GPU worker under the server');
  }));
