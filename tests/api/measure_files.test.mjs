// The measurement kit is served for download from the web root: /measure.py
// exactly as kit/measure.py, /measure.ipynb built from it, both with their
// own types and precompressed like every other static file (make builds
// them; the service worker keeps them for offline download).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import zlib from 'node:zlib';
import { BIN, startServer } from './lib.mjs';

const T = { timeout: 30000 };
const ROOT = join(dirname(dirname(BIN)), 'web');

function get(srv, path, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.get(srv.url + path, { headers, timeout: 5000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
  });
}

test('the kit and its notebook are served from the web root, precompressed', T, async () => {
  const srv = await startServer({ root: ROOT });
  try {
    const kit = readFileSync('kit/measure.py', 'utf8');
    const py = await get(srv, '/measure.py');
    assert.equal(py.status, 200);
    assert.match(py.headers['content-type'], /^text\/x-python/);
    assert.equal(py.body.toString(), kit);
    const gz = await get(srv, '/measure.py', { 'Accept-Encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(zlib.gunzipSync(gz.body).toString(), kit);
    const nb = await get(srv, '/measure.ipynb');
    assert.equal(nb.status, 200);
    assert.equal(nb.headers['content-type'], 'application/x-ipynb+json');
    const cells = JSON.parse(nb.body.toString()).cells.filter((c) => c.cell_type === 'code' && c.metadata.gpulab !== 'run');
    assert.equal(cells.map((c) => c.source.join('')).join(''), kit, 'the notebook is the script');
    const sw = readFileSync(join(ROOT, 'sw.js'), 'utf8');
    assert.match(sw, /"\/measure\.py", "\/measure\.ipynb"/);
  } finally {
    await srv.stop();
  }
});
