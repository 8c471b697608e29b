// The measurement kit is served for download from the web root: /measure.py
// exactly as kit/measure.py, /measure.ipynb built from it, both with their
// own types and precompressed like every other static file (make builds
// them; the service worker keeps them for offline download).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { request, startServer } from './lib.mjs';

const T = { timeout: 30000 };
// The web root make builds (build/web): the sanitizer build has binaries only,
// so its run of this test reads the same files (GPULAB_WEB names another).
const ROOT = resolve(process.env.GPULAB_WEB ?? 'build/web');

test('the kit and its notebook are served from the web root, precompressed', T, async () => {
  const srv = await startServer({ root: ROOT });
  try {
    const kit = readFileSync('kit/measure.py', 'utf8');
    const py = await request(srv, '/measure.py', { headers: { 'Accept-Encoding': 'identity' } });
    assert.equal(py.status, 200);
    assert.match(py.headers.get('content-type'), /^text\/x-python/);
    assert.equal(py.text, kit);
    const gz = await request(srv, '/measure.py', { headers: { 'Accept-Encoding': 'gzip' } });
    assert.equal(gz.headers.get('content-encoding'), 'gzip');
    assert.equal(gz.text, kit); // fetch inflates it
    const nb = await request(srv, '/measure.ipynb');
    assert.equal(nb.status, 200);
    assert.equal(nb.headers.get('content-type'), 'application/x-ipynb+json');
    const cells = nb.json.cells.filter((c) => c.cell_type === 'code' && c.metadata.gpulab !== 'run');
    assert.equal(cells.map((c) => c.source.join('')).join(''), kit, 'the notebook is the script');
    const sw = readFileSync(join(ROOT, 'sw.js'), 'utf8');
    assert.match(sw, /"\/measure\.py", "\/measure\.ipynb"/);
  } finally {
    await srv.stop();
  }
});
