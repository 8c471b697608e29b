// The device probe is single-flight: 50 concurrent /api/health requests
// start one nvidia-smi probe and share its answer (they once forked it
// 214 times in 10 s). The fake nvidia-smi counts its runs in a file and
// takes 300 ms, so the requests overlap the probe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withServer, request } from './lib.mjs';

const T = { timeout: 30000 };

test('fifty_concurrent_health_requests_share_one_nvidia_smi_probe', T, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-smi-'));
  const log = join(dir, 'runs.log');
  const smi = join(dir, 'nvidia-smi');
  writeFileSync(smi, `#!/bin/sh\necho run >> '${log}'\nsleep 0.3\n` +
    `if [ "$#" -eq 0 ]; then echo 'CUDA Version: 12.4'; exit 0; fi\necho 'Fake GPU, 81559, 80000, 550.54, 00000000:01:00.0'\n`);
  chmodSync(smi, 0o755);
  try {
    await withServer({ env: { GPULAB_NVML_LIB: '/nonexistent/libnvidia-ml.so.1', GPULAB_NVIDIA_SMI: smi } }, async (srv) => {
      const t0 = performance.now();
      const answers = await Promise.all(Array.from({ length: 50 }, () => request(srv, '/api/health')));
      const ms = performance.now() - t0;
      for (const a of answers) assert.equal(a.status, 200);
      const runs = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').length : 0;
      // One probe runs nvidia-smi twice (the query, then the banner for the CUDA version).
      assert.ok(runs >= 2 && runs <= 4, `nvidia-smi ran ${runs} times for 50 requests`);
      assert.ok(ms < 5000, `50 requests took ${ms.toFixed(0)} ms`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
