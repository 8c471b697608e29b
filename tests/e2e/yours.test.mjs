// "Your own GPU" (#yours) in a real Chromium, offline, at 390 and 1280 px:
// after one visit the service worker has the page, the simulation module and
// the lessons' claims; with the server stopped, a measurement kit file chosen
// on the picker (and one dropped on the zone) is read and compared in the
// browser: each experiment drawn by its renderer, labelled as the learner's
// run, beside the prediction for the matching profile with the ratio per
// headline figure and the lessons' claims; a doctored file's impossible
// figures are flagged and its charts folded away as the file's claim; a file
// over 1 MiB and one that is not JSON are refused with their codes; this
// machine's own CPU run (kit/measure.py with Debian's PyTorch) is read too.
// Nothing is sent anywhere. At 1280 px: a device without a profile gets one
// fitted, which the experiments' pickers offer after a reload; a caught
// message opens in #explain; the lab report holds the run. Then a kit run
// kept as a recording replays labelled as the kit's, and a learner hands a
// run in to a class whose instructor page shows the devices and spreads.
// Screenshots go to build/screenshots/.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { after } from 'node:test';
import path from 'node:path';

import { doctoredKit, kitFile } from '../api/kit_lib.mjs';
import { REPO, browserTest, testBrowser, screenshotDir, serverBinary, startServer, until, watchPage } from './lib.mjs';

const offlineNoise = (text) => /Failed to load resource|ERR_CONNECTION_REFUSED|net::ERR_FAILED/.test(text);
const ALL = ['device', 'placement', 'memory', 'train_step', 'transfer', 'timing', 'crossover', 'precision', 'allocator',
  'graphs', 'profile', 'streams'];

// This machine's own run of the kit (CPU: Debian's PyTorch), made once for
// the file's tests (it is the slowest step); a missing torch fails the test.
const cpuDir = mkdtempSync(path.join(os.tmpdir(), 'gpulab-cpurun-'));
after(() => rmSync(cpuDir, { recursive: true, force: true }));
let cpuRunFile = null;
function cpuRun() {
  if (cpuRunFile) return cpuRunFile;
  const out = path.join(cpuDir, 'cpu-run.json');
  const r = spawnSync('/usr/bin/python3', [path.join(REPO, 'kit/measure.py'), '--out', out], { encoding: 'utf8', timeout: 180000 });
  assert.equal(r.status, 0, `the kit on this machine: ${r.stderr}\n${r.stdout}`);
  cpuRunFile = out;
  return out;
}

function files(t) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gpulab-yours-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const put = (name, content) => {
    const p = path.join(dir, name);
    writeFileSync(p, typeof content === 'string' || Buffer.isBuffer(content) ? content : JSON.stringify(content));
    return p;
  };
  const failed = kitFile(['placement']);
  failed.failed = [{ experiment: 'memory', error: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB (GPU 0; 14.75 GiB total capacity; 2.10 GiB already allocated; 12.30 GiB free; 2.20 GiB reserved in total by PyTorch)' }];
  return {
    dir,
    t4: put('t4.json', kitFile(ALL)),
    doctored: put('doctored.json', doctoredKit()),
    unknown: put('unknown.json', kitFile(['transfer', 'timing', 'placement'], { device: 'AMD Radeon RX 7800 XT', kind: 'cuda', cc: null, profile: 'l4', platform: null })),
    failed: put('failed.json', failed),
    big: put('big.json', Buffer.alloc(1024 * 1024 + 1, 0x20)),
    text: put('notes.json', 'PyTorch version: 2.5.1\n'),
    // a plan run as the kit wrote it on this CPU (measure.py --plan, a Llama with GQA in bf16 planned with
    // --backend cpu), kept in the kit reader's fuzz corpus
    plan: path.join(REPO, 'tests/fuzz/corpus/kit_file/plan_run_cpu.json'),
    cpu: cpuRun(),
  };
}

// After one visit, the service worker's cache holds the simulation module and the claims.
async function visitOnce(page, url) {
  await page.goto(`${url}/#lesson/01-cuda-intuition`);
  await page.locator('#lesson-title').waitFor();
  await page.evaluate(() => navigator.serviceWorker.ready);
  await until(() => page.evaluate(() => !!navigator.serviceWorker.controller), 15000, 'the page to be controlled');
  await until(() => page.evaluate(async () => {
    for (const n of await caches.keys()) {
      const c = await caches.open(n);
      if (await c.match('/gpulab_sim.wasm') && await c.match('/lessons/claims.json')) return true;
    }
    return false;
  }), 15000, 'the simulation module and the claims in the cache');
}

async function imported(page, state = 'done') {
  await until(async () => ['done', 'failed'].includes(await page.locator('#yours-status').getAttribute('data-state')), 60000,
    'the import to end');
  const got = await page.locator('#yours-status').getAttribute('data-state');
  if (got !== state) throw new Error(`import ended ${got}: ${await page.locator('#yours-out').textContent()}`);
}

async function choose(page, file) {
  await page.setInputFiles('#yours-file', file);
  await imported(page);
}

async function drop(page, file, state = 'done') {
  const dt = await page.evaluateHandle(({ b64, name }) => {
    const raw = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const t = new DataTransfer();
    t.items.add(new File([raw], name, { type: 'application/json' }));
    return t;
  }, { b64: readFileSync(file).toString('base64'), name: path.basename(file) });
  await page.dispatchEvent('#yours-drop', 'dragover', { dataTransfer: dt });
  await page.dispatchEvent('#yours-drop', 'drop', { dataTransfer: dt });
  await imported(page, state);
}

browserTest('a kit run is compared in the browser, offline, beside the prediction, at 390 and 1280 px', { timeout: 400000 }, async (t) => {
  const f = files(t);
  const browser = await testBrowser();
  t.after(() => browser.close());
  const shots = screenshotDir();
  for (const [width, height, tag] of [[1280, 900, 'laptop'], [390, 844, 'phone']]) {
    const server = await startServer();
    t.after(() => server.stop());
    const context = await browser.newContext({ viewport: { width, height }, acceptDownloads: true });
    const page = await context.newPage();
    page.setDefaultTimeout(30000);
    const problems = watchPage(page, offlineNoise);
    await visitOnce(page, server.url);
    assert.ok(await page.locator('a[href="#yours"]').count() > 0, 'the nav links the page');
    await server.stop(); // the network to the server is cut from here on
    const sent = [];
    context.on('request', (r) => sent.push({ url: r.url(), method: r.method() }));
    await page.reload();
    await page.locator('#lesson-title').waitFor();
    await page.evaluate(() => { location.hash = '#yours'; });
    await page.locator('#yours-drop').waitFor();
    assert.match(await page.locator('.lesson-head').textContent(), /read in your browser: nothing is uploaded/i);

    // the picker: a T4 run of every experiment
    await choose(page, f.t4);
    assert.match(await page.locator('#yours-summary').textContent(), /^Your run: Tesla T4, PyTorch 2\.5\.1\+cu121, Colab$/);
    assert.match(await page.locator('.own-profile').textContent(), /NVIDIA T4 .*the same device name/);
    assert.equal(await page.locator('article.own-exp').count(), ALL.length);
    for (const name of ALL) {
      const a = page.locator(`#yours-exp-${name}`);
      const badges = await a.locator('.exp-source .badge').allTextContents();
      assert.deepEqual(badges, ['your run: Tesla T4, PyTorch 2.5.1+cu121, Colab', 'simulated — profile T4 (in your browser)'], name);
      assert.equal(await a.getAttribute('data-flagged'), 'false', name);
    }
    const pinned = page.locator('#yours-exp-transfer tr', { hasText: 'h2d_pinned_gbps' });
    assert.match(await pinned.locator('td').nth(2).textContent(), /^\d+\.\d\d×$/, 'the ratio per headline figure');
    assert.match(await pinned.locator('td').nth(3).textContent(), /^yes: within the PCIe Gen3 x16 link/);
    assert.ok(await page.locator('.own-claims li.own-holds').count() > 0, 'the lessons\' claims hold on the T4\'s numbers');
    if (width === 390) assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= width, 'no sideways scroll');
    await page.evaluate(() => document.getElementById('yours-summary').scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: path.join(shots, `yours-${tag}.png`) });
    await page.locator('#yours-exp-transfer').screenshot({ path: path.join(shots, `yours-${tag}-transfer.png`) });
    await page.locator('#yours-exp-timing .own-figures').screenshot({ path: path.join(shots, `yours-${tag}-timing-figures.png`) });

    // the drop zone: a doctored run is flagged, not drawn as measured
    await drop(page, f.doctored);
    assert.match(await page.locator('#yours-implausible').textContent(), /2 figures are physically impossible/);
    const transfer = page.locator('#yours-exp-transfer');
    assert.equal(await transfer.getAttribute('data-flagged'), 'true');
    assert.match(await transfer.locator('.own-flag').first().textContent(), /40\.00 GB\/s is more than the Tesla T4's PCIe Gen3 x16 link.*synchronize/);
    assert.equal(await transfer.locator('details.own-claimed').getAttribute('open'), null, 'its charts are folded away');
    assert.match(await transfer.locator('details.own-claimed > summary').textContent(), /not a measurement/);
    assert.match(await page.locator('#yours-exp-timing tr.own-flagged').textContent(), /host_sync_ms/);
    await page.evaluate(() => document.getElementById('yours-implausible').scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: path.join(shots, `yours-${tag}-flagged.png`) });

    // refused: over 1 MiB (never read), not JSON
    await drop(page, f.big, 'failed');
    assert.match(await page.locator('#yours-error').textContent(), /^kit_too_large: .*1 MiB/);
    await drop(page, f.text, 'failed');
    assert.match(await page.locator('#yours-error').textContent(), /^kit_not_json: /);

    // this machine's own CPU run
    await choose(page, f.cpu);
    assert.match(await page.locator('#yours-summary').textContent(), /\(no GPU: the CPU\), PyTorch /);
    assert.match(await page.locator('#yours-claims + p').textContent(), /the run had no GPU/);
    assert.ok(await page.locator('#yours-exp-placement .own-mine .exp-source').count() === 1);
    assert.deepEqual(sent.filter((r) => r.method !== 'GET'), [], 'nothing was sent');

    // a plan run (measure.py --plan): each counter beside the plan's, what a CPU cannot measure said
    await drop(page, f.plan);
    assert.match(await page.locator('#yours-plan + p').textContent(), /4 of 4 counters within the plan's band/);
    const rows = page.locator('.own-plan-counters tbody tr');
    assert.equal(await rows.count(), 5);
    for (const name of ['weights', 'gradients', 'optimizer state', 'activations saved for backward'])
      assert.match(await rows.filter({ hasText: name }).textContent(), /1\.00×\s*yes$/);
    assert.match(await rows.filter({ hasText: 'one training step' }).textContent(), /not scored/);
    assert.equal(await page.locator('.own-plan-counters code').count(), 0, 'no internal ids in the table');
    assert.equal(await page.locator('.own-plan .own-method').getAttribute('open'), null, 'the method is folded');
    assert.match(await page.locator('.own-plan').textContent(), /peak allocated: the CPU has no CUDA caching allocator/);
    await page.locator('.own-plan').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, `yours-${tag}-plan.png`) });

    if (width === 1280) {
      // a device without a profile (the 7900 XTX has one, the 7800 XT not): one fitted from the run, offered everywhere, kept after a reload
      await choose(page, f.unknown);
      assert.match(await page.locator('#yours-fitted').textContent(), /Your GPU: AMD Radeon RX 7800 XT \(fitted from your run\)/);
      await page.reload();
      await page.locator('#lesson-title').waitFor();
      await page.evaluate(() => { location.hash = '#lab/timing'; });
      const option = page.locator('#exp-timing-target option[value="yours"]');
      await option.waitFor({ state: 'attached' });
      assert.equal((await option.textContent()).trim(), 'simulate as Your GPU: AMD Radeon RX 7800 XT');
      await page.selectOption('#exp-timing-target', 'yours');
      await page.evaluate(() => document.getElementById('exp-timing-run').click());
      await until(async () => (await page.locator('#exp-timing-out .exp-source').count()) === 1, 60000, 'the run on your GPU');
      assert.match(await page.locator('#exp-timing-out .exp-source').textContent(), /simulated — profile Your GPU: AMD Radeon RX 7800 XT/);

      // a caught message opens in #explain
      await page.evaluate(() => { location.hash = '#yours'; });
      await page.locator('#yours-drop').waitFor();
      await choose(page, f.failed);
      await page.locator('#yours-failed + ul a.own-explain').click();
      await page.locator('#explain-out .explain-item').first().waitFor();
      assert.match(await page.locator('#explain-text').inputValue(), /^torch\.OutOfMemoryError: CUDA out of memory\. Tried to allocate 20\.00 GiB/);
      assert.match(await page.locator('#explain-out').textContent(), /20\.00 GiB/);

      // the lab report holds the run (the last one imported)
      await page.evaluate(() => { location.hash = '#lesson/01-cuda-intuition'; });
      const button = page.locator('[data-action="report-download"]');
      await button.waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
      const report = readFileSync(await download.path(), 'utf8');
      assert.match(report, /## Your own GPU \(the measurement kit\)/);
      assert.match(report, /your run: Tesla T4, PyTorch 2\.5\.1\+cu121, Colab/);
      assert.match(report, /\| forward\\_ms \| /);
    }
    assert.deepEqual(problems, []);
    await context.close();
  }
});

browserTest('a kit run kept as a recording replays labelled as the kit\'s, never as gpulab\'s kernels', { timeout: 300000 }, async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gpulab-kitrec-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const run = cpuRun();
  const kit = JSON.parse(readFileSync(run, 'utf8'));
  const bin = serverBinary();
  const root = path.join(dir, 'web');
  cpSync(path.resolve(path.dirname(bin), '..', 'web'), root, { recursive: true });
  const r = spawnSync('python3', [path.join(REPO, 'tools/record_kit.py'), '--allow-cpu', run, path.join(root, 'recorded')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const label = `recorded with the measurement kit, PyTorch ${kit.provenance.torch}, on the CPU (${kit.provenance.device.name}), ${kit.provenance.date.slice(0, 10)}`;
  const keys = path.resolve(path.dirname(bin), '..', 'lessons');
  const server = await startServer({ args: ['--root', root, '--keys', keys] });
  t.after(() => server.stop());
  const browser = await testBrowser();
  t.after(() => browser.close());
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  const problems = watchPage(page);
  await page.goto(`${server.url}/#lab/placement`);
  const option = page.locator('#exp-placement-target-recorded');
  await until(async () => (await option.count()) === 1, 15000, 'the recorded choice');
  assert.equal((await option.textContent()).trim(), label);
  await page.selectOption('#exp-placement-target', 'recorded');
  await page.evaluate(() => document.getElementById('exp-placement-run').click());
  await until(async () => (await page.locator('#exp-placement-out .exp-source').count()) === 1, 20000, 'the replay');
  assert.equal((await page.locator('#exp-placement-out .exp-source .badge').textContent()).trim(), label);
  assert.match(await page.locator('#exp-placement-out .exp-note').textContent(), /^A replay of a run of the measurement kit \(PyTorch\)/);
  assert.doesNotMatch(await page.locator('#exp-placement-out').textContent(), /live on|real GPU run/);
  await page.locator('#exp-placement').screenshot({ path: path.join(screenshotDir(), 'yours-recorded-kit.png') });
  assert.deepEqual(problems, []);
});

browserTest('a learner hands a run in and the instructor page shows the class\'s devices and spreads', { timeout: 180000 }, async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gpulab-handin-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const t4 = path.join(dir, 't4.json');
  writeFileSync(t4, JSON.stringify(kitFile(['transfer', 'timing', 'placement'])));
  const server = await startServer({ classMode: true, args: ['--class-name', 'e2e class', '--db', path.join(dir, 'class.db')] });
  t.after(() => server.stop());
  const browser = await testBrowser();
  t.after(() => browser.close());
  const shots = screenshotDir();
  // Bob hands a doctored run in through the API.
  const bob = await fetch(`${server.url}/api/class/join`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ code: server.joinCode, name: 'Bob' }) });
  const cookie = bob.headers.get('set-cookie').match(/gpulab_session=[0-9a-f]{64}/)[0];
  const put = await fetch(`${server.url}/api/handins`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookie },
    body: JSON.stringify(doctoredKit()) });
  assert.equal(put.status, 201, await put.text());

  // Ada joins in her page, imports her run and hands it in.
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  const problems = watchPage(page, (text) => /status of 401/.test(text)); // the session check before she joins
  await page.goto(`${server.url}/#yours`);
  await page.locator('#yours-drop').waitFor();
  const joined = await page.evaluate(async (code) => (await fetch('/api/class/join', { method: 'POST',
    headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code, name: 'Ada' }) })).status, server.joinCode);
  assert.equal(joined, 200);
  await page.reload();
  await page.locator('#yours-drop').waitFor();
  await choose(page, t4);
  await page.locator('#yours-handin-button').click();
  await until(async () => /Handed in/.test(await page.locator('#yours-handin-status').textContent()), 30000, 'the hand-in');
  assert.match(await page.locator('#yours-handin-status').textContent(), /your class now has 1 of your runs/);

  for (const [width, height, tag] of [[1280, 900, 'laptop'], [390, 844, 'phone']]) {
    const ip = await (await browser.newContext({ viewport: { width, height } })).newPage();
    const iproblems = watchPage(ip);
    await ip.goto(`${server.url}/instructor.html`);
    await ip.fill('#token', server.instructorToken);
    await ip.click('#token-submit');
    await ip.locator('#handins-view').waitFor();
    const devices = await ip.locator('#handin-devices tbody tr').allTextContents();
    assert.deepEqual(devices, ['Tesla T4cuda2']);
    const h2d = ip.locator('#handin-figures tbody tr', { hasText: 'h2d_pinned_gbps' });
    assert.match(await h2d.textContent(), /GPU1.*Bob: 40 GB\/s.*PCIe Gen3 x16/);
    assert.equal(await ip.locator('#handin-runs tbody tr').count(), 2);
    assert.match(await ip.locator('#handin-runs tbody tr', { hasText: 'Bob' }).textContent(), /2 implausible/);
    await ip.locator('#handins-title').scrollIntoViewIfNeeded();
    await ip.locator('#handins-title').locator('xpath=..').screenshot({ path: path.join(shots, `yours-instructor-${tag}.png`) });
    if (width === 390) assert.ok(await ip.evaluate(() => document.documentElement.scrollWidth) <= width, 'no sideways scroll');
    assert.deepEqual(iproblems, []);
  }
  assert.deepEqual(problems, []);
});
