// A learner hands in a measurement kit run to the class (POST /api/handins,
// server/api/api_handins.c): only in class mode and with a session; the file
// read as untrusted input (too big, not JSON, wrong shape refused with their
// codes, nothing kept); the learner's newest three kept, a fourth replacing
// the oldest; the route's uploads bounded like the other readers' (two in
// flight a learner); the instructor's view (GET /api/instructor/handins)
// shows the class's devices and the spread of each headline figure, the
// implausible ones apart with their learner and reason; the runs live in
// the class's database and go with it. SQLite here; tests/scale/handins.test.mjs
// runs the same on PostgreSQL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { assertError, request, withServer } from './lib.mjs';
import { asInstructor, asLearner, joinAs, makeClassDir, startClassServer, withClass } from './class_lib.mjs';
import { doctoredKit, kitFile } from './kit_lib.mjs';

const T = { timeout: 90000 };

const handIn = (srv, cookie, kit, headers = {}) =>
  request(srv, '/api/handins', { method: 'POST', body: typeof kit === 'string' ? kit : JSON.stringify(kit),
    headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}), ...headers }, timeoutMs: 60000 });

const rows = (db, sql) => spawnSync('sqlite3', [db, sql], { encoding: 'utf8' }).stdout.trim();

test('a_run_is_handed_in_only_in_a_class_and_with_a_session', T, async () => {
  await withServer({}, async (srv) => {
    assertError(await handIn(srv, null, kitFile(['placement'])), 404, 'not_found');
    assertError(await request(srv, '/api/instructor/handins'), 404, 'not_found');
  });
  await withClass({}, async (srv) => {
    const e = assertError(await handIn(srv, null, kitFile(['placement'])), 401, 'no_session');
    assert.match(e.message, /join/i);
    assertError(await request(srv, '/api/handins'), 401, 'no_session');
    const ada = await joinAs(srv, 'Ada');
    assertError(await request(srv, '/api/handins', { method: 'DELETE', ...asLearner(ada.cookie) }), 405, 'method_not_allowed');
  });
});

test('a_learners_newest_three_runs_are_kept_and_a_fourth_replaces_the_oldest', T, () =>
  withClass({}, async (srv, dir) => {
    const ada = await joinAs(srv, 'Ada'), bob = await joinAs(srv, 'Bob');
    const ids = [];
    for (let i = 0; i < 4; i++) {
      const r = await handIn(srv, ada.cookie, kitFile(['placement'], { platform: `run ${i}` }));
      assert.equal(r.status, 201, r.text);
      assert.equal(r.json.handin.kept, Math.min(i + 1, 3));
      assert.equal(r.json.handin.keep, 3);
      assert.equal(r.json.summary.run.platform, `run ${i}`);
      assert.equal(r.json.summary.run.device, 'Tesla T4');
      ids.push(r.json.handin.id);
    }
    const mine = await request(srv, '/api/handins', asLearner(ada.cookie));
    assert.equal(mine.status, 200, mine.text);
    assert.deepEqual(mine.json.handins.map((h) => h.id), [ids[3], ids[2], ids[1]], 'newest first, the oldest gone');
    assert.deepEqual(mine.json.handins.map((h) => h.summary.run.platform), ['run 3', 'run 2', 'run 1']);
    assert.match(mine.json.handins[0].at, /^\d{4}-\d\d-\d\dT/);
    // Bob's runs are his, and do not push out Ada's.
    const b = await handIn(srv, bob.cookie, kitFile(['placement']));
    assert.equal(b.json.handin.kept, 1);
    assert.equal((await request(srv, '/api/handins', asLearner(bob.cookie))).json.handins.length, 1);
    assert.equal((await request(srv, '/api/handins', asLearner(ada.cookie))).json.handins.length, 3);
    // What the class's database holds: the file as sent, and its summary.
    assert.equal(rows(dir.db, 'SELECT count(*) FROM handins'), '4');
    assert.equal(JSON.parse(rows(dir.db, `SELECT kit_json FROM handins WHERE id=${ids[3]}`)).provenance.platform, 'run 3');
  }));

test('a_run_handed_in_is_read_as_untrusted_input_and_a_refused_one_is_not_kept', T, () =>
  withClass({}, async (srv) => {
    const ada = await joinAs(srv, 'Ada');
    const good = JSON.stringify(kitFile(['placement']));
    // Past 1 MiB, refused on its declared length before a byte of it is read.
    const big = holdUpload(srv.port, { cookie: ada.cookie, localAddress: '127.0.0.1', declared: 1024 * 1024 + 10 });
    try {
      await until('the 413', () => /\r\n\r\n\{.*\}/s.test(big.answer), 20000);
      assert.match(big.answer, /^HTTP\/1\.[01] 413/);
      const e = JSON.parse(big.answer.slice(big.answer.indexOf('\r\n\r\n') + 4)).error;
      assert.equal(e.code, 'kit_too_large');
      assert.match(e.message, /1 MiB/);
    } finally {
      big.socket.destroy();
    }
    const cases = [
      [good.slice(0, good.length >> 1), 400, 'kit_not_json'],
      ['PyTorch version: 2.5.1', 400, 'kit_not_json'],
      [{ results: [] }, 400, 'kit_invalid'],
      [good.replace('"backend":"pytorch"', '"backend":"cuda"'), 400, 'kit_invalid'],
      [good.replace('"findings":[', `"findings":["${'A'.repeat(5000)}",`), 400, 'kit_invalid'],
    ];
    for (const [body, status, code] of cases) {
      const r = await handIn(srv, ada.cookie, body);
      const e = assertError(r, status, code);
      assert.ok(e.message.length > 20, `${code}: ${e.message}`);
    }
    assertError(await handIn(srv, ada.cookie, good, { 'Content-Type': 'text/plain' }), 415, 'unsupported_media_type');
    assert.deepEqual((await request(srv, '/api/handins', asLearner(ada.cookie))).json.handins, []);
  }));

test('the_instructor_sees_the_devices_and_each_figures_spread_with_the_implausible_ones_apart', T, () =>
  withClass({}, async (srv) => {
    const [ada, bob, cy, dee] = [await joinAs(srv, 'Ada'), await joinAs(srv, 'Bob'), await joinAs(srv, 'Cy'), await joinAs(srv, 'Dee')];
    const t4 = kitFile(['transfer', 'timing']);
    t4.results[0].metrics.h2d_pinned_gbps = 11; // an older run of Ada's: her newest counts
    assert.equal((await handIn(srv, ada.cookie, t4)).status, 201);
    assert.equal((await handIn(srv, ada.cookie, kitFile(['transfer', 'timing']))).status, 201);
    const bad = await handIn(srv, bob.cookie, doctoredKit());
    assert.equal(bad.status, 201, 'an implausible run is kept, flagged');
    assert.equal(bad.json.summary.implausible, 2);
    const m1 = kitFile(['transfer'], { device: 'Apple M1 Pro', kind: 'mps', cc: null, profile: 'l4', platform: null });
    assert.equal((await handIn(srv, cy.cookie, m1)).status, 201);
    const cpu = kitFile(['placement'], { device: 'x86_64', kind: 'cpu', cc: null, platform: null });
    assert.equal((await handIn(srv, dee.cookie, cpu)).status, 201);

    assertError(await request(srv, '/api/instructor/handins'), 401, 'instructor_only');
    const r = await request(srv, '/api/instructor/handins', asInstructor(srv.instructorToken));
    assert.equal(r.status, 200, r.text);
    const { class: cls, handins } = r.json;
    assert.equal(cls.learners, 4);
    const devices = Object.fromEntries(cls.devices.map((d) => [`${d.device}/${d.kind}`, d.learners]));
    assert.deepEqual(devices, { 'Tesla T4/cuda': 2, 'Apple M1 Pro/mps': 1, 'x86_64/cpu': 1 });
    const fig = (exp, metric, on = 'gpu') => cls.figures.find((f) => f.experiment === exp && f.metric === metric && f.ran_on === on);
    const h2d = fig('transfer', 'h2d_pinned_gbps');
    assert.equal(h2d.unit, 'GB/s');
    assert.equal(h2d.n, 2, 'Ada\'s newest and Cy\'s; Bob\'s is flagged, not in the spread');
    assert.equal(h2d.devices, 2);
    assert.ok(h2d.min < h2d.max && h2d.min <= h2d.median && h2d.median <= h2d.max, JSON.stringify(h2d));
    assert.notEqual(h2d.min, 11, 'Ada\'s older run does not count');
    assert.equal(h2d.implausible.length, 1);
    assert.equal(h2d.implausible[0].name, 'Bob');
    assert.equal(h2d.implausible[0].measured, 40);
    assert.match(h2d.implausible[0].reason, /PCIe Gen3 x16.*synchronize/);
    assert.equal(fig('timing', 'host_sync_ms').implausible[0].name, 'Bob');
    assert.equal(fig('placement', 'forward_ms', 'cpu').n, 1, 'a CPU run is apart from the GPUs');
    assert.equal(handins.length, 5, 'every run kept, newest first');
    assert.equal(handins[0].name, 'Dee');
    const bobs = handins.find((h) => h.name === 'Bob');
    assert.equal(bobs.implausible, 2);
    assert.deepEqual(bobs.flagged.map((f) => f.metric).sort(), ['h2d_pinned_gbps', 'host_sync_ms']);
    assert.equal(bobs.run.device, 'Tesla T4');
    assert.equal(bobs.profile, 't4');
  }));

// Holds an upload open: the headers and part of the body, from localAddress.
function holdUpload(port, { cookie, localAddress, declared = 100000 }) {
  const s = net.connect({ port, host: '127.0.0.1', localAddress });
  const st = { answer: '', socket: s };
  s.setEncoding('latin1');
  s.on('data', (d) => (st.answer += d));
  s.on('error', () => {});
  s.on('connect', () => s.write(`POST /api/handins HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${declared}\r\nCookie: ${cookie}\r\n\r\n{"gpulab_measure":`));
  return st;
}

async function until(what, cond, timeoutMs) {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > timeoutMs) assert.fail(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('a_learner_holds_two_hand_ins_in_flight_and_a_third_is_busy', T, () =>
  withClass({}, async (srv) => {
    const ada = await joinAs(srv, 'Ada');
    const held = [2, 3, 4].map((a) => holdUpload(srv.port, { cookie: ada.cookie, localAddress: `127.0.0.${a}` }));
    try {
      await until('a refusal', () => held.some((h) => /\r\n\r\n\{/.test(h.answer)), 20000);
      const refused = held.filter((h) => /\r\n\r\n\{/.test(h.answer));
      assert.equal(refused.length, 1);
      assert.match(refused[0].answer, /^HTTP\/1\.[01] 503/);
      const body = JSON.parse(refused[0].answer.slice(refused[0].answer.indexOf('\r\n\r\n') + 4));
      assert.equal(body.error.code, 'busy');
      assert.match(body.error.message, /as many as a learner may.*#yours.*nothing uploaded/);
      const bob = await joinAs(srv, 'Bob');
      assert.equal((await handIn(srv, bob.cookie, kitFile(['placement']))).status, 201, 'another learner hands in meanwhile');
    } finally {
      for (const h of held) h.socket.destroy();
    }
  }));

test('the_runs_handed_in_live_in_the_class_database_and_go_with_it', T, async () => {
  const dir = makeClassDir();
  let srv;
  try {
    srv = await startClassServer(dir);
    const ada = await joinAs(srv, 'Ada');
    assert.equal((await handIn(srv, ada.cookie, kitFile(['placement']))).status, 201);
    await srv.stop();
    srv = null;
    assert.equal(rows(dir.db, 'SELECT count(*) FROM handins'), '1');
    // Nothing of the run is kept outside the class's database.
    assert.deepEqual(readdirSync(dir.data).filter((f) => !f.startsWith('class.db')), []);
    for (const f of ['', '-wal', '-shm']) if (existsSync(dir.db + f)) rmSync(dir.db + f);
    srv = await startClassServer(dir); // a new class on the same path
    const r = await request(srv, '/api/instructor/handins', asInstructor(srv.instructorToken));
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.handins, []);
    assert.equal(r.json.class.learners, 0);
    assertError(await request(srv, '/api/handins', asLearner(ada.cookie)), 401, 'no_session');
  } finally {
    if (srv) await srv.stop();
    dir.cleanup();
  }
});
