// Static files from the web root: content types, cross-origin isolation
// headers, ETag revalidation, HEAD, and nothing from outside the root
// (raw requests, so nothing normalises the path before the server sees it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { makeWebRoot, withServer, request, rawRequest, assertSecurityHeaders } from './lib.mjs';

const T = { timeout: 20000 };

test('static files carry the right content type and the security headers', T, () =>
  withServer({}, async (srv, web) => {
    const cases = [
      ['/', /^text\/html/, 'index.html'],
      ['/index.html', /^text\/html/, 'index.html'],
      ['/app.wasm', /^application\/wasm$/, 'app.wasm'],
      ['/app.js', /^text\/javascript/, 'app.js'],
    ];
    for (const [path, type, file] of cases) {
      const res = await fetch(srv.url + path);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type'), type, path);
      assertSecurityHeaders(res.headers, path);
      const body = Buffer.from(await res.arrayBuffer());
      assert.deepEqual(body, readFileSync(join(web.root, file)), `${path} body is the file`);
      assert.equal(Number(res.headers.get('content-length')), body.length);
    }
  }));

test('a known ETag in If-None-Match gives 304 with no body', T, () =>
  withServer({}, async (srv) => {
    const first = await fetch(srv.url + '/app.js');
    await first.arrayBuffer();
    const etag = first.headers.get('etag');
    assert.match(etag, /^".+"$/);
    const again = await request(srv, '/app.js', { headers: { 'If-None-Match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    assert.equal(again.headers.get('etag'), etag);
    assertSecurityHeaders(again.headers, '304');
    const stale = await request(srv, '/app.js', { headers: { 'If-None-Match': '"0-0"' } });
    assert.equal(stale.status, 200, 'a different ETag gets the file');
  }));

test('HEAD on a static file sends the headers and no body', T, () =>
  withServer({}, async (srv, web) => {
    const r = await rawRequest(srv.port, 'HEAD /app.wasm HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/wasm');
    assert.equal(Number(r.headers['content-length']), readFileSync(join(web.root, 'app.wasm')).length);
    assert.equal(r.body, '', 'no body after the headers');
    assertSecurityHeaders(r.headers, 'HEAD');
  }));

test('a missing file is a 404 page with the security headers', T, () =>
  withServer({}, async (srv) => {
    const r = await request(srv, '/nope.html');
    assert.equal(r.status, 404);
    assertSecurityHeaders(r.headers, '404');
    assert.match(r.headers.get('content-type'), /^text\/html/);
  }));

test('path traversal never leaves the web root', T, () =>
  withServer({}, async (srv, web) => {
    const passwd = readFileSync('/etc/passwd', 'utf8').split('\n')[0];
    const paths = [
      '/../etc/passwd',
      '/../../../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/..%2f..%2fetc/passwd',
      '/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '/sub/../../etc/passwd',
      '/sub/%2e%2e/%2e%2e/secret.txt',
      '/..%5c..%5cetc/passwd',
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '//etc/passwd',
    ];
    for (const p of paths) {
      const r = await rawRequest(srv.port, `GET ${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.ok(r.status === 404 || r.status === 400, `${p}: got ${r.status}`);
      assert.ok(!r.body.includes(passwd) && !r.body.includes(web.secret), `${p} leaked a file`);
    }
  }));

test('a symlink pointing out of the root is 404, never the target', T, () =>
  withServer({}, async (srv, web) => {
    for (const p of ['/leak.txt', '/up/secret.txt', '/up/../secret.txt']) {
      const r = await rawRequest(srv.port, `GET ${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.equal(r.status, 404, p);
      assert.ok(!r.body.includes(web.secret), `${p} leaked the link target`);
    }
  }));

test('a directory is 404 and never listed', T, () =>
  withServer({}, async (srv) => {
    for (const p of ['/sub/', '/sub', '/lessons/']) {
      const r = await request(srv, p);
      assert.equal(r.status, 404, p);
      assert.ok(!r.text.includes('inner.txt') && !r.text.includes('index.json'), `${p} listed a directory`);
      assertSecurityHeaders(r.headers, p);
    }
    const inner = await request(srv, '/sub/inner.txt');
    assert.equal(inner.status, 200, 'a file inside a sub-folder is served');
  }));

// The page's inline scripts (web/app.js and the client's program, written
// into index.html by make) are allowed by the SHA-256 of their text, taken
// from the page as it is served: a page rebuilt while the server runs is
// allowed as it is now, a 304 carries the same policy (it replaces the
// cached answer's headers), and a data block or a script with a src is not
// hashed. Every other answer allows no inline script.
test('a page\'s CSP allows its own inline scripts by their hash, and nothing else inline', T, async () => {
  const web = makeWebRoot();
  const page = (code) => `<!doctype html><head><script type="application/json" data-url="/x.json">{"a":1}</script>` +
    `<script src="x.js"></script><script>${code}</script></head><body><p>index</p></body>\n`;
  const sha = (code) => createHash('sha256').update(code).digest('base64');
  const allows = (csp, code) => csp.includes(`script-src 'self' 'wasm-unsafe-eval' 'sha256-${sha(code)}';`);
  writeFileSync(join(web.root, 'index.html'), page('\n  window.booted = 1;\n'));
  try {
    await withServer({ root: web.root }, async (srv) => {
      const first = await request(srv, '/');
      let csp = first.headers.get('content-security-policy');
      assert.ok(allows(csp, '\n  window.booted = 1;\n'), csp);
      assert.equal((csp.match(/'sha256-/g) || []).length, 1, `one inline script allowed: ${csp}`);
      assert.ok(!csp.includes('unsafe-inline'), csp);
      const again = await request(srv, '/', { headers: { 'If-None-Match': first.headers.get('etag') } });
      assert.equal(again.status, 304);
      assert.equal(again.headers.get('content-security-policy'), csp, 'a 304 carries the page\'s policy');
      for (const p of ['/api/health', '/no-such-file', '/app.js']) {
        const r = await request(srv, p);
        const other = r.headers.get('content-security-policy');
        assert.ok(other.includes("script-src 'self' 'wasm-unsafe-eval';") && !other.includes("'sha256-"), `${p}: ${other}`);
      }
      // Rebuilt while the server runs: the new script is allowed, the old one no longer.
      writeFileSync(join(web.root, 'index.html'), page('window.booted = 2;'));
      csp = (await request(srv, '/index.html')).headers.get('content-security-policy');
      assert.ok(allows(csp, 'window.booted = 2;') && !allows(csp, '\n  window.booted = 1;\n'), csp);
    });
  } finally {
    web.cleanup();
  }
});
