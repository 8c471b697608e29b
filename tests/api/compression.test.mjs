// API answers compressed on the fly (server/http/gzip_body.c): an answer of
// 1 KB or more goes gzipped to a client whose Accept-Encoding takes gzip,
// with Content-Encoding, Vary: Accept-Encoding and the length of what is
// sent; as it is (identity) without the header or with gzip;q=0; small
// answers always as they are. node:http is used: fetch would decode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { withServer } from './lib.mjs';

const T = { timeout: 20000 };

function get(srv, path, headers = {}, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = http.request(srv.url + path, { method, headers, timeout: 5000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

// A lesson bundle as big as a real one (lesson 1 is 45 KB), in the web root
// the API reads it from.
function bigLesson(root) {
  const sections = Array.from({ length: 40 }, (_, i) => ({
    id: `s${i}`, title: `Section ${i}`, html: `<p>${'A kernel launch is asynchronous. '.repeat(30)}</p>`, experiments: [],
  }));
  writeFileSync(join(root, 'lessons', 'big.json'), JSON.stringify({ id: 'big', title: 'Big', sections }));
}

for (const path of ['/api/profiles', '/api/lessons/big']) {
  test(`${path} is gzipped for a client that accepts gzip, as it is for one that does not`, T, () =>
    withServer({}, async (srv, web) => {
      bigLesson(web.root);
      const plain = await get(srv, path);
      assert.equal(plain.status, 200);
      assert.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: identity');
      assert.match(plain.headers.vary ?? '', /Accept-Encoding/i);
      assert.equal(Number(plain.headers['content-length']), plain.body.length);
      const json = JSON.parse(plain.body.toString('utf8'));

      const packed = await get(srv, path, { 'Accept-Encoding': 'gzip, deflate, br' });
      assert.equal(packed.status, 200);
      assert.equal(packed.headers['content-encoding'], 'gzip');
      assert.match(packed.headers.vary ?? '', /Accept-Encoding/i);
      assert.match(packed.headers['content-type'], /^application\/json/);
      assert.equal(Number(packed.headers['content-length']), packed.body.length, 'the length of what is sent');
      assert.deepEqual(JSON.parse(zlib.gunzipSync(packed.body).toString('utf8')), json, 'the same answer');
      assert.ok(packed.body.length * 4 < plain.body.length, `${path}: ${packed.body.length} bytes gzipped of ${plain.body.length}`);

      const refused = await get(srv, path, { 'Accept-Encoding': 'gzip;q=0, identity' });
      assert.equal(refused.headers['content-encoding'], undefined, 'gzip;q=0 refuses gzip');
      assert.equal(refused.body.length, plain.body.length);

      const head = await get(srv, path, { 'Accept-Encoding': 'gzip' }, 'HEAD');
      assert.equal(head.headers['content-encoding'], 'gzip');
      assert.equal(Number(head.headers['content-length']), packed.body.length, 'HEAD says what GET sends');
      assert.equal(head.body.length, 0);
    }));
}

test('a small answer goes as it is even to a client that accepts gzip', T, () =>
  withServer({}, async (srv) => {
    const r = await get(srv, '/api/health', { 'Accept-Encoding': 'gzip' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-encoding'], undefined);
    assert.ok(r.body.length < 1024);
    JSON.parse(r.body.toString('utf8'));
  }));

test('an error answer is JSON either way', T, () =>
  withServer({}, async (srv) => {
    const r = await get(srv, '/api/lessons/nope', { 'Accept-Encoding': 'gzip' });
    assert.equal(r.status, 404);
    const body = r.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(r.body) : r.body;
    assert.equal(JSON.parse(body.toString('utf8')).error.code, 'unknown_lesson');
  }));
