// The lease rehearsal's last check (tests/tools/lease.sh): the recordings an
// archive unpacked into web/recorded/ load in the page. A real server on
// the web root given (a build's, with the unpacked recordings copied in as
// `make` copies web/): its index lists each recording and serves it; in
// headless Chromium every widget of the workbench offers its recording
// (the page fetched it and checked it as a result of its experiment), and
// the timing widget replays its one, labelled with the recording's device,
// with its chart. Prints TAP; exit status 1 on a failure, 0 with a SKIP
// line when the system Chromium is missing.
//
//   node tests/lease/replay.mjs WEBROOT KEYS   (GPULAB_BIN: the server; default build/bin/gpulab)
import assert from 'node:assert/strict';

import { getJson, haveChromium, launchBrowser, NO_CHROMIUM, startServer, until, watchPage } from '../e2e/lib.mjs';

const [root, keys] = process.argv.slice(2);
let n = 0;
let failed = 0;
async function check(what, fn) {
  n += 1;
  try {
    await fn();
    console.log(`ok ${n} - ${what}`);
  } catch (e) {
    failed += 1;
    console.log(`not ok ${n} - ${what}\n#   ${String(e.message).split('\n').join('\n#   ')}`);
  }
}

const server = await startServer({ args: ['--root', root, '--keys', keys] });
let browser = null;
try {
  let names = [];
  const envs = {};
  await check('the recorded index lists the recordings, and each is served as a recorded run', async () => {
    const index = await getJson(`${server.url}/recorded/index.json`);
    assert.equal(index.status, 200);
    names = index.json.recorded;
    assert.ok(Array.isArray(names) && names.length > 0, `index: ${index.body}`);
    for (const name of names) {
      const r = await getJson(`${server.url}/recorded/${name}.json`);
      assert.equal(r.status, 200, `${name}.json: HTTP ${r.status}`);
      assert.equal(r.json.backend, 'recorded', `${name}.json: backend ${r.json.backend}`);
      assert.equal(r.json.experiment, name);
      envs[name] = r.json;
    }
  });
  if (!haveChromium()) {
    console.log(`ok ${++n} - the page replays a recording # SKIP ${NO_CHROMIUM}`);
  } else {
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(20000);
    const problems = watchPage(page);
    await page.goto(`${server.url}/#lab`);
    await check(`every widget offers its recording (${names.length})`, async () => {
      for (const name of names) {
        await until(async () => (await page.locator(`#exp-${name}-target-recorded`).count()) === 1, 20000,
          `the recorded choice of ${name}`);
        const r = envs[name].recorded;
        assert.equal((await page.locator(`#exp-${name}-target-recorded`).textContent()).trim(),
          `recorded on ${r.device}, ${r.date}`);
      }
    });
    const name = names.includes('timing') ? 'timing' : names[0];
    await check(`the page replays the ${name} recording with its label and chart, running nothing`, async () => {
      const posts = [];
      page.on('request', (q) => { if (q.method() === 'POST') posts.push(q.url()); });
      const r = envs[name].recorded;
      await page.selectOption(`#exp-${name}-target`, 'recorded');
      await page.click(`#exp-${name}-run`);
      const out = page.locator(`#exp-${name}-out`);
      await until(async () => (await out.getAttribute('aria-busy')) === 'false' &&
        (await out.locator('.exp-source, .exp-failure').count()) > 0, 20000, 'the replayed result');
      assert.equal(await out.locator('.exp-failure').count(), 0, await out.textContent());
      assert.equal((await out.locator('.exp-source').textContent()).trim(), `recorded on ${r.device}, ${r.date}`);
      assert.match(await out.locator('.exp-note').textContent(), /recorded with: .*The controls above do not apply/);
      assert.ok(await out.locator('svg[role="img"]').count() > 0, 'no chart');
      assert.deepEqual(posts, [], 'a replay runs nothing on the server');
    });
    await check('the page said nothing wrong on its console', async () => assert.deepEqual(problems, []));
  }
} finally {
  if (browser) await browser.close();
  await server.stop();
}
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
