// A class database that asks for a password: without one, or with a wrong
// one, `gpulab serve` stops at once and says to set PGPASSWORD (or a
// password in the URI or ~/.pgpass), not "check that PostgreSQL runs …
// retry". The stage's PostgreSQL trusts loopback; this test adds one
// pg_hba.conf line asking for a password on its own database only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, childEnv } from '../api/lib.mjs';
import { missing, psql } from './cluster_lib.mjs';

const T = { timeout: 90000, skip: missing() || (!process.env.PGDATA_FX && 'no PGDATA_FX') || false };
const port = process.env.GPULAB_SCALE_PG_PORT;

function reload() {
  const r = spawnSync('runuser', ['-u', 'postgres', '--', join(process.env.PGBIN_FX, 'pg_ctl'), '-D', process.env.PGDATA_FX, 'reload'],
    { encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, r.stderr);
}

// Starts serve and waits for it to exit (it must: the store cannot be opened); returns its output.
function serve(uri, env) {
  return new Promise((res, rej) => {
    const p = spawn(BIN, ['serve', '--port', '0', '--store', uri, '--workers', 'none'],
      { env: { ...childEnv(env), PGPASSFILE: '/nonexistent/pgpass' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => { p.kill('SIGKILL'); rej(new Error(`serve did not stop: ${out}`)); }, 30000);
    p.on('exit', (code) => { clearTimeout(timer); res({ code, out }); });
  });
}

test('a_missing_or_wrong_postgresql_password_says_to_set_PGPASSWORD', T, async () => {
  const db = `pwauth_${process.pid}`, user = `pwauth_${process.pid}`;
  const hba = join(process.env.PGDATA_FX, 'pg_hba.conf');
  const before = readFileSync(hba, 'utf8');
  psql(`CREATE ROLE ${user} LOGIN PASSWORD 'right-password'`);
  psql(`CREATE DATABASE ${db} OWNER ${user} TEMPLATE template0`);
  writeFileSync(hba, `host ${db} all 127.0.0.1/32 scram-sha-256\n${before}`);
  reload();
  try {
    const uri = `postgresql://${user}@127.0.0.1:${port}/${db}`;
    for (const [env, said] of [[{}, /asks for a password and none was given/], [{ PGPASSWORD: 'wrong' }, /refused the password given/]]) {
      const r = await serve(uri, env);
      assert.notEqual(r.code, 0, r.out);
      assert.match(r.out, said);
      assert.match(r.out, /set PGPASSWORD \(or a password in the connection string \/ ~\/\.pgpass\)/);
      assert.doesNotMatch(r.out, /check that PostgreSQL runs/);
    }
  } finally {
    writeFileSync(hba, before);
    reload();
  }
});
