// The class database over TLS: a server and a worker whose --store says
// sslmode=verify-full&sslrootcert=CA serve a class over TLS (their logs say
// so, pg_stat_ssl agrees, the password is never printed); sslmode=require
// against a PostgreSQL without TLS, and verify-full with the wrong CA, stop
// at once with what to do, not "retry". The TLS PostgreSQL is a second
// throw-away one started here on a free port, with a throw-away CA: the
// stage's own stays as the other files expect it (no TLS), and serves as
// the server without TLS.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, assertNoSanitizerFindings, childEnv, request } from '../api/lib.mjs';
import { fakeGpu } from '../api/queue_lib.mjs';
import { freePort, missing, newStore, startClusterServer, startWorker, workersSeen } from './cluster_lib.mjs';

const T = { timeout: 180000, skip: missing() || (!process.env.PGBIN_FX && 'no PGBIN_FX') || false };
const SECRET = 'tls-secret-pw-never-printed';

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 60000, ...opts });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}


// A CA (cert + key) named cn in dir.
function makeCa(dir, cn) {
  run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${cn}`,
    '-keyout', join(dir, `${cn}.key`), '-out', join(dir, `${cn}.crt`)]);
  return { crt: join(dir, `${cn}.crt`), key: join(dir, `${cn}.key`) };
}

// A server certificate for 127.0.0.1 signed by ca.
function makeServerCert(dir, ca) {
  const key = join(dir, 'server.key'), csr = join(dir, 'server.csr'), crt = join(dir, 'server.crt');
  const ext = join(dir, 'server.ext');
  writeFileSync(ext, 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', key, '-out', csr]);
  run('openssl', ['x509', '-req', '-in', csr, '-CA', ca.crt, '-CAkey', ca.key, '-CAcreateserial', '-days', '2',
    '-extfile', ext, '-out', crt]);
  return { key, crt };
}

// A throw-away PostgreSQL with ssl = on that takes loopback clients only over TLS (hostssl).
const pg2 = { dir: null, data: null, port: 0, up: false };
function pgCtl(...args) {
  return spawnSync('runuser', ['-u', 'postgres', '--', join(process.env.PGBIN_FX, 'pg_ctl'), '-D', pg2.data, ...args],
    { encoding: 'utf8', timeout: 60000 });
}
async function startTlsPostgres(dir, cert) {
  const pgbin = process.env.PGBIN_FX;
  pg2.dir = join(dir, 'pg2');
  pg2.data = join(pg2.dir, 'data');
  mkdirSync(join(pg2.dir, 'sock'), { recursive: true });
  run('chown', ['-R', 'postgres', pg2.dir]);
  run('runuser', ['-u', 'postgres', '--', join(pgbin, 'initdb'), '-D', pg2.data, '-U', 'postgres', '--auth=trust',
    '-E', 'UTF8', '--no-sync']);
  // The key must belong to the server's user and be private, or PostgreSQL refuses it.
  chownSync(cert.key, Number(run('id', ['-u', 'postgres']).trim()), Number(run('id', ['-g', 'postgres']).trim()));
  chmodSync(cert.key, 0o600);
  const hba = join(pg2.data, 'pg_hba.conf');
  writeFileSync(hba, 'local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n');
  pg2.port = await freePort();
  const opts = `-p ${pg2.port} -k ${join(pg2.dir, 'sock')} -c listen_addresses=127.0.0.1 -c ssl=on ` +
    `-c ssl_cert_file=${cert.crt} -c ssl_key_file=${cert.key}`;
  const r = pgCtl('-l', join(pg2.dir, 'server.log'), '-o', opts, '-w', '-t', '30', 'start');
  if (r.status !== 0) assert.fail(`TLS PostgreSQL did not start: ${r.stderr}\n${readFileSync(join(pg2.dir, 'server.log'), 'utf8')}`);
  pg2.up = true;
}

function psql2(sql, db = 'postgres') {
  return run('psql', ['-h', '127.0.0.1', '-p', String(pg2.port), '-U', 'postgres', '-d', db, '-At', '-c', sql],
    { env: { ...process.env, PGSSLMODE: 'require' } }).trim();
}

// Starts `gpulab serve` or `gpulab worker` on uri and waits for it to exit (it must); returns its output and time.
function mustStop(args, uri) {
  return new Promise((res, rej) => {
    const t0 = Date.now();
    const p = spawn(BIN, args, { env: childEnv({ GPULAB_STORE: uri }), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => { p.kill('SIGKILL'); rej(new Error(`${args[0]} did not stop: ${out}`)); }, 30000);
    p.on('exit', (code) => {
      clearTimeout(timer);
      assertNoSanitizerFindings(out, `${args[0]} output`);
      res({ code, out, ms: Date.now() - t0 });
    });
  });
}

let tmp, ca, wrongCa;
after(() => {
  if (pg2.up) pgCtl('-m', 'immediate', '-w', '-t', '30', 'stop');
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});
function setUp() {
  if (tmp) return;
  tmp = mkdtempSync('/tmp/gpulab-tls-');
  chmodSync(tmp, 0o755);
  ca = makeCa(tmp, 'gpulab-test-ca');
  wrongCa = makeCa(tmp, 'some-other-ca');
}

test('a_server_and_a_worker_with_verify_full_serve_a_class_over_tls', T, async () => {
  setUp();
  await startTlsPostgres(tmp, makeServerCert(tmp, ca));
  const db = `tls_${process.pid}`;
  psql2(`CREATE DATABASE ${db} TEMPLATE template0`);
  const uri = `postgresql://postgres:${SECRET}@127.0.0.1:${pg2.port}/${db}?sslmode=verify-full&sslrootcert=${ca.crt}`;
  const srv = await startClusterServer(uri);
  let w;
  try {
    assert.match(srv.stdout(), /class database postgresql:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/tls_\d+: TLS \(TLSv1\.[23], [^,]+, sslmode=verify-full\)/);
    w = await startWorker(uri, { env: fakeGpu(50) });
    assert.match(w.stdout(), /gpulab worker: class database \S+: TLS \(TLSv1\.[23], [^,]+, sslmode=verify-full\)/);
    await workersSeen([srv], 1, { timeoutMs: 30000 });
    assert.equal((await request(srv, '/api/health')).status, 200);
    // Every gpulab connection (the server's pool, keeper and LISTEN; the worker's) is TLS.
    const rows = psql2(`SELECT s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.application_name = 'gpulab' AND a.datname = '${db}'`);
    const seen = rows.split('\n').filter(Boolean);
    assert.ok(seen.length >= 2, `gpulab connections seen: ${rows}`);
    assert.deepEqual([...new Set(seen)], ['t'], rows);
    for (const text of [srv.stdout(), srv.stderr(), w.stdout(), w.stderr()]) assert.ok(!text.includes(SECRET), 'the password was printed');
  } finally {
    await w?.stop();
    await srv.stop();
  }
});

test('sslmode_require_against_a_postgresql_without_tls_stops_at_once_saying_to_turn_ssl_on', T, async () => {
  const { uri } = newStore(); /* the stage's PostgreSQL: no TLS */
  const srv = await startClusterServer(uri); /* libpq's default, prefer, finds no TLS and says so */
  try {
    assert.match(srv.stdout(), /class database postgresql:\/\/\S+: no TLS \(sslmode=prefer\)/);
  } finally {
    await srv.stop();
  }
  for (const args of [['serve', '--port', '0', '--store', `${uri}?sslmode=require`, '--workers', 'none'], ['worker']]) {
    const r = await mustStop(args, `${uri}?sslmode=require`);
    assert.notEqual(r.code, 0, r.out);
    assert.match(r.out, /TLS to the class database \S+ failed: the PostgreSQL server has no TLS: set ssl = on there/);
    assert.match(r.out, /then start again/);
    assert.doesNotMatch(r.out, /retry/);
    assert.ok(r.ms < 20000, `${args[0]} took ${r.ms} ms to give up`);
  }
});

test('verify_full_with_the_wrong_ca_stops_at_once_naming_sslrootcert', T, async () => {
  setUp();
  if (!pg2.up) await startTlsPostgres(tmp, makeServerCert(tmp, ca));
  const uri = `postgresql://postgres@127.0.0.1:${pg2.port}/postgres?sslmode=verify-full&sslrootcert=${wrongCa.crt}`;
  const r = await mustStop(['serve', '--port', '0', '--store', uri, '--workers', 'none'], uri);
  assert.notEqual(r.code, 0, r.out);
  assert.match(r.out, /not signed by the CA in sslrootcert: point sslrootcert= at the CA that signed it/);
  assert.doesNotMatch(r.out, /retry/);
  // A connection without TLS is refused by hostssl, and the error says to add TLS to the URI.
  const plain = `postgresql://postgres@127.0.0.1:${pg2.port}/postgres?sslmode=disable`;
  const p = await mustStop(['serve', '--port', '0', '--store', plain, '--workers', 'none'], plain);
  assert.notEqual(p.code, 0, p.out);
  assert.match(p.out, /takes this user only over TLS \(hostssl\)/);
  assert.doesNotMatch(p.out, /retry/);
});
