// The class database deleted or replaced while the server runs: nothing
// more is acknowledged (each would be lost at the next start); every
// request that needs the store answers 507 store_unavailable, and the
// server itself stays up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { assertError, request } from './lib.mjs';
import { withClass, joinAs, simulate, quizAttempt } from './class_lib.mjs';

const T = { timeout: 30000 };

test('a_deleted_database_folder_is_store_unavailable_not_lost_writes', T, () =>
  withClass({}, async (srv, dir) => {
    const a = await joinAs(srv, 'Ada');
    assert.equal((await simulate(srv, a.cookie)).status, 200);
    rmSync(dir.data, { recursive: true, force: true });
    for (let i = 0; i < 3; i++) assertError(await simulate(srv, a.cookie), 507, 'store_unavailable');
    assertError(await quizAttempt(srv, a.cookie), 507, 'store_unavailable');
    const j = await request(srv, '/api/class/join', { method: 'POST', body: { code: srv.joinCode, name: 'Bo' } });
    const e = assertError(j, 507, 'store_unavailable');
    assert.match(e.message, /removed or replaced/);
    // A new file under the old name is not the database the server opened.
    mkdirSync(dir.data, { recursive: true });
    writeFileSync(dir.db, '');
    assertError(await simulate(srv, a.cookie), 507, 'store_unavailable');
    assert.equal((await request(srv, '/api/health')).status, 200, 'the server is up');
  }));
