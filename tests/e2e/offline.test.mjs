// Offline mode in a real Chromium: after one visit the service worker
// (web/sw.js) has cached the app, the lessons and the offline bundle; with
// the server stopped, a reload still renders the lesson, the status line says
// "offline — everything will be simulated", the device panel is simulated,
// and the quiz is scored in the browser and marked "scored offline".
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { browserTest, getJson, testBrowser, screenshotDir, serverBinary, startServer, until, watchPage } from './lib.mjs';


// With the server gone every request the page makes fails; that is the point.
const offlineNoise = (text) => /Failed to load resource|ERR_CONNECTION_REFUSED|net::ERR_FAILED/.test(text);

browserTest('after one visit the app works with the server stopped', { timeout: 120000 }, async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const browser = await testBrowser();
  t.after(() => browser.close());
  const lesson = (await getJson(`${server.url}/api/lessons`)).json.lessons[0];
  const bundle = (await getJson(`${server.url}/api/lessons/${lesson.id}`)).json;
  const key = JSON.parse(readFileSync(path.resolve(path.dirname(serverBinary()), '..', 'lessons', `${lesson.id}.key.json`), 'utf8'));

  {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15000);
    const problems = watchPage(page, offlineNoise);
    const sw = await getJson(`${server.url}/sw.js`);
    assert.equal(sw.status, 200);
    assert.match(sw.headers['content-type'], /^text\/javascript/);

    // First visit, online: the worker installs and caches everything.
    await page.goto(`${server.url}/#lesson/${lesson.id}`);
    await page.locator('#lesson-title').waitFor();
    await page.evaluate(() => navigator.serviceWorker.ready);
    await until(() => page.evaluate(() => !!navigator.serviceWorker.controller), 10000, 'the page to be controlled');
    await until(() => page.evaluate(async (id) => {
      const names = await caches.keys();
      for (const n of names) if (await (await caches.open(n)).match(`/lessons/${id}.offline.json`)) return true;
      return false;
    }, lesson.id), 10000, 'the offline bundle in the cache');

    await server.stop();

    await page.reload();
    await page.locator('#lesson-title').waitFor();
    assert.equal((await page.locator('#lesson-title').textContent()).trim(), bundle.title);
    await until(async () => (await page.locator('#status').textContent()) === 'offline — everything will be simulated',
      10000, 'the offline status line');
    assert.match(await page.locator('#gpu-badge').textContent(), /simulated/);

    // The quiz, scored in wasm with the offline bundle's key.
    await page.evaluate((id) => { location.hash = `#lesson/${id}/quiz`; }, lesson.id);
    await page.locator('#quiz-form').waitFor();
    const qs = bundle.quiz.questions;
    for (let i = 0; i < qs.length; i++) {
      const right = key.answers[qs[i].id].correct;
      const pick = i < 7 ? right : [qs[i].options.map((o) => o.id).find((o) => !right.includes(o))];
      for (const o of pick) await page.check(`#quiz-${qs[i].id}-${o}`);
    }
    await page.click('button[data-action="quiz-submit"]');
    await page.locator('#quiz-result').waitFor();
    assert.match(await page.locator('.quiz-score').textContent(), /Passed — 7 of 9 right/);
    assert.match(await page.locator('.quiz-offline').textContent(), /scored offline.*on your honour/s);
    // A wrong answer, scored with the sealed key, shows neither the right
    // answer nor why until the learner asks; then both open.
    const wrong = qs[7].id;
    const item = page.locator(`#quiz-review-${wrong}`);
    assert.equal(await item.locator('.quiz-explain .label').count(), 0, 'no explanation before asking');
    await item.locator('button[data-action="quiz-reveal"]').click();
    await until(async () => (await item.locator('.quiz-explain').textContent()).includes(key.answers[wrong].explanation.slice(0, 30)),
      10000, 'the revealed explanation');
    assert.match(await item.textContent(), /Correct answer/);
    await until(async () => /Quiz: passed 7\/9/.test(await page.locator('#nav-progress').textContent()), 5000, 'nav');
    await page.screenshot({ path: path.join(screenshotDir(), 'offline-quiz-laptop.png') });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(screenshotDir(), 'offline-page-laptop.png') });

    // The lab report still downloads, and says the device was simulated offline.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button[data-action="report-download"]')]);
    const md = readFileSync(await download.path(), 'utf8');
    assert.match(md, /the gpulab server could not be reached/);
    assert.match(md, /\(scored offline, in the browser\)/);
    // ...and never claims the GPU it simulated.
    assert.doesNotMatch(md, /Experiments run on this GPU for real/);
    assert.doesNotMatch(md, /What to do: Nothing to fix/);
    assert.match(md, /\*\*Simulated:\*\* no real GPU was asked/);

    // A second page in the same browser opens offline too (phone width).
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    const phoneProblems = watchPage(phone, offlineNoise);
    await phone.goto(`${server.url}/#lesson/${lesson.id}`);
    await phone.locator('#lesson-title').waitFor();
    await until(async () => (await phone.locator('#status').textContent()) === 'offline — everything will be simulated',
      10000, 'offline status on the phone page');
    await phone.screenshot({ path: path.join(screenshotDir(), 'offline-page-phone.png') });
    assert.deepEqual(phoneProblems, []);
    assert.deepEqual(problems, []);
    await context.close();
  }
});
