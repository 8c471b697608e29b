// Kit runs handed in on a class shared by two servers (PostgreSQL): a
// learner's four hand-ins sent at once, two to each server, leave exactly
// the newest three (the learner's row is locked while one is added); the
// instructor's view on either server shows every learner's device and the
// spread of each figure, a doctored run flagged and kept out of it; the
// runs are rows of the class's database (its schema's fifth migration).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { doctoredKit, kitFile } from '../api/kit_lib.mjs';
import { asInstructor, joinWithJar, missing, newStore, psql, startClusterServer } from './cluster_lib.mjs';

const T = { timeout: 90000, skip: missing() || false };

test('two servers keep a learner\'s newest three hand-ins and show the class\'s spread', T, async () => {
  const { uri, db } = newStore();
  const a = await startClusterServer(uri);
  const b = await startClusterServer(uri);
  try {
    assert.equal(psql('SELECT max(version) FROM gpulab_schema', db), '5');
    const ada = await joinWithJar(a, 'Ada', a.joinCode);
    const sent = await Promise.all([0, 1, 2, 3].map((i) =>
      ada.request(i % 2 ? b : a, '/api/handins', { method: 'POST', body: kitFile(['transfer'], { platform: `run ${i}` }), timeoutMs: 60000 })));
    for (const r of sent) assert.equal(r.status, 201, r.text);
    assert.ok(sent.every((r) => r.json.handin.kept >= 1 && r.json.handin.kept <= 3), sent.map((r) => r.json.handin.kept).join(','));
    const ids = sent.map((r) => r.json.handin.id).sort((x, y) => x - y);
    const mine = await ada.request(b, '/api/handins');
    assert.equal(mine.status, 200, mine.text);
    assert.deepEqual(mine.json.handins.map((h) => h.id), ids.slice(1).reverse(), 'the newest three, newest first');
    assert.equal(psql('SELECT count(*) FROM handins', db), '3');
    assert.equal(psql(`SELECT kit_json::json->'provenance'->'device'->>'name' FROM handins WHERE id = ${ids[3]}`, db), 'Tesla T4');

    const bob = await joinWithJar(b, 'Bob', b.joinCode);
    const bad = await bob.request(b, '/api/handins', { method: 'POST', body: doctoredKit(), timeoutMs: 60000 });
    assert.equal(bad.status, 201, bad.text);
    for (const srv of [a, b]) {
      const r = await ada.request(srv, '/api/instructor/handins', asInstructor);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.class.learners, 2);
      assert.deepEqual(r.json.class.devices, [{ device: 'Tesla T4', kind: 'cuda', learners: 2 }]);
      const h2d = r.json.class.figures.find((f) => f.metric === 'h2d_pinned_gbps');
      assert.equal(h2d.n, 1, 'Bob\'s copy faster than the link is kept out of the spread');
      assert.equal(h2d.implausible[0].name, 'Bob');
      assert.equal(r.json.handins.length, 4);
    }
  } finally {
    await a.stop();
    await b.stop();
  }
});
