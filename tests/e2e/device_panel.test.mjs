// The "Your GPU" panel in a real Chromium against the real server: the
// verdict matches GET /api/device, the page runs cross-origin isolated with
// no console errors or CSP violations, it works from the keyboard, and when
// the API cannot be reached the client simulates the device in WebAssembly.
import assert from 'node:assert/strict';
import path from 'node:path';

import { browserTest, getJson, screenshotDir, setUp, startServer, until, watchPage } from './lib.mjs';

const TEST_TIMEOUT = 90000;


async function openPage(browser, viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport, serviceWorkers: 'block' });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  return { context, page };
}

// The id of the focused element, or its tag and text when it has none.
function focused(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'body';
    return el.id ? `#${el.id}` : `${el.tagName.toLowerCase()}:${(el.textContent || '').trim().slice(0, 60)}`;
  });
}

browserTest('the GPU panel shows the server\'s verdict, live, with both views', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t);
  const device = await getJson(`${server.url}/api/device`);
  assert.equal(device.status, 200);
  const verdict = device.json.verdict;
  assert.equal(typeof verdict.summary, 'string');

  const { page } = await openPage(browser);
  const problems = watchPage(page);
  const response = await page.goto(`${server.url}/`);
  assert.equal(response.status(), 200);
  assert.match(response.headers()['content-security-policy'] || '', /script-src 'self'/);

  const summary = page.locator('#gpu-body .verdict-summary');
  await summary.waitFor({ state: 'attached' }); // inside the GPU details, closed until asked
  assert.equal((await summary.textContent()).trim(), verdict.summary);
  assert.match(await page.locator('#gpu-badge').textContent(), /live/);
  assert.ok(!(await page.locator('#gpu-badge').textContent()).includes('<'), 'the badge shows no markup as text');
  const consequence = (await page.locator('#gpu-body .verdict-consequence').textContent()).trim();
  if (verdict.simulate) assert.equal(consequence, 'The lab will simulate every experiment.');
  else assert.equal(consequence, 'Experiments run on this GPU for real.');
  assert.equal(await page.locator('#gpu-body .verdict-explanation').textContent(), verdict.explanation);
  assert.match(await page.locator('#gpu-body .verdict-advice').textContent(), /What to do:/);
  assert.deepEqual(await page.locator('#gpu-body .view-card h3').allTextContents(), ['Driver view', 'Runtime view']);
  const runtimeCard = await page.locator('#gpu-body .view-card').nth(1).textContent();
  if (device.json.runtime.runtime_version) assert.ok(runtimeCard.includes(device.json.runtime.runtime_version));
  if (device.json.runtime.error_name) assert.ok(runtimeCard.includes(device.json.runtime.error_name));
  await until(async () => /^Connected — /.test(await page.locator('#status').textContent()), 5000, 'status line');
  assert.equal(await page.locator('#gpu-body').getAttribute('aria-busy'), 'false');
  assert.equal(await page.evaluate(() => crossOriginIsolated), true, 'COOP/COEP must make the page cross-origin isolated');

  // Lessons: the index from the server, the first lesson opened, its device card filled in.
  const lessons = await getJson(`${server.url}/api/lessons`);
  if (lessons.status === 200 && lessons.json.lessons.length > 0) {
    const first = lessons.json.lessons[0];
    await until(async () => (await page.locator('#lesson h1').first().textContent()) === first.title, 10000, 'lesson');
    assert.equal(await page.locator('#nav-body [aria-current="page"]').count(), 1);
    const cards = page.locator('#lesson .experiment[data-experiment="device"] .exp-card');
    if (await cards.count()) assert.ok((await cards.first().textContent()).includes(verdict.summary));
  }

  await page.screenshot({ path: path.join(screenshotDir(), 'device-panel-desktop.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

browserTest('the page is usable from the keyboard', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t);
  const { page } = await openPage(browser);
  const problems = watchPage(page);
  await page.goto(`${server.url}/`);
  await page.locator('#gpu-body .verdict-summary').waitFor({ state: 'attached' });

  // The first Tab reaches the skip link, and it moves focus to the main area.
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'a:Skip to the lesson');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none', 'a focused element must show a focus ring');
  await page.keyboard.press('Enter');
  assert.equal(await focused(page), '#main');

  // Tabbing on reaches the one-line GPU status; Enter opens its details.
  let seen = [];
  for (let i = 0; i < 60 && !seen.some((f) => f.startsWith('summary:Server GPU')); i++) {
    await page.keyboard.press('Tab');
    seen.push(await focused(page));
  }
  assert.ok(seen.some((f) => f.startsWith('summary:Server GPU')), `Tab order never reached the GPU status: ${seen.join(', ')}`);
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.getElementById('gpu-details').open), true);

  // Tabbing on reaches the "Check again" button; Enter re-runs the check.
  seen = [];
  for (let i = 0; i < 60 && !seen.includes('button:Check again'); i++) {
    await page.keyboard.press('Tab');
    seen.push(await focused(page));
  }
  assert.ok(seen.includes('button:Check again'), `Tab order never reached "Check again": ${seen.join(', ')}`);
  await page.keyboard.press('Enter');
  await page.locator('#gpu-body .verdict-summary').waitFor({ state: 'attached' });

  // A section link in the lesson list is a real link: Enter opens the section and focuses it.
  const sectionLink = page.locator('#nav-body .nav-sections a').first();
  if (await sectionLink.count()) {
    const href = await sectionLink.getAttribute('href');
    await sectionLink.focus();
    await page.keyboard.press('Enter');
    const sectionId = href.split('/').pop();
    await until(async () => (await focused(page)) === `#sec-${sectionId}`, 5000, `focus on section ${sectionId}`);
  }
  assert.deepEqual(problems, []);
});

browserTest('at phone width nothing overflows the screen', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t);
  const { page } = await openPage(browser, { width: 390, height: 844 });
  const problems = watchPage(page);
  await page.goto(`${server.url}/`);
  await page.locator('#gpu-body .verdict-summary').waitFor({ state: 'attached' });
  await page.waitForFunction(() => document.getElementById('lesson').getAttribute('aria-busy') === 'false');
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(widths[0] <= widths[1], `page is ${widths[0]} px wide in a ${widths[1]} px window`);
  await page.screenshot({ path: path.join(screenshotDir(), 'device-panel-phone.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

browserTest('without the API the client says it is offline and simulates the default profile (T4)', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t);
  const { page } = await openPage(browser);
  await page.route('**/api/**', (route) => route.abort());
  // Chromium reports each aborted request as a console error; only those are excused.
  const problems = watchPage(page, (text, url) => /Failed to load resource/.test(text) && /\/api\//.test(url || ''));
  await page.goto(`${server.url}/`);

  await until(async () => (await page.locator('#status').textContent()) === 'offline — everything will be simulated',
    10000, 'the offline status');
  assert.match(await page.locator('#gpu-body .notice-offline').textContent(), /offline — everything will be simulated/);
  assert.equal((await page.locator('#gpu-badge').textContent()).trim(), 'simulated (profile: T4)');
  assert.match(await page.locator('#gpu-body .verdict-summary').textContent(),
    /^Simulated example: what a machine with Tesla T4 and a working driver would show/);
  const runtimeCard = await page.locator('#gpu-body .view-card').nth(1).textContent();
  assert.match(runtimeCard, /Tesla T4/);
  assert.match(runtimeCard, /compute capability 7\.5/);
  assert.ok(await page.locator('#gpu-body .findings li').count() > 0, 'the simulated envelope\'s findings are listed');
  // An example, never a check that passed: no "answered"/"ready", no green chip, no bus id; how to check for real.
  const panel = await page.locator('#gpu-body').textContent();
  assert.doesNotMatch(panel, /answered|is ready|GPU usable/i);
  assert.doesNotMatch(panel, /\bbus\b/);
  assert.equal(await page.locator('#gpu-body .chip-ok, #gpu-body .verdict-ok').count(), 0);
  assert.deepEqual(await page.locator('#gpu-body .view-card h3').allTextContents(),
    ['Driver view (example)', 'Runtime view (example)']);
  const own = await page.locator('#gpu-body .own-check').textContent();
  for (const cmd of ['nvidia-smi', 'import torch; print(torch.cuda.is_available())', 'gpulab device'])
    assert.ok(own.includes(cmd), cmd);

  // The lessons still come, from the static files beside the page.
  const index = await getJson(`${server.url}/lessons/index.json`);
  if (index.status === 200 && index.json.lessons.length > 0) {
    await until(async () => (await page.locator('#lesson h1').first().textContent()) === index.json.lessons[0].title,
      10000, 'the lesson from the static bundle');
  }
  await page.screenshot({ path: path.join(screenshotDir(), 'device-panel-offline.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

browserTest('a device check that fails on the server is explained, then simulated', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t);
  const { page } = await openPage(browser);
  await page.route('**/api/device', (route) => route.fulfill({
    status: 500,
    contentType: 'application/json',
    body: JSON.stringify({ error: { code: 'internal', message: 'the <probe> crashed' } }),
  }));
  const problems = watchPage(page, (text, url) => /status of 500/.test(text) && /\/api\/device/.test(url || ''));
  await page.goto(`${server.url}/`);
  const notice = page.locator('#gpu-body .notice');
  await notice.waitFor({ state: 'attached' });
  assert.match(await notice.textContent(), /The server could not check its GPU\. It answered: the <probe> crashed/);
  assert.equal(await page.locator('#gpu-body .notice probe').count(), 0, 'server text must be escaped, not markup');
  assert.match(await page.locator('#gpu-badge').textContent(), /simulated/);
  assert.deepEqual(problems, []);
});

browserTest('a device check still running on the server is asked again by the page, which then shows it live', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t);
  const { page } = await openPage(browser);
  // The first answer is the server's "still checking" (503 device_check_timeout, as a
  // busy machine gives it); the page's next request waits until the note is read.
  let asked = 0, release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route('**/api/device', async (route) => {
    asked++;
    if (asked > 1) {
      await held;
      return route.continue();
    }
    return route.fulfill({
      status: 503,
      contentType: 'application/json',
      headers: { 'Retry-After': '1' },
      body: JSON.stringify({ error: { code: 'device_check_timeout', message: 'the device check has not answered within 2 s (a slow or stuck driver); retry in a few seconds' } }),
    });
  });
  const problems = watchPage(page, (text, url) => /status of 503/.test(text) && /\/api\/device/.test(url || ''));
  await page.goto(`${server.url}/`);
  const notice = page.locator('#gpu-body .notice');
  await notice.waitFor({ state: 'attached' });
  assert.match(await notice.textContent(), /It answered: the device check has not answered within 2 s.*This page asks it again by itself\./);
  assert.match(await page.locator('#gpu-badge').textContent(), /simulated/);
  // the status line says the check is still running, not that it failed
  assert.match(await page.locator('#status').textContent(), /still checking its GPU/);
  await until(() => asked === 2, 15000, 'the page asking again after Retry-After');
  release();
  await until(async () => /live/.test(await page.locator('#gpu-badge').textContent()), 15000, 'the live check in the panel');
  const device = await getJson(`${server.url}/api/device`);
  assert.equal((await page.locator('#gpu-body .verdict-summary').textContent()).trim(), device.json.verdict.summary);
  assert.equal(asked, 2, 'asked once again, not more');
  assert.deepEqual(problems, []);
});
