// A class in real Chromium against the real server in class mode, with the
// test-only fake GPU (GPULAB_TEST_HOOKS=1, GPULAB_FAKE_GPU_MS=2000: every GPU
// run takes 2 s and is simulated, so the queue fills on a machine without
// a GPU). Two learners in two browser contexts join (one with a wrong code
// first, one from the keyboard), both queue runs, a queue position shows and
// the results arrive; Cancel takes a queued run back; Leave ends a session;
// the instructor page (a third context, token pasted) lists both learners
// with their runs and quiz attempts (summed per lesson). Screenshots of the join form, a queued run and the
// instructor page go to GPULAB_SCREENSHOTS.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { browserTest, getJson, testBrowser, screenshotDir, startServer, until, watchPage } from './lib.mjs';

const TEST_TIMEOUT = 180000;
const LAPTOP = { width: 1280, height: 900 };

// env: the server's; the default gives it a fake GPU, {} leaves it without one.
async function setUp(t, env = { GPULAB_TEST_HOOKS: '1', GPULAB_FAKE_GPU_MS: '2000' }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gpulab-class-e2e-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startServer({
    classMode: true,
    args: ['--class-name', 'CS 101 lab', '--db', path.join(dir, 'class.db'), '--runs-per-minute', '30',
      '--max-gpu-mem-gib', '80', '--deadline', '30'],
    env,
  });
  t.after(() => server.stop());
  assert.match(server.joinCode, /^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
  const health = await getJson(`${server.url}/api/health`);
  assert.ok(health.json && health.json.class && health.json.class.name === 'CS 101 lab',
    'GET /api/health says that a class runs ("class":{"name"}): the page shows the join form from it');
  const browser = await testBrowser();
  t.after(() => browser.close());
  return { server, browser };
}

// Each learner is a browser context of its own: its own cookie jar, so its own session.
async function openPage(browser, viewport = LAPTOP) {
  const context = await browser.newContext({ viewport, serviceWorkers: 'block' });
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  return page;
}

// A busy machine's first device check may answer 503 (still checking):
// the page asks again by itself (onServerGpu, below), and the browser logs
// each such answer as a failed resource.
const stillChecking = (text, url) => /status of 503/.test(text) && /\/api\/device/.test(url || '');
// The runs that a test provokes on purpose (a wrong join code, a cancelled
// run) answer 4xx; the browser logs those as failed resources.
const expected = (text, url) => /status of (401|403|409)/.test(text) || stillChecking(text, url);

async function join(page, code, name) {
  await page.locator('#class-code').fill(code);
  await page.locator('#class-name').fill(name);
  await page.locator('#class-name').press('Enter'); // the keyboard path: Enter in a field joins
  await page.locator('#class-who').waitFor();
  assert.equal(await page.locator('#class-who').textContent(), name);
}

// Presses Run on a widget of the #lab page; returns once the POST was answered
// (the widget then shows a queue status or a result).
async function pressRun(page, name) {
  await page.locator(`#exp-${name}-run`).click();
  await until(async () => (await page.locator(`#exp-${name}-out .class-run, #exp-${name}-out .exp-source, ` +
    `#exp-${name}-out .exp-failure`).count()) > 0, 20000, `${name}: queued or answered`);
}

// Waits until the widget's automatic target is the server's GPU. On a busy
// machine the server's first device check may not answer within its 2 s
// (503 device_check_timeout): the page then simulates and asks again by
// itself, the waits doubling (wasm/pages/app.c, device_retry), so this may
// take some 30 s, and a run pressed before it would be simulated, not queued.
async function onServerGpu(page, name = 'timing') {
  await page.locator(`#exp-${name}-run`).waitFor();
  await until(async () => (await page.locator(`#exp-${name}-target-auto`).textContent()).includes("server's GPU"),
    60000, `${name}: the widget targets the server GPU`);
}

async function waitResult(page, name) {
  const out = page.locator(`#exp-${name}-out`);
  await until(async () => (await out.getAttribute('aria-busy')) === 'false' &&
    (await out.locator('.exp-source, .exp-failure').count()) > 0, 60000, `${name} result`);
  return out;
}

browserTest('two learners join a class, queue runs, and the instructor sees both', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t);
  const shots = screenshotDir();

  // ---- learner 1: the join form, a wrong code, then the right one -------------
  const ada = await openPage(browser);
  const adaProblems = watchPage(ada, expected);
  await ada.goto(`${server.url}/`);
  await ada.locator('#class .class-join').waitFor();
  assert.match(await ada.locator('#class .kicker').textContent(), /CS 101 lab/);
  assert.equal(await ada.locator('label[for="class-code"]').textContent(), 'Join code');
  await ada.locator('#class').screenshot({ path: path.join(shots, 'class-join-form.png') });

  await ada.locator('#class-code').fill('ZZZZ-ZZZZ');
  await ada.locator('#class-name').fill('Ada L.');
  await ada.locator('#class-join').click();
  await ada.locator('#class-code-error').waitFor();
  assert.match(await ada.locator('#class-code-error').textContent(), /not this class's/);
  assert.equal(await ada.locator('#class-code').getAttribute('aria-invalid'), 'true');
  assert.equal(await ada.evaluate(() => document.activeElement.id), 'class-code', 'focus goes to the bad field');
  assert.equal(await ada.locator('#class-name').inputValue(), 'Ada L.', 'what was typed stays');
  await ada.locator('#class').screenshot({ path: path.join(shots, 'class-join-error.png') });
  await join(ada, server.joinCode, 'Ada L.');
  assert.equal(await ada.evaluate(() => document.activeElement.id), 'class-bar', 'the bar takes focus');
  assert.match(await ada.locator('#class-gpu-time').textContent(), /GPU time: 0\.0 s of 300 s used/);
  assert.ok(!ada.url().includes(server.joinCode), 'the join code never goes into the address');

  // ---- learner 2: lower case, no dash: the form normalises it ------------------
  const bo = await openPage(browser);
  const boProblems = watchPage(bo, expected);
  await bo.goto(`${server.url}/#lab`);
  await bo.locator('#class .class-join').waitFor();
  await join(bo, server.joinCode.replace('-', '').toLowerCase(), 'Bo <b>');

  // ---- both queue runs on the one (fake) GPU ------------------------------------
  await ada.goto(`${server.url}/#lab`);
  await onServerGpu(ada);
  await onServerGpu(bo);
  await pressRun(ada, 'timing');
  await pressRun(ada, 'transfer');
  await pressRun(bo, 'timing');
  await pressRun(bo, 'memory');
  // Four runs of 2 s on one GPU: someone is queued behind someone else.
  const queued = await until(async () => {
    for (const [page, name] of [[ada, 'transfer'], [bo, 'timing'], [bo, 'memory']]) {
      const line = page.locator(`#exp-${name}-out .class-run-queued .class-run-line`);
      if (await line.count()) return { page, name, text: (await line.textContent()).trim() };
    }
    return null;
  }, 10000, 'a queued run');
  assert.match(queued.text, /^Queued — (position \d+|next in line)(, (about .+|less than a second))?Cancel$/);
  await queued.page.locator(`#exp-${queued.name}-out`).scrollIntoViewIfNeeded();
  await queued.page.locator(`.experiment[data-experiment="${queued.name}"]`).screenshot(
    { path: path.join(shots, 'class-queued-run.png') });

  // ---- the instructor page while the queue is busy ----------------------------
  const teacher = await openPage(browser);
  const teacherProblems = watchPage(teacher, (text) => /status of 401/.test(text));
  await teacher.goto(`${server.url}/instructor.html`);
  await teacher.locator('#token').fill('0'.repeat(64)); // a wrong token first
  await teacher.locator('#token').press('Enter');
  await teacher.locator('#token-error:not([hidden])').waitFor();
  assert.match(await teacher.locator('#token-error').textContent(), /did not accept this token/);
  await teacher.locator('#token').fill(server.instructorToken);
  await teacher.locator('#token-submit').click();
  await teacher.locator('#class-view:not([hidden])').waitFor();
  assert.equal(await teacher.locator('#class-name').textContent(), 'CS 101 lab');
  assert.equal(await teacher.locator('#token').inputValue(), '', 'the field does not keep the token');
  assert.ok(!teacher.url().includes(server.instructorToken), 'the token never goes into the address');
  const names = await teacher.locator('#learners tbody th').allTextContents();
  assert.deepEqual(names.sort(), ['Ada L.', 'Bo <b>']);
  await teacher.screenshot({ path: path.join(shots, 'class-instructor.png'), fullPage: true });

  // ---- every run finishes and renders as it does outside class mode ----------
  for (const [page, name] of [[ada, 'timing'], [ada, 'transfer'], [bo, 'timing'], [bo, 'memory']]) {
    const out = await waitResult(page, name);
    assert.equal(await out.locator('.exp-failure').count(), 0, `${name}: no failure`);
    assert.match(await out.locator('.exp-source').textContent(), /gpulab fake GPU \(test\)|simulated/);
    assert.ok(await out.locator('ul.findings li').count() > 0, `${name}: findings`);
  }

  // The instructor's next refresh (every 5 s) counts both learners' runs.
  await until(async () => {
    const rows = await teacher.locator('#learners tbody tr').allTextContents();
    return rows.length === 2 && rows.every((r) => /active2 \(2 done\)/.test(r));
  }, 15000, 'two done runs per learner on the instructor page').catch(async (e) => {
    await teacher.screenshot({ path: path.join(shots, 'class-instructor-failed.png'), fullPage: true });
    throw new Error(`${e.message}; rows: ${JSON.stringify(await teacher.locator('#learners tbody tr').allTextContents())}`);
  });
  assert.match(await teacher.locator('#gpu').textContent(), /gpulab fake GPU \(test\)/);

  // Quiz attempts show summed per lesson: the best score, passed or not, how many.
  for (let i = 0; i < 2; i++) {
    const status = await bo.evaluate(async () => (await fetch('/api/lessons/01-cuda-intuition/quiz', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ answers: {} }),
    })).status);
    assert.equal(status, 200, 'a quiz attempt is scored and kept');
  }
  await until(async () => {
    const rows = await teacher.locator('#learners tbody tr').allTextContents();
    return rows.some((r) => r.startsWith('Bo <b>') && /01-cuda-intuition: 0\/\d+ not yet2 attempts, last just now/.test(r));
  }, 15000, "Bo's two attempts summed on the instructor page").catch(async (e) => {
    throw new Error(`${e.message}; rows: ${JSON.stringify(await teacher.locator('#learners tbody tr').allTextContents())}`);
  });
  await teacher.screenshot({ path: path.join(shots, 'class-instructor-done.png'), fullPage: true });
  // The learners' GPU time went up.
  await until(async () => !/ 0\.0 s of/.test(await ada.locator('#class-gpu-time').textContent()), 10000,
    'GPU time used is counted');

  await ada.evaluate(() => window.scrollTo(0, 0));
  await ada.screenshot({ path: path.join(shots, 'class-session-bar.png') });

  // ---- Cancel takes a queued run back --------------------------------------------
  // Three runs at once on a 2 s GPU: the third waits behind the other two.
  // (On 0.8 s runs, with four busy loops beside the browser tests, the
  // third once started before Cancel was pressed.)
  await pressRun(ada, 'timing');
  await pressRun(ada, 'transfer');
  await pressRun(ada, 'memory');
  const cancel = ada.locator('#exp-memory-out [data-action="class-cancel"]');
  await cancel.waitFor();
  await cancel.focus();
  await ada.keyboard.press('Enter'); // Cancel works from the keyboard
  const cancelled = await waitResult(ada, 'memory');
  assert.match(await cancelled.locator('.exp-failure').textContent(), /You cancelled the run before it started/);
  assert.equal(await ada.locator('#exp-memory-run').textContent(), 'Run');
  await waitResult(ada, 'timing');
  await waitResult(ada, 'transfer');

  // ---- Leave ends the session ------------------------------------------------------
  await bo.locator('#class-leave').click();
  await bo.locator('#class .class-join').waitFor();
  assert.match(await bo.locator('#class-join-status').textContent(), /You left the class/);

  assert.deepEqual(adaProblems, [], 'learner 1: no console errors or CSP violations');
  assert.deepEqual(boProblems, [], 'learner 2: no console errors or CSP violations');
  assert.deepEqual(teacherProblems, [], 'instructor: no console errors or CSP violations');
});

// A run simulated in the learner's browser (a profile picked, or no GPU) is
// reported to the class and counted for the instructor, not stored as a run.
browserTest('runs simulated in a learner\'s browser show on the instructor page', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t, {}); // a server with no GPU
  const ada = await openPage(browser);
  const problems = watchPage(ada, expected);
  await ada.goto(`${server.url}/#lab`);
  await ada.locator('#class .class-join').waitFor();
  await join(ada, server.joinCode, 'Ada');
  // Her own bar says what is true here: no GPU-time budget she cannot spend.
  const bar = ada.locator('#class-bar');
  assert.match(await ada.locator('#class-gpu-time').textContent(), /^Runs are simulated in your browser: this server has no GPU$/);
  assert.doesNotMatch(await bar.textContent(), /GPU time|of 300 s/);
  assert.equal(await bar.locator('meter').count(), 0, 'no GPU-time meter');
  const reported = ada.waitForResponse((r) => r.url().endsWith('/api/class/simulated'));
  await ada.locator('#exp-timing-target').selectOption('t4'); // a model of a T4, in the browser
  await pressRun(ada, 'timing');
  const out = await waitResult(ada, 'timing');
  assert.match(await out.locator('.exp-source').textContent(), /simulated/);
  assert.equal((await reported).status(), 200);
  const sims = ada.locator('#class-sims');
  await until(async () => (await sims.count()) > 0 && (await sims.textContent()) === '1 run simulated', 10000,
    'her bar counts the run her browser simulated');
  for (const width of [1280, 390]) {
    await ada.setViewportSize({ width, height: 844 });
    await bar.scrollIntoViewIfNeeded();
    assert.ok(await ada.evaluate(() => document.documentElement.scrollWidth) <= width, `the bar fits ${width} px`);
    await bar.screenshot({ path: path.join(screenshotDir(), `class-bar-no-gpu-${width}.png`) });
  }

  const teacher = await openPage(browser);
  await teacher.goto(`${server.url}/instructor.html`);
  await teacher.locator('#token').fill(server.instructorToken);
  await teacher.locator('#token-submit').click();
  await teacher.locator('#class-view:not([hidden])').waitFor();
  const runs = teacher.locator('#summary .instr-stat').filter({ has: teacher.locator('dt', { hasText: /^Runs$/ }) }).locator('dd');
  assert.equal((await runs.textContent()).trim(), '0 on the server · 1 simulated in browsers');
  const row = await teacher.locator('#learners tbody tr').first().textContent();
  assert.match(row, /Ada/);
  assert.match(row, /0 \+ 1 simulated in the browser/, 'her own row counts her browser\'s run');
  assert.match(row, /no GPU on this server/, 'no "0.0 s" of GPU time where there is no GPU');
  const perLearner = teacher.locator('#summary .instr-stat').filter({ has: teacher.locator('dt', { hasText: /^GPU time per learner$/ }) });
  assert.equal((await perLearner.locator('dd').textContent()).trim(), 'no GPU on this server');
  assert.deepEqual(problems, []);
});

browserTest('outside class mode there is no join form', { timeout: TEST_TIMEOUT }, async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const browser = await testBrowser();
  t.after(() => browser.close());
  const page = await openPage(browser);
  const problems = watchPage(page, (text) => /status of 404/.test(text));
  await page.goto(`${server.url}/`);
  await page.locator('#lesson .exp-widget').first().waitFor();
  assert.equal(await page.locator('#class').getAttribute('hidden'), '', 'the class area stays hidden');
  assert.equal(await page.locator('#class .class-join').count(), 0);
  assert.deepEqual(problems, []);
});

browserTest('a class limit is explained in the widget, with when to retry', { timeout: TEST_TIMEOUT }, async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gpulab-class-e2e-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startServer({
    classMode: true,
    args: ['--db', path.join(dir, 'class.db'), '--runs-per-minute', '1', '--max-gpu-mem-gib', '80'],
    env: { GPULAB_TEST_HOOKS: '1', GPULAB_FAKE_GPU_MS: '100' },
  });
  t.after(() => server.stop());
  assert.ok((await getJson(`${server.url}/api/health`)).json.class, 'GET /api/health says that a class runs');
  const browser = await testBrowser();
  t.after(() => browser.close());
  const page = await openPage(browser);
  // 401: the session check before joining
  const problems = watchPage(page, (text, url) => /status of (401|429)/.test(text) || stillChecking(text, url));
  await page.goto(`${server.url}/#lab`);
  await page.locator('#class .class-join').waitFor();
  await join(page, server.joinCode, 'Cy');
  await onServerGpu(page);
  await pressRun(page, 'timing');
  await waitResult(page, 'timing');
  await pressRun(page, 'transfer'); // the second run this minute: over the limit of one
  const out = await waitResult(page, 'transfer');
  const text = await out.locator('.exp-failure').textContent();
  assert.match(text, /per minute/);
  assert.match(text, /retry in \d+ s|Try again in (a few seconds|about \d+ seconds)/);
  await out.screenshot({ path: path.join(screenshotDir(), 'class-rate-limited.png') });
  assert.deepEqual(problems, []);
});
