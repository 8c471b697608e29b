// The experiment widgets in a real Chromium against the real server: every
// experiment placeholder of the lesson runs (simulated on this machine) and
// draws its chart, findings and source label; #lab/NAME shows any widget
// alone with a chosen profile; a bad parameter gets an inline error; Run
// works from the keyboard; a server whose GPU fails falls back to the
// browser and says so. Screenshots of every result go to GPULAB_SCREENSHOTS.
import assert from 'node:assert/strict';
import path from 'node:path';

import { browserTest, getJson, screenshotDir, setUp, startServer, until, watchPage } from './lib.mjs';

const TEST_TIMEOUT = 180000;
const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1280, height: 900 };


// serviceWorkers 'block': requests a service worker handles would bypass page.route.
async function openPage(browser, viewport = LAPTOP, serviceWorkers = 'allow') {
  const context = await browser.newContext({ viewport, serviceWorkers });
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  return page;
}

// Keeps the real CPU part of crossover short in a test run.
async function quickParams(page, name) {
  if (name === 'crossover') await page.fill('#exp-crossover-f-max_size', '128');
}

// Presses Run and waits for the result; returns what the widget shows.
async function run(page, name) {
  const out = page.locator(`#exp-${name}-out`);
  // The click is handled synchronously by the wasm client: the running state
  // must be on the page before the (deferred) simulation starts.
  const during = await page.evaluate((n) => {
    document.getElementById(`exp-${n}-run`).click();
    return {
      disabled: document.getElementById(`exp-${n}-run`).getAttribute('aria-disabled'),
      busy: document.getElementById(`exp-${n}-out`).getAttribute('aria-busy'),
      status: document.getElementById(`exp-${n}-status`).textContent,
    };
  }, name);
  await until(async () => (await out.getAttribute('aria-busy')) === 'false' &&
    (await out.locator('.exp-source, .exp-failure').count()) > 0, 60000, `${name} result`);
  return { during, source: (await out.locator('.exp-source').textContent()).trim(), out };
}

async function checkResult(name, out) {
  if (name === 'device') {
    assert.ok(await out.locator('.verdict').count() > 0, 'the device result is the GPU panel');
    return;
  }
  assert.ok(await out.locator('svg[role="img"]').count() > 0, `${name}: a chart`);
  const label = await out.locator('svg[role="img"]').first().getAttribute('aria-label');
  assert.ok(label && label.length > 20, `${name}: the chart has a summary sentence`);
  assert.ok(await out.locator('ul.findings li').count() > 0, `${name}: findings`);
  assert.ok(await out.locator('details.exp-numbers table').count() > 0, `${name}: the numbers as a table`);
  assert.match(await out.locator('.exp-method').textContent(), /How it was measured:/);
}

browserTest('every experiment of the lesson runs and draws its result', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t);
  const device = await getJson(`${server.url}/api/device`);
  const live = device.json && device.json.verdict && device.json.verdict.usable && !device.json.verdict.simulate;
  const page = await openPage(browser);
  const problems = watchPage(page);
  await page.goto(`${server.url}/`);
  await page.locator('#lesson .exp-widget').first().waitFor();
  const names = await page.locator('#lesson .experiment[data-experiment]').evaluateAll(
    (els) => els.map((e) => e.getAttribute('data-experiment')));
  assert.ok(names.length > 0, 'the lesson has experiment placeholders');
  for (const name of names) {
    await quickParams(page, name);
    const { during, source, out } = await run(page, name);
    if (during.busy === 'true') { // the device check may answer within the click on a fast server
      assert.equal(during.disabled, 'true');
      assert.equal(during.status, 'running…');
    }
    if (live || name === 'device') assert.match(source, /^(live on |checked live on the server's machine|simulated — profile )/);
    else assert.match(source, /^simulated — profile T4 \(in your browser\)$/);
    await checkResult(name, out);
    if (name === 'crossover' && !live) {
      // One wasm thread in the browser, said plainly, and the server's BLAS
      // line beside it once the server answers (tests/e2e/crossover.test.mjs
      // checks the verdict against it on every profile).
      assert.match(await out.locator('.exp-series-sources').textContent(), /measured in your browser.*your browser, one thread\)/s);
      await until(async () => /Server CPU sgemm/.test(await out.locator('.legend').textContent()), 30000,
        'the server CPU line');
      assert.match(await out.locator('ul.findings').textContent(), /best CPU here \(Server CPU sgemm/);
    }
    await page.locator(`#exp-${name}`).screenshot({ path: path.join(screenshotDir(), `exp-${name}-laptop.png`) });
  }
  assert.deepEqual(problems, []);
});

browserTest('#lab/NAME shows one experiment, simulated as the chosen profile, on a phone', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t);
  const list = await getJson(`${server.url}/api/experiments`);
  const page = await openPage(browser, PHONE);
  const problems = watchPage(page);
  await page.goto(`${server.url}/#lab`);
  await until(async () => (await page.locator('#lesson .exp-widget').count()) === list.json.experiments.length,
    15000, 'every widget on the lab page');
  for (const e of list.json.experiments) {
    await page.goto(`${server.url}/#lab/${e.name}`);
    await page.locator(`#exp-${e.name}`).waitFor();
    assert.equal(await page.locator('#lesson .exp-widget').count(), 1);
    await page.selectOption(`#exp-${e.name}-target`, 't4');
    await quickParams(page, e.name);
    const { source, out } = await run(page, e.name);
    assert.equal(source, 'simulated — profile T4 (in your browser)');
    await checkResult(e.name, out);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= PHONE.width, `${e.name}: the page scrolls sideways on a phone (${width}px)`);
    await page.locator(`#exp-${e.name}`).screenshot({ path: path.join(screenshotDir(), `exp-${e.name}-phone.png`) });
  }
  assert.deepEqual(problems, []);
});

// On a server without a usable GPU, the device check's default is the
// default profile's labelled example (a GPU's name, memory and compute
// capability), with the server's own check beside it, named as the
// server's: nothing calls the server's machine "your GPU".
browserTest('the device check\'s default shows a GPU name, and the server\'s own check as the server\'s', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t);
  const device = await getJson(`${server.url}/api/device`);
  if (device.json && device.json.verdict && device.json.verdict.usable && !device.json.verdict.simulate) {
    t.skip('this server has a usable GPU: auto runs the check on it');
    return;
  }
  for (const viewport of [PHONE, LAPTOP]) {
    const page = await openPage(browser, viewport);
    const problems = watchPage(page);
    await page.goto(`${server.url}/#lab/device`);
    await page.locator('#exp-device-run').waitFor();
    const card = page.locator('#exp-device');
    await until(async () => (await card.locator('.exp-server-check').count()) > 0, 20000, 'the server check before a run');
    assert.match(await card.locator('.exp-server-check').textContent(), /^The gpulab server's own check: /);
    const { source, out } = await run(page, 'device');
    assert.equal(source, 'simulated — profile T4 (in your browser)');
    assert.match(await out.textContent(), /Tesla T4/, 'the result names the example GPU');
    assert.match(await out.locator('.exp-server-check').textContent(), /^The gpulab server's own check: /);
    assert.doesNotMatch(await card.textContent(), /Your GPU/);
    assert.doesNotMatch(await page.locator('#gpu-title').textContent(), /Your GPU/);
    await card.screenshot({ path: path.join(screenshotDir(), `exp-device-default-${viewport.width}.png`) });
    assert.deepEqual(problems, []);
    await page.context().close();
  }
});

browserTest('a bad parameter is named inline, and Run works from the keyboard', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t);
  const page = await openPage(browser);
  const problems = watchPage(page);
  await page.goto(`${server.url}/#lab/timing`);
  await page.locator('#exp-timing-run').waitFor();
  await page.fill('#exp-timing-f-size', '5');
  await page.click('#exp-timing-run');
  const err = page.locator('#exp-timing-f-size-err');
  await err.waitFor();
  assert.match(await err.textContent(), /^size must be .*64.*8192/);
  assert.equal(await err.getAttribute('role'), 'alert');
  assert.equal(await page.locator('#exp-timing-f-size').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'exp-timing-f-size');
  assert.match(await page.locator('#exp-timing-status').textContent(), /Not run: 1 parameter to fix/);
  assert.equal(await page.locator('#exp-timing-out .exp-source').count(), 0, 'nothing ran');
  await page.locator('#exp-timing').screenshot({ path: path.join(screenshotDir(), 'exp-timing-invalid.png') });

  // Keyboard only: fix the value, Tab to Run, press Enter.
  await page.keyboard.press('Control+A');
  await page.keyboard.type('512');
  for (let i = 0; i < 40 && (await page.evaluate(() => document.activeElement.id)) !== 'exp-timing-run'; i++) {
    await page.keyboard.press('Tab');
  }
  assert.equal(await page.evaluate(() => document.activeElement.id), 'exp-timing-run');
  await page.keyboard.press('Enter');
  await until(async () => (await page.locator('#exp-timing-out .exp-source').count()) > 0, 30000, 'keyboard run');
  assert.equal(await page.locator('#exp-timing-f-size-err').count(), 0, 'the error is gone');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'exp-timing-run', 'focus stays on Run');
  assert.match(await page.locator('#exp-timing-status').textContent(), /^Done: simulated — profile/);
  assert.match(await page.locator('#exp-timing-out').textContent(), /512×512 sgemm/);

  // A refused run takes the previous result away: its charts would read as
  // the answer to the parameters now in the fields. Refused by the field
  // check here, and by the experiment's own check (the allocator's pool
  // would reserve more than limit_gib) below.
  await page.fill('#exp-timing-f-size', '5');
  await page.click('#exp-timing-run');
  await page.locator('#exp-timing-f-size-err').waitFor();
  assert.equal(await page.locator('#exp-timing-out .exp-source, #exp-timing-out svg').count(), 0,
    'the previous chart stayed under a refused run');
  await page.goto(`${server.url}/#lab/allocator`);
  await page.locator('#exp-allocator-run').waitFor();
  await page.click('#exp-allocator-run');
  await until(async () => (await page.locator('#exp-allocator-out svg').count()) > 0, 60000, 'the allocator result');
  await page.fill('#exp-allocator-f-weight_mib', '1024');
  await page.click('#exp-allocator-run');
  await page.locator('#exp-allocator-f-weight_mib-err').waitFor();
  assert.match(await page.locator('#exp-allocator-f-weight_mib-err').textContent(), /above limit_gib/);
  assert.equal(await page.locator('#exp-allocator-out .exp-source, #exp-allocator-out svg').count(), 0,
    'the previous charts stayed under a refused run');
  await page.locator('#exp-allocator').screenshot({ path: path.join(screenshotDir(), 'exp-allocator-refused.png') });
  assert.deepEqual(problems, []);
});

browserTest('when the server\'s GPU fails the run, the browser simulates it and says why', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t);
  const page = await openPage(browser, LAPTOP, 'block');
  const problems = watchPage(page, (text) => /503/.test(text));
  const posted = [];
  await page.route('**/api/device', async (route) => {
    const real = await (await route.fetch()).json();
    real.verdict = { ...real.verdict, code: 'usable', usable: true, simulate: false, summary: 'GPU usable: test double' };
    await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(real) });
  });
  await page.route('**/api/experiments/transfer', (route) => {
    posted.push(route.request().postDataJSON());
    return route.fulfill({ status: 503, contentType: 'application/json',
      body: JSON.stringify({ error: { code: 'no_gpu', message: 'the GPU fell off the bus', param: 'backend' } }) });
  });
  await page.goto(`${server.url}/#lab/transfer`);
  await until(async () => /the server's GPU/.test(await page.locator('#exp-transfer-target').textContent()), 10000,
    'the picker offers the GPU');
  const { source, out } = await run(page, 'transfer');
  assert.equal(posted.length, 1);
  assert.equal(posted[0].backend, 'cuda');
  assert.equal(posted[0].params.max_bytes, 268435456);
  assert.equal(source, 'simulated — profile T4 (in your browser)');
  assert.match(await out.locator('.exp-note').textContent(), /the GPU fell off the bus.*simulated in your browser/);
  await checkResult('transfer', out);
  assert.deepEqual(problems, []);
});
