// TLS: with a certificate and key the class server speaks HTTPS only
// (tested with a self-signed certificate made here by openssl); the key may
// come apart or in the certificate's PEM; a bad file stops the start with a
// clear message; the joined key file does not outlive the start-up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import tls from 'node:tls';
import net from 'node:net';
import { BIN, childEnv, makeWebRoot, assertNoSanitizerFindings } from './lib.mjs';

const T = { timeout: 30000 };
const haveOpenssl = spawnSync('openssl', ['version']).status === 0;
const skip = haveOpenssl ? false : 'openssl is not installed: cannot make a self-signed certificate';

function makeCert(dir) {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const both = join(dir, 'both.pem');
  writeFileSync(both, readFileSync(key, 'utf8') + readFileSync(cert, 'utf8'));
  return { key, cert, both, ca: readFileSync(cert) };
}

// Starts a class server with TLS; resolves { port, proc, stderr(), stop() }.
async function startTls(args, env = {}) {
  const web = makeWebRoot();
  const db = join(web.base, 'class.db');
  const proc = spawn(BIN, ['serve', '--host', '127.0.0.1', '--port', '0', '--root', web.root, '--db', db, ...args],
    { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  proc.stderr.setEncoding('utf8').on('data', (d) => (err += d));
  const exited = new Promise((res) => proc.on('exit', (code) => res(code)));
  const port = await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`no listening line; stderr:\n${err}`)), 10000);
    proc.stdout.on('data', () => {
      const m = out.match(/gpulab: listening on https:\/\/127\.0\.0\.1:(\d+)/);
      if (m) clearTimeout(timer), res(Number(m[1]));
    });
    exited.then((code) => (clearTimeout(timer), rej(Object.assign(new Error(`exited ${code}: ${err}`), { code, err }))));
  }).catch((e) => {
    proc.kill('SIGKILL');
    web.cleanup();
    throw e;
  });
  return {
    port,
    stderr: () => err,
    async stop() {
      proc.kill('SIGTERM');
      const poke = setInterval(() => net.connect(port, '127.0.0.1').on('error', () => {}).on('connect', function () { this.destroy(); }), 100);
      const t = setTimeout(() => proc.kill('SIGKILL'), 8000);
      await exited;
      clearInterval(poke);
      clearTimeout(t);
      web.cleanup();
      assertNoSanitizerFindings(err, 'TLS server stderr');
    },
  };
}

function httpsRequest(port, ca, path, { method = 'GET', body } = {}) {
  return new Promise((res, rej) => {
    const req = https.request({ host: '127.0.0.1', servername: 'localhost', port, path, method, ca, timeout: 5000,
      headers: body ? { 'Content-Type': 'application/json' } : {} }, (r) => {
      let text = '';
      r.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () => res({ status: r.statusCode, headers: r.headers, text }));
    });
    req.on('error', rej).on('timeout', () => req.destroy(new Error('timeout')));
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

test('HTTPS with a self-signed certificate and a separate key', { ...T, skip }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-tls-test-'));
  const tmp = mkdtempSync(join(tmpdir(), 'gpulab-tls-tmp-'));
  try {
    const c = makeCert(dir);
    const srv = await startTls(['--tls-cert', c.cert, '--tls-key', c.key, '--join-code', 'ABCD-EFGH'], { TMPDIR: tmp });
    try {
      assert.deepEqual(readdirSync(tmp), [], 'the joined key+certificate file is gone once the server started');
      const h = await httpsRequest(srv.port, c.ca, '/api/health');
      assert.equal(h.status, 200, h.text);
      assert.equal(JSON.parse(h.text).status, 'ok');
      assert.match(String(h.headers['strict-transport-security']), /^max-age=\d{7,}/, 'HSTS over TLS');
      const j = await httpsRequest(srv.port, c.ca, '/api/class/join', { method: 'POST', body: { code: 'ABCD-EFGH', name: 'Ada' } });
      assert.equal(j.status, 200, j.text);
      const cookie = String(j.headers['set-cookie']);
      assert.match(cookie, /gpulab_session=[0-9a-f]{64}/);
      assert.match(cookie, /;\s*Secure/i, 'over TLS the session cookie is Secure');
      // Without the certificate as a trusted CA the client refuses it: it really is TLS.
      await assert.rejects(httpsRequest(srv.port, undefined, '/api/health'), /self[- ]signed|certificate/i);
      // Plain HTTP to the TLS port gets no HTTP answer.
      const plain = await fetch(`http://127.0.0.1:${srv.port}/api/health`, { signal: AbortSignal.timeout(3000) })
        .then((r) => r.status, () => 'refused');
      assert.notEqual(plain, 200);
    } finally {
      await srv.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('HTTPS with the key inside the certificate\'s PEM', { ...T, skip }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-tls-test-'));
  try {
    const c = makeCert(dir);
    const srv = await startTls(['--tls-cert', c.both, '--tls-key', c.both]);
    try {
      const h = await httpsRequest(srv.port, c.ca, '/metrics');
      assert.equal(h.status, 200);
      assert.match(h.text, /gpulab_requests_total/);
    } finally {
      await srv.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a certificate that is not PEM stops the start with a clear message', { ...T, skip }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-tls-test-'));
  try {
    const c = makeCert(dir);
    const bad = join(dir, 'bad.pem');
    writeFileSync(bad, 'not a certificate\n');
    const e = await startTls(['--tls-cert', bad, '--tls-key', c.key]).then(() => null, (x) => x);
    assert.ok(e, 'the server must not start');
    assert.notEqual(e.code, 0);
    assert.match(e.err, /not PEM|certificate/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// One TLS handshake with the given client settings; resolves the cipher
// agreed, or rejects with the handshake error.
function handshake(port, ca, opts) {
  return new Promise((res, rej) => {
    const s = tls.connect({ host: '127.0.0.1', servername: 'localhost', port, ca, ...opts }, () => {
      const c = s.getCipher();
      s.end();
      res(c);
    });
    s.setTimeout(5000, () => s.destroy(new Error('handshake timed out')));
    s.on('error', rej);
  });
}

test('tls_offers_only_forward_secret_aead_suites_on_tls_1_2', { ...T, skip }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-tls-test-'));
  try {
    const c = makeCert(dir);
    const srv = await startTls(['--tls-cert', c.cert, '--tls-key', c.key]);
    try {
      const good = await handshake(srv.port, c.ca, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' });
      assert.equal(good.name, 'ECDHE-RSA-AES128-GCM-SHA256');
      // RSA key transport (no forward secrecy) and CBC with SHA-1: refused.
      for (const ciphers of ['AES128-SHA', 'AES256-GCM-SHA384', 'ECDHE-RSA-AES128-SHA', 'ECDHE-RSA-AES256-SHA384'])
        await assert.rejects(handshake(srv.port, c.ca, { maxVersion: 'TLSv1.2', ciphers }), /handshake|cipher|alert/i, ciphers);
      await assert.rejects(handshake(srv.port, c.ca, { maxVersion: 'TLSv1.1', minVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' }),
        /version|protocol|alert|handshake/i, 'TLS 1.1 is refused');
    } finally {
      await srv.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
