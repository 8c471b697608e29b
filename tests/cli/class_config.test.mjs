// `gpulab serve --class FILE` and the class flags: a good file starts a
// class with its name, join code and database (relative to the file);
// flags override the file; an unknown key, a wrong type, a value out of
// bounds or half a TLS pair stops the start with exit 2 and a message
// naming the file (or flag), the key and the bounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, makeWebRoot, request } from '../api/lib.mjs';
import { startClassServer, joinAs } from '../api/class_lib.mjs';

const T = { timeout: 20000 };

function withDir(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'gpulab-classcfg-'));
  return Promise.resolve(fn(dir)).finally(() => rmSync(dir, { recursive: true, force: true }));
}

const serve = (args) => cli(['serve', '--host', '127.0.0.1', '--port', '0', ...args], { timeoutMs: 10000 });

test('class_config_file_starts_a_class_and_flags_override_it', T, () =>
  withDir(async (dir) => {
    const file = join(dir, 'class.json');
    writeFileSync(file, JSON.stringify({
      name: 'CS 101 lab', db: 'data.db', join_code: 'wxyz-2345',
      limits: { runs_per_minute: 6, gpu_seconds_per_session: 300, max_gpu_mem_gib: 4, deadline_s: 60, queue_max: 50, max_body_kib: 64, max_connections: 64 },
      tls: { cert: null, key: null }, gpus: [0],
    }));
    const web = makeWebRoot();
    // startClassServer adds --db with the same path the file names.
    const srv = await startClassServer({ root: web.root, db: join(dir, 'data.db') }, { args: ['--class', file, '--queue-max', '7'] });
    try {
      assert.equal(srv.className, 'CS 101 lab');
      assert.equal(srv.joinCode, 'WXYZ-2345');
      assert.match(srv.instructorToken, /^[0-9a-f]{64}$/);
      await joinAs(srv, 'Ada', 'wxyz2345');
      const view = await request(srv, '/api/instructor/class', { headers: { Authorization: `Bearer ${srv.instructorToken}` } });
      assert.equal(view.json.class.limits.queue_max, 7, 'the flag overrides the file');
      assert.equal(view.json.class.limits.runs_per_minute, 6);
    } finally {
      await srv.stop();
      web.cleanup();
    }
    assert.ok(existsSync(join(dir, 'data.db')), 'the database was created');
  }));

test('class_config_db_in_the_file_is_relative_to_the_file', T, () =>
  withDir(async (dir) => {
    const file = join(dir, 'class.json');
    writeFileSync(file, JSON.stringify({ name: 'rel', db: 'rel.db' }));
    const web = makeWebRoot();
    const { startServer } = await import('../api/lib.mjs');
    const srv = await startServer({ root: web.root, args: ['--class', file] });
    try {
      for (const end = Date.now() + 10000; !/instructor token/.test(srv.stdout()) && Date.now() < end;)
        await new Promise((r) => setTimeout(r, 20));
      assert.match(srv.stdout(), /gpulab: class "rel" join code: [A-Z2-9]{4}-[A-Z2-9]{4}\n/);
    } finally {
      await srv.stop();
      web.cleanup();
    }
    assert.ok(existsSync(join(dir, 'rel.db')));
  }));

test('class_config_refuses_bad_files_with_file_key_and_bounds', T, () =>
  withDir((dir) => {
    const cases = [
      [{ name: 'x', colour: 'red' }, /: colour: unknown key/],
      [{ limits: { runs_per_minute: 0 } }, /: limits\.runs_per_minute: must be an integer from 1 to 600/],
      [{ limits: { queue_max: '50' } }, /: limits\.queue_max: must be an integer from 1 to 10000/],
      [{ limits: { max_connections: 100000 } }, /: limits\.max_connections: must be an integer from 1 to 1000/],
      [{ limits: { deadline_s: 1.5 } }, /: limits\.deadline_s: must be an integer/],
      [{ gpus: 'all' }, /: gpus: must be an array/],
      [{ join_code: 'short' }, /: join_code: must be 8 characters/],
      [{ tls: { cert: 42 } }, /: tls\.cert: must be a string or null/],
      [{ name: 'x'.repeat(81) }, /: name: must be 1 to 80/],
    ];
    for (const [json, want] of cases) {
      const file = join(dir, 'bad.json');
      writeFileSync(file, JSON.stringify(json));
      const r = serve(['--class', file]);
      assert.equal(r.code, 2, `${JSON.stringify(json)}: ${r.stderr}`);
      assert.ok(r.stderr.includes(`${file}: `), `names the file: ${r.stderr}`);
      assert.match(r.stderr, want);
      assert.ok(!/listening/.test(r.stdout), 'did not start');
    }
    writeFileSync(join(dir, 'broken.json'), '{"name": "x",');
    const r = serve(['--class', join(dir, 'broken.json')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /broken\.json: not valid JSON/);
    const missing = serve(['--class', join(dir, 'none.json')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /none\.json: cannot read it/);
  }));

test('class_config_refuses_bad_flags', T, () =>
  withDir((dir) => {
    const db = ['--db', join(dir, 'c.db')];
    const cases = [
      [['--runs-per-minute', '0'], /--runs-per-minute: must be an integer from 1 to 600/],
      [['--gpu-seconds', 'lots'], /--gpu-seconds: must be an integer from 1 to 86400/],
      [['--max-gpu-mem-gib', '2000'], /--max-gpu-mem-gib: must be an integer from 1 to 1024/],
      [['--queue-max', '-1'], /--queue-max: must be an integer from 1 to 10000/],
      [['--max-body-kib', '0'], /--max-body-kib: must be an integer from 1 to 1024/],
      [['--gpus', '0,0'], /--gpus: must be 1 to 16 distinct/],
      [['--join-code', 'OOOO-IIII'], /--join-code: must be 8 characters/],
      [['--class-name', ''], /--class-name: must be 1 to 80/],
      [['--tls-cert', '/etc/hostname'], /both a certificate and a key/],
      [['--queue-max'], /--queue-max is missing its value/],
    ];
    for (const [args, want] of cases) {
      const r = serve([...db, ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, want);
    }
  }));

test('class_config_unwritable_database_exits_1_with_the_reason', T, () =>
  withDir((dir) => {
    const web = makeWebRoot();
    try {
      const r = serve(['--root', web.root, '--db', join(dir, 'missing', 'folder', 'c.db')]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /cannot open the class database .*missing\/folder/);
      writeFileSync(join(dir, 'text.db'), 'plain text, not a database at all, long enough for a header\n'.repeat(4));
      const t = serve(['--root', web.root, '--db', join(dir, 'text.db')]);
      assert.equal(t.code, 1, t.stderr);
      assert.match(t.stderr, /class database .*text\.db/);
    } finally {
      web.cleanup();
    }
  }));

test('class_config_bad_instructor_token_in_the_environment_is_refused', T, () =>
  withDir((dir) => {
    const web = makeWebRoot();
    try {
      const r = cli(['serve', '--port', '0', '--root', web.root, '--db', join(dir, 'c.db')], { env: { GPULAB_INSTRUCTOR_TOKEN: 'short' } });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /GPULAB_INSTRUCTOR_TOKEN must be 16 to 256 characters/);
    } finally {
      web.cleanup();
    }
  }));
