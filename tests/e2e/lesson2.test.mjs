// Lesson 2 (PyTorch's CUDA toolbox) in a real Chromium against the real
// server: the lesson opens from its address and every section renders and
// counts as read when scrolled through; each experiment the lesson embeds
// runs (simulated on this machine) and draws its chart, findings and table;
// the quiz fails with 6 of 9 and passes with 7 of 9, the right answers read
// from the server's answer key file as quiz.test.mjs does for lesson 1.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { browserTest, getJson, testBrowser, screenshotDir, serverBinary, startServer, until, watchPage } from './lib.mjs';

const TEST_TIMEOUT = 240000;
const SEED = '20261122';
const LAPTOP = { width: 1280, height: 900 };

// One server and one browser per test; lesson 2, its public bundle and its key.
async function setUp(t) {
  const server = await startServer();
  t.after(() => server.stop());
  const browser = await testBrowser();
  t.after(() => browser.close());
  const index = await getJson(`${server.url}/api/lessons`);
  assert.equal(index.status, 200);
  const lesson = index.json.lessons.find((l) => l.id.startsWith('02-'));
  assert.ok(lesson, `the build has lesson 2: ${index.json.lessons.map((l) => l.id).join(', ')}`);
  const bundle = (await getJson(`${server.url}/api/lessons/${lesson.id}`)).json;
  const keyPath = path.resolve(path.dirname(serverBinary()), '..', 'lessons', `${lesson.id}.key.json`);
  const key = JSON.parse(readFileSync(keyPath, 'utf8'));
  return { server, browser, id: lesson.id, bundle, key };
}

async function openPage(browser) {
  const context = await browser.newContext({ viewport: LAPTOP });
  await context.addInitScript((seed) => localStorage.setItem('gpulab.quiz.seed', seed), SEED);
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  return page;
}

// The right options for the first `nRight` questions, one wrong option for the rest.
function plan(bundle, key, nRight) {
  return bundle.quiz.questions.map((q, i) => {
    const correct = key.answers[q.id].correct;
    const wrong = q.options.map((o) => o.id).find((o) => !correct.includes(o));
    return { id: q.id, choose: i < nRight ? correct : [wrong] };
  });
}

async function answer(page, choices) {
  for (const q of choices) for (const o of q.choose) await page.check(`#quiz-${q.id}-${o}`);
}

// Presses Run and waits until the widget shows a result or a failure.
async function run(page, name) {
  const out = page.locator(`#exp-${name}-out`);
  await page.click(`#exp-${name}-run`);
  await until(async () => (await out.getAttribute('aria-busy')) === 'false' &&
    (await out.locator('.exp-source, .exp-failure').count()) > 0, 60000, `${name} result`);
  assert.equal(await out.locator('.exp-failure').count(), 0, `${name}: ${await out.textContent()}`);
  return out;
}

browserTest('lesson 2 reads through, and each of its experiments runs and draws its result', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser, id, bundle } = await setUp(t);
  const device = await getJson(`${server.url}/api/device`);
  const live = device.json && device.json.verdict && device.json.verdict.usable && !device.json.verdict.simulate;
  const page = await openPage(browser);
  const problems = watchPage(page);
  await page.goto(`${server.url}/#lesson/${id}`);
  await page.locator('#lesson-title').waitFor();
  assert.equal((await page.locator('#lesson-title').textContent()).trim(), bundle.title);
  assert.ok(bundle.sections.length >= 10, 'lesson 2 has its sections');
  await page.screenshot({ path: path.join(screenshotDir(), 'lesson2-top-laptop.png') });

  // Read through: every section is on the page with its title and some text,
  // and scrolling to its end marks it read.
  for (const s of bundle.sections) {
    const sec = page.locator(`#sec-${s.id}`);
    await sec.waitFor();
    assert.equal((await page.locator(`#sec-${s.id}-h`).textContent()).trim(), s.title);
    assert.ok((await sec.locator('p').count()) > 0, `${s.id}: has text`);
    await page.evaluate((sid) => document.getElementById(`sec-${sid}`).scrollIntoView({ block: 'end' }), s.id);
    await until(async () => {
      const p = JSON.parse(await page.evaluate((lid) => localStorage.getItem(`gpulab.progress.${lid}`), id) || '{}');
      return (p.read || []).includes(s.id);
    }, 5000, `section ${s.id} marked read`);
  }
  assert.ok(await page.locator('#lesson pre code.language-python').count() >= 10, 'PyTorch code where the learner meets it');

  // Each embedded experiment, in lesson order, simulated on this machine.
  const names = await page.locator('#lesson .experiment[data-experiment]').evaluateAll(
    (els) => els.map((e) => e.getAttribute('data-experiment')));
  assert.deepEqual(names, bundle.sections.flatMap((s) => s.experiments));
  for (const name of ['placement', 'allocator', 'graphs', 'precision', 'transfer', 'profile'])
    assert.ok(names.includes(name), `lesson 2 runs ${name}`);
  for (const name of names) {
    await page.locator(`#exp-${name}`).scrollIntoViewIfNeeded();
    const out = await run(page, name);
    const source = (await out.locator('.exp-source').textContent()).trim();
    if (!live) assert.equal(source, 'simulated — profile T4 (in your browser)', name);
    const chart = out.locator('svg[role="img"]').first();
    await chart.waitFor();
    assert.ok(((await chart.getAttribute('aria-label')) || '').length > 20, `${name}: the chart has a summary sentence`);
    assert.ok(await out.locator('ul.findings li').count() > 0, `${name}: findings`);
    assert.ok(await out.locator('details.exp-numbers table').count() > 0, `${name}: the numbers as a table`);
    const stored = JSON.parse(await page.evaluate((n) => localStorage.getItem(`gpulab.last.${n}`), name));
    assert.equal(stored.experiment, name, `${name}: the run is kept for the lab report`);
    await page.locator(`#exp-${name}`).screenshot({ path: path.join(screenshotDir(), `lesson2-exp-${name}.png`) });
  }
  await page.locator('#sec-streams').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(screenshotDir(), 'lesson2-streams-laptop.png') });
  assert.deepEqual(problems, []);
});

browserTest('lesson 2\'s quiz: 6 of 9 fails, 7 of 9 passes', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser, id, bundle, key } = await setUp(t);
  assert.equal(bundle.quiz.questions.length, 9);
  assert.equal(bundle.quiz.pass_pct, 75);
  assert.ok(!JSON.stringify(bundle).includes(key.answers.q1.explanation), 'the public bundle carries no key');
  const page = await openPage(browser);
  const problems = watchPage(page);
  await page.goto(`${server.url}/#lesson/${id}/quiz`);
  await page.locator('#quiz-form').waitFor();
  assert.equal(await page.locator('#quiz-form fieldset').count(), 9);
  assert.match(await page.locator('.quiz-intro').textContent(), /pass with 7 right/);

  await answer(page, plan(bundle, key, 6));
  await page.click('button[data-action="quiz-submit"]');
  await page.locator('#quiz-result').waitFor();
  assert.match(await page.locator('.quiz-score').textContent(), /Not passed yet — 6 of 9 right/);
  assert.equal(await page.locator('.quiz-review-item.is-wrong').count(), 3);
  assert.ok((await page.locator('#quiz-review-q9').textContent()).includes(key.answers.q9.explanation),
    'a wrong answer shows its explanation');
  await page.screenshot({ path: path.join(screenshotDir(), 'lesson2-quiz-fail.png') });

  await page.click('button[data-action="quiz-retry"]');
  await page.locator('#quiz-form').waitFor();
  await answer(page, plan(bundle, key, 7));
  await page.click('button[data-action="quiz-submit"]');
  await page.locator('#quiz-result').waitFor();
  assert.match(await page.locator('.quiz-score').textContent(), /Passed — 7 of 9 right/);
  assert.equal(await page.locator('.quiz-review-item.is-right').count(), 7);
  await until(async () => /Quiz: passed 7\/9/.test(await page.locator('#nav-progress').textContent()), 5000, 'nav');
  const stored = JSON.parse(await page.evaluate((lid) => localStorage.getItem(`gpulab.progress.${lid}`), id));
  assert.deepEqual([stored.attempts, stored.best.score, stored.best.passed], [2, 7, true]);
  await page.screenshot({ path: path.join(screenshotDir(), 'lesson2-quiz-pass.png') });
  assert.deepEqual(problems, []);
});
