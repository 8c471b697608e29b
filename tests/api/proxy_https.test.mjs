// Behind a TLS-terminating proxy: a trusted proxy's X-Forwarded-Proto:
// https makes the session cookies Secure and adds HSTS, as when the server
// ends TLS itself; the same header from anyone else changes nothing; and
// X-Forwarded-For from an address the server does not trust gets one
// warning in its log naming --trusted-proxy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitForStderr } from './lib.mjs';
import { withClass, postFrom } from './class_lib.mjs';

const join = (srv, name, opts) => postFrom(srv, '/api/class/join', { code: srv.joinCode, name }, opts);
const cookies = (r) => [].concat(r.headers['set-cookie'] ?? []);

test('a trusted proxy saying https gets Secure cookies and HSTS; an untrusted one does not', async () => {
  await withClass({ args: ['--trusted-proxy', '127.0.0.2'] }, async (srv) => {
    const proxied = await join(srv, 'Ada', { localAddress: '127.0.0.2', headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '10.1.2.3' } });
    assert.equal(proxied.status, 200, proxied.text);
    const set = cookies(proxied);
    assert.ok(set.length >= 2, `session and learner cookies: ${set}`);
    for (const c of set) assert.match(c, /; Secure/, c);
    assert.match(proxied.headers['strict-transport-security'] ?? '', /^max-age=\d+/);

    const plain = await join(srv, 'Bo', { localAddress: '127.0.0.2', headers: { 'X-Forwarded-Proto': 'http' } });
    assert.equal(plain.status, 200, plain.text);
    for (const c of cookies(plain)) assert.doesNotMatch(c, /Secure/, c);
    assert.equal(plain.headers['strict-transport-security'], undefined);

    const forged = await join(srv, 'Cy', { localAddress: '127.0.0.3', headers: { 'X-Forwarded-Proto': 'https' } });
    assert.equal(forged.status, 200, forged.text);
    for (const c of cookies(forged)) assert.doesNotMatch(c, /Secure/, c);
    assert.equal(forged.headers['strict-transport-security'], undefined, 'a client cannot claim https for itself');

    // An error answer of a trusted https request carries HSTS too.
    const bad = await postFrom(srv, '/api/class/join', { code: 'WRONG', name: 'Di' },
      { localAddress: '127.0.0.2', headers: { 'X-Forwarded-Proto': 'https' } });
    assert.ok(bad.status >= 400);
    assert.match(bad.headers['strict-transport-security'] ?? '', /^max-age=\d+/);
  });
});

test('X-Forwarded-For from an untrusted address: one warning naming --trusted-proxy', async () => {
  await withClass({}, async (srv) => {
    for (let i = 0; i < 3; i++) {
      const r = await postFrom(srv, '/api/session', undefined, { method: 'GET', headers: { 'X-Forwarded-For': `10.0.0.${i + 1}` } });
      assert.ok(r.status === 401 || r.status === 200, r.text);
    }
    await waitForStderr(srv, (s) => /X-Forwarded-For/.test(s), { what: 'the warning' });
    const lines = srv.stderr().split('\n').filter((l) => l.includes('X-Forwarded-For'));
    assert.equal(lines.length, 1, `once per process: ${lines.join('\n')}`);
    assert.match(lines[0], /warning/);
    assert.match(lines[0], /--trusted-proxy 127\.0\.0\.1/);
  });
});

test('a trusted proxy forwarding X-Forwarded-For gives no warning', async () => {
  await withClass({ args: ['--trusted-proxy', '127.0.0.1'] }, async (srv) => {
    const r = await join(srv, 'Ed', { headers: { 'X-Forwarded-For': '10.9.9.9' } });
    assert.equal(r.status, 200, r.text);
    assert.doesNotMatch(srv.stderr(), /X-Forwarded-For/);
  });
});
