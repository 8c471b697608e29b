// Recorded GPU runs (web/recorded/, made by `make record`) in a real Chromium:
// a web root holding one recording offers "recorded on DEVICE, DATE" in the
// timing widget's picker; choosing it and pressing Run replays the file
// (no experiment runs) with its chart, labelled as recorded, and names the
// parameters it was recorded with. It still works from the service worker's
// cache once the server is gone. The recording here is a simulated run
// relabelled the way tools/record.sh labels a real one.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { browserTest, testBrowser, screenshotDir, serverBinary, startServer, until, watchPage } from './lib.mjs';

const DEVICE = 'NVIDIA Test GPU 80GB';
const DATE = '2026-11-20';
const LABEL = `recorded on ${DEVICE}, ${DATE}`;

// A copy of the built web root with recorded/timing.json (size 512, not the
// default, so the replayed parameters are visibly the recorded ones) and an
// index that also names a recording whose file is missing.
function webRootWithRecording(t) {
  const bin = serverBinary();
  const root = mkdtempSync(path.join(os.tmpdir(), 'gpulab-recorded-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  cpSync(path.resolve(path.dirname(bin), '..', 'web'), root, { recursive: true });
  // only this test's recordings (the built root holds the real GPU's)
  rmSync(path.join(root, 'recorded'), { recursive: true, force: true });
  mkdirSync(path.join(root, 'recorded'));
  // view=cuda: a real GPU run measures raw CUDA launches, and its envelope says so.
  const env = JSON.parse(execFileSync(bin, ['run', 'timing', '--size=512', '--view=cuda', '--backend', 'simulated', '--json'],
    { encoding: 'utf8' }));
  env.backend = 'recorded';
  env.recorded = { device: DEVICE, compute_capability: '9.0', driver_version: '580.65', cuda_runtime: '13.0', date: DATE };
  writeFileSync(path.join(root, 'recorded', 'timing.json'), JSON.stringify(env, null, 1));
  writeFileSync(path.join(root, 'recorded', 'index.json'), JSON.stringify({ recorded: ['timing', 'memory'] }));
  return root;
}

browserTest('a recorded run is offered, replayed with its own parameters, and works offline', { timeout: 120000 }, async (t) => {
  const root = webRootWithRecording(t);
  const keys = path.resolve(path.dirname(serverBinary()), '..', 'lessons');
  const server = await startServer({ args: ['--root', root, '--keys', keys] });
  t.after(() => server.stop());
  const browser = await testBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  // memory.json is listed but absent (its 404 is the point); offline, every request fails.
  let offline = false;
  const problems = watchPage(page, (text, url) => /Failed to load resource/.test(text) &&
    (/\/recorded\/memory\.json$/.test(url || '') || offline));
  const posts = [];
  page.on('request', (r) => { if (r.method() === 'POST') posts.push(r.url()); });

  await page.goto(`${server.url}/#lab`);
  const option = page.locator('#exp-timing-target-recorded');
  await until(async () => (await option.count()) === 1, 10000, 'the recorded choice');
  assert.equal((await option.textContent()).trim(), LABEL);
  assert.equal(await page.locator('#exp-memory-target option[value="recorded"]').count(), 0,
    'a listed recording whose file is missing is not offered');
  assert.match(await page.locator('#exp-timing-target-recorded-help').textContent(), /controls above do not apply/);

  const replay = async () => {
    await page.selectOption('#exp-timing-target', 'recorded');
    await page.click('#exp-timing-run');
    const out = page.locator('#exp-timing-out');
    await until(async () => (await out.getAttribute('aria-busy')) === 'false' &&
      (await out.locator('.exp-source, .exp-failure').count()) > 0, 20000, 'the replayed result');
    assert.equal(await out.locator('.exp-failure').count(), 0);
    assert.equal((await out.locator('.exp-source').textContent()).trim(), LABEL);
    assert.match(await out.locator('.exp-note').textContent(), /recorded with: size=512, repeats=10, samples=7, view=cuda\. The controls above do not apply/);
    assert.ok(await out.locator('svg[role="img"]').count() > 0, 'the chart');
    assert.match(await page.locator('#exp-timing-status').textContent(), new RegExp(`Done: ${LABEL}`));
    return out;
  };
  const out = await replay();
  await out.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(screenshotDir(), 'recorded-timing-laptop.png') });
  assert.deepEqual(posts, [], 'a replay runs nothing on the server');

  // Offline: the service worker cached the recording at install.
  await page.evaluate(() => navigator.serviceWorker.ready);
  await until(() => page.evaluate(() => !!navigator.serviceWorker.controller), 10000, 'the page to be controlled');
  await until(() => page.evaluate(async () => {
    for (const n of await caches.keys()) if (await (await caches.open(n)).match('/recorded/timing.json')) return true;
    return false;
  }), 10000, 'the recording in the cache');
  offline = true;
  await server.stop();
  await page.reload();
  await until(async () => (await page.locator('#status').textContent()) === 'offline — everything will be simulated',
    10000, 'the offline status line');
  await until(async () => (await option.count()) === 1, 10000, 'the recorded choice, offline');
  await replay();
  assert.deepEqual(problems, []);
});

// The index the recorders write (tools/recorded_index.py) carries each
// recording's label: the first visit fetches no recording, and one whose
// file is gone fails its replay with a clear message, never a hang.
browserTest('an index with sources offers every recording without fetching one, and a missing file fails its replay clearly', { timeout: 120000 }, async (t) => {
  const root = webRootWithRecording(t);
  const source = { recorded: { device: DEVICE, date: DATE } };
  writeFileSync(path.join(root, 'recorded', 'index.json'),
    // timing's label from its own entry, memory's from the one a lease's recordings share
    JSON.stringify({ recorded: ['timing', 'memory'], sources: { timing: source }, source }));
  const keys = path.resolve(path.dirname(serverBinary()), '..', 'lessons');
  const server = await startServer({ args: ['--root', root, '--keys', keys] });
  t.after(() => server.stop());
  const browser = await testBrowser();
  t.after(() => browser.close());
  // no service worker here: its install would fetch every recording for offline use
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  const problems = watchPage(page, (text, url) => /Failed to load resource/.test(text) && /\/recorded\/memory\.json$/.test(url || ''));
  const asked = [];
  page.on('request', (r) => { if (/\/recorded\/[a-z_]+\.json$/.test(r.url()) && !/index\.json$/.test(r.url())) asked.push(r.url()); });

  await page.goto(`${server.url}/#lab`);
  for (const name of ['timing', 'memory']) {
    const option = page.locator(`#exp-${name}-target-recorded`);
    await until(async () => (await option.count()) === 1, 10000, `the recorded choice of ${name}`);
    assert.equal((await option.textContent()).trim(), LABEL);
  }
  assert.deepEqual(asked, [], 'no recording fetched before a replay');

  await page.selectOption('#exp-memory-target', 'recorded');
  await page.click('#exp-memory-run');
  const out = page.locator('#exp-memory-out');
  await until(async () => (await out.getAttribute('aria-busy')) === 'false' &&
    (await out.locator('.exp-source, .exp-failure').count()) > 0, 40000, 'the failed replay');
  assert.match(await out.locator('.exp-failure').textContent(),
    /The recorded run of memory could not be loaded \(HTTP 404\); pick auto or a profile to run it now\./);
  assert.deepEqual(asked.map((u) => new URL(u).pathname), ['/recorded/memory.json']);
  assert.deepEqual(problems, []);
});
