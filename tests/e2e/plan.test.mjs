// The training planner's page (#plan) in a real Chromium: reached from the
// nav, filled from its link's query (#plan?preset=…&batch=…&device=t4),
// planned in the browser by lab/plan in the simulation module's worker:
// the verdict, the three counters with their bands, the levers as "saves
// X, costs Y % step time", the micro-batch sweep as a chart; a change in
// the form plans again. An explained out-of-memory error opens the
// planner with its numbers. No horizontal overflow at 390 or 1280 px, no
// serious axe violation;
// screenshots go to build/screenshots/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { REPO, browserTest, testBrowser, screenshotDir, startServer, until, watchPage } from './lib.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const OOM = readFileSync(path.join(REPO, 'tests/explain/own/004-oom-new-too-much.txt'), 'utf8');
const noOverflow = (page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

browserTest('the planner page plans a link, replans a change and takes an error\'s numbers', { timeout: 120000 }, async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const browser = await testBrowser();
  t.after(() => browser.close());
  const shots = screenshotDir();
  for (const [width, height, name] of [[1280, 860, 'plan-laptop.png'], [390, 844, 'plan-phone.png']]) {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    page.setDefaultTimeout(20000);
    const problems = watchPage(page);
    await page.goto(`${server.url}/#lesson/01-cuda-intuition`);
    await page.locator('#lesson-title').waitFor();
    assert.ok(await page.locator('a[href="#plan"]').count() > 0, 'the nav links the planner');
    await page.evaluate(() => { location.hash = '#plan?preset=gpt2-124m&seq=512&batch=4&device=t4'; });
    const verdict = page.locator('#plan-verdict');
    await verdict.waitFor();
    assert.equal(await page.locator('#plan-batch').inputValue(), '4', 'the link fills the form');
    assert.equal(await page.locator('#plan-profile').inputValue(), 't4');
    assert.match(await verdict.textContent(), /^Fits on the Tesla T4/);
    assert.ok(await page.locator('#plan-preset option').count() > 3, 'the presets came with the first answer');
    assert.equal(await page.locator('table.plan-counters tbody tr').count(), 3);
    assert.match(await page.locator('table.plan-counters').textContent(), /max_memory_allocated[\s\S]*GiB to [\d.]+ GiB/);
    const levers = await page.locator('ul.plan-levers li').allTextContents();
    assert.ok(levers.length >= 3 && levers.every((l) => /(saves|adds) .* (costs|saves) \d+ % step time/.test(l)), levers.join(' | '));
    assert.ok(await page.locator('#plan-out figure svg[role="img"]').count() >= 1, 'the sweep chart');
    assert.ok(await noOverflow(page), `no horizontal overflow at ${width} px`);
    await page.screenshot({ path: path.join(shots, name), fullPage: true });
    // no serious or critical accessibility violation, no id twice, with the answer drawn
    await page.evaluate(AXE);
    const v = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations);
    assert.deepEqual(v.filter((x) => x.impact === 'serious' || x.impact === 'critical').map((x) => x.id), [], `axe at ${width} px`);
    assert.deepEqual(await page.evaluate(() => {
      const seen = new Map();
      for (const el of document.querySelectorAll('[id]')) seen.set(el.id, (seen.get(el.id) || 0) + 1);
      return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
    }), []);
    if (width === 1280) {
      // a micro-batch far past the T4: planned again, and it says it does not fit
      await page.fill('#plan-batch', '256');
      await page.click('button[data-action="plan-run"]');
      await until(async () => /does not fit|not fit/i.test(await verdict.textContent()), 20000, 'the new verdict');
      assert.ok(await page.locator('#plan-verdict.plan-over').count() === 1);
      // a pasted out-of-memory error opens the planner with its numbers
      await page.evaluate(() => { location.hash = '#explain'; });
      await page.locator('#explain-text').waitFor();
      await page.fill('#explain-text', OOM);
      await page.click('button[data-action="explain-run"]');
      const link = page.locator('#explain-item-0 a.explain-plan');
      await link.waitFor();
      assert.match(await link.getAttribute('href'), /^#plan\?tried=\d+&total=\d+&allocated=\d+(&reserved=\d+)?&device=[a-z0-9-]+$/);
      await link.click();
      await verdict.waitFor();
      assert.match(await page.locator('table.plan-counters thead').textContent(), /your error said/);
      assert.match(await page.locator('#plan-out').textContent(), /Your error tried to allocate/);
      await page.screenshot({ path: path.join(shots, 'plan-from-error.png'), fullPage: false });
    }
    assert.deepEqual(problems, []);
    await context.close();
  }
});
