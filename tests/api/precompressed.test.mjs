// Precompressed static files (tools/compress.sh, server/http/precompressed.c):
// brotli or gzip twin sent with Content-Encoding when the client accepts it,
// Vary: Accept-Encoding always for compressible types, the plain file
// otherwise, a refused coding (q=0) honoured, a stale twin never sent, and
// each form with its own ETag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, utimesSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { withServer } from './lib.mjs';

const T = { timeout: 20000 };

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

function twins(root, name, text) {
  const file = join(root, name);
  writeFileSync(file, text);
  writeFileSync(`${file}.gz`, zlib.gzipSync(text));
  writeFileSync(`${file}.br`, zlib.brotliCompressSync(text));
  const t = new Date(Math.floor(Date.now() / 1000) * 1000 - 60000); // one whole second for all three
  for (const ext of ['', '.gz', '.br']) utimesSync(file + ext, t, t);
  return file;
}

test('precompressed twins are sent by Accept-Encoding, with Vary and their own ETag', T, () =>
  withServer({}, async (srv, web) => {
    const text = 'export const answer = 42; // '.repeat(200);
    twins(web.root, 'big.js', text);
    const br = await get(srv, '/big.js', { 'Accept-Encoding': 'gzip, deflate, br' });
    assert.equal(br.status, 200);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.match(br.headers['content-type'], /^text\/javascript/);
    assert.equal(zlib.brotliDecompressSync(br.body).toString(), text);
    assert.equal(Number(br.headers['content-length']), br.body.length);

    const gz = await get(srv, '/big.js', { 'Accept-Encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(zlib.gunzipSync(gz.body).toString(), text);
    assert.notEqual(gz.headers.etag, br.headers.etag, 'each form has its own ETag');

    const refused = await get(srv, '/big.js', { 'Accept-Encoding': 'br;q=0, gzip' });
    assert.equal(refused.headers['content-encoding'], 'gzip', 'br;q=0 refuses brotli');

    const plain = await get(srv, '/big.js');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers.vary, 'Accept-Encoding');
    assert.equal(plain.body.toString(), text);

    const again = await get(srv, '/big.js', { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.etag });
    assert.equal(again.status, 304);
  }));

test('a twin older than its file is never sent', T, () =>
  withServer({}, async (srv, web) => {
    const file = twins(web.root, 'stale.css', 'body { color: red; }\n'.repeat(50));
    // Rewritten right after its twins, within the same second: still stale.
    writeFileSync(file, 'body { color: blue; }\n');
    const res = await get(srv, '/stale.css', { 'Accept-Encoding': 'br, gzip' });
    assert.equal(res.headers['content-encoding'], undefined);
    assert.equal(res.body.toString(), 'body { color: blue; }\n');
  }));
