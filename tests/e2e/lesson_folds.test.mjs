// Both lessons' folds ("::: fold SUMMARY" in lesson.md) in a real Chromium
// against the real server, on a phone (390 px) and a laptop (1280 px): every
// fold starts closed with its summary in view and its text hidden, opens from
// the keyboard, and with every fold closed or open the page never scrolls
// sideways. The lessons link the planner, explain and the profile reader where
// they talk about memory, errors and profiles. One server, one browser.
import assert from 'node:assert/strict';
import path from 'node:path';

import { browserTest, getJson, screenshotDir, setUp, until, watchPage } from './lib.mjs';

const TEST_TIMEOUT = 240000;
const WIDTHS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'laptop', width: 1280, height: 900 },
];

// How wide the page is laid out: above the viewport, it scrolls sideways.
function overflow(page) {
  return page.evaluate(() => document.documentElement.scrollWidth);
}

browserTest('lesson folds start closed, open from the keyboard, and never make the page scroll sideways',
  { timeout: TEST_TIMEOUT }, async (t) => {
    const { server, browser } = await setUp(t);
    const index = await getJson(`${server.url}/api/lessons`);
    assert.equal(index.status, 200);
    assert.ok(index.json.lessons.length >= 2, 'both lessons are built');
    for (const l of index.json.lessons) assert.ok(l.words > 0 && l.words <= 3000, `${l.id}: ${l.words} words shown`);

    for (const size of WIDTHS) {
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      t.after(() => context.close());
      const page = await context.newPage();
      page.setDefaultTimeout(20000);
      const problems = watchPage(page);
      for (const l of index.json.lessons) {
        const tag = `${l.id.slice(0, 2)}-${size.name}`;
        await page.goto(`${server.url}/#lesson/${l.id}`);
        await until(async () => (await page.locator('#lesson-title').textContent() || '').trim() === l.title, 10000,
          `${l.id}: its page`);
        const folds = page.locator('#lesson details.fold');
        // The whole lesson: its sections below the first screen come one a task.
        await page.locator('#lesson[aria-busy="false"]').waitFor({ state: 'attached', timeout: 10000 });
        assert.ok(await folds.count() >= 10, `${l.id}: its folds on the page`);
        const n = await folds.count();
        assert.equal(await page.locator('#lesson details.fold[open]').count(), 0, `${tag}: every fold starts closed`);
        // Closed, the summary shows and what it folds does not.
        const first = folds.first();
        await first.scrollIntoViewIfNeeded();
        assert.ok(await first.locator('summary').isVisible(), `${tag}: the first fold's summary is in view`);
        assert.match(await first.locator('summary').textContent(), /^More/);
        assert.equal(await first.locator(':scope > :not(summary)').first().isVisible(), false,
          `${tag}: a closed fold hides its text`);
        let width = await overflow(page);
        assert.ok(width <= size.width, `${tag}: folds closed, the page scrolls sideways (${width}px)`);
        await page.screenshot({ path: path.join(screenshotDir(), `lesson${tag}-folds-closed.png`) });

        // The keyboard opens one; then every fold is opened.
        await first.locator('summary').focus();
        await page.keyboard.press('Enter');
        await until(async () => (await first.getAttribute('open')) !== null, 5000, `${tag}: Enter opens the fold`);
        assert.ok(await first.locator(':scope > :not(summary)').first().isVisible(), `${tag}: an open fold shows its text`);
        await first.screenshot({ path: path.join(screenshotDir(), `lesson${tag}-fold-open.png`) });
        await page.evaluate(() => document.querySelectorAll('#lesson details.fold').forEach((d) => { d.open = true; }));
        assert.equal(await page.locator('#lesson details.fold[open]').count(), n);
        width = await overflow(page);
        assert.ok(width <= size.width, `${tag}: folds open, the page scrolls sideways (${width}px)`);
        // Every table cell is on the screen, none scrolled out of view or
        // hidden; on a phone each body cell is labelled by its column.
        const cells = await page.evaluate(() => [...document.querySelectorAll('#lesson .prose table')].flatMap((tb, i) =>
          [...tb.querySelectorAll('th, td')].map((c) => {
            const r = c.getBoundingClientRect(), head = c.closest('thead') !== null;
            const col = head ? null : tb.querySelectorAll('thead th')[c.cellIndex];
            return { table: i, text: c.textContent.trim().slice(0, 40), left: r.left, right: r.right, w: r.width, head,
              label: c.getAttribute('data-label'), column: col ? col.textContent.trim() : null, first: c.cellIndex === 0 };
          })));
        assert.ok(cells.length > 20, `${tag}: the lesson's tables are on the page (${cells.length} cells)`);
        for (const c of cells) {
          if (c.head && size.width < 600) continue; // on a phone the header row is read out, shown as each cell's label
          assert.ok(c.w > 0 && c.left >= 0 && c.right <= size.width + 0.5,
            `${tag}: table ${c.table}'s cell "${c.text}" lies at ${c.left.toFixed(0)}..${c.right.toFixed(0)} px, not within 0..${size.width}`);
        }
        for (const c of cells.filter((x) => !x.head && !x.first))
          assert.equal(c.label, c.column, `${tag}: cell "${c.text}" is labelled by its column`);
        if (size.width < 600) {
          const table = page.locator('#lesson .prose table').first();
          await table.scrollIntoViewIfNeeded();
          await table.screenshot({ path: path.join(screenshotDir(), `lesson${tag}-table.png`) });
        }
      }
      // Where the lessons talk about memory, errors and profiles, they link the tools.
      await page.goto(`${server.url}/#lesson/${index.json.lessons[0].id}`);
      await page.locator('#lesson-title').waitFor();
      const plan = '#plan?preset=llama-3.2-1b&device=t4';
      for (const href of [plan, '#explain'])
        await until(async () => (await page.locator(`#lesson a[href="${href}"]`).count()) > 0, 10000, `lesson 1 links ${href}`);
      await page.locator('#sec-memory').scrollIntoViewIfNeeded();
      await page.locator('#sec-memory').screenshot({ path: path.join(screenshotDir(), `lesson01-${size.name}-memory.png`) });
      // The planner link lands on the planner with the lesson's model and GPU filled in.
      await page.locator(`#lesson a[href="${plan}"]`).first().click();
      await page.locator('#plan-verdict').waitFor({ timeout: 20000 });
      assert.equal(await page.locator('#plan-preset').inputValue(), 'llama-3.2-1b', 'the lesson link fills the planner');
      assert.equal(await page.locator('#plan-profile').inputValue(), 't4');
      await page.goto(`${server.url}/#lesson/${index.json.lessons[1].id}`);
      await page.locator('#lesson-title').waitFor();
      await until(async () => (await page.locator('#lesson a[href="#doctor"]').count()) > 0, 10000,
        'lesson 2 links the profile reader');
      // The learner's own error and profile are one tap from a lesson, the
      // contents menu left closed (on a phone it starts closed), and a
      // button where the lesson talks about them.
      for (const [href, title] of [['#explain', 'Paste your error'], ['#doctor', 'Read your profile']]) {
        await page.goto(`${server.url}/#lesson/${index.json.lessons[1].id}`);
        await until(async () => (await page.locator('#lesson-title').textContent() || '').trim() === index.json.lessons[1].title,
          10000, `${size.name}: back on lesson 2`);
        const tool = page.locator(`#lesson .lesson-tools a[href="${href}"]`);
        assert.ok(await tool.isVisible(), `${size.name}: "${title}" is in view on the lesson page`);
        if (size.width < 600) assert.equal(await page.evaluate(() => document.getElementById('nav-details').open), false);
        if (href === '#doctor') await page.locator('#lesson .lesson-head').screenshot({ path: path.join(screenshotDir(), `lesson02-${size.name}-tools.png`) });
        await tool.click();
        await until(async () => (await page.locator('#lesson-title').textContent() || '').trim() === title, 10000,
          `${size.name}: one tap opens ${title}`);
      }
      const sectionButtons = [[0, 'memory', '#explain'], [0, 'debugging', '#explain'], [1, 'profiling', '#doctor']];
      for (const [l, sec, href] of sectionButtons) {
        await page.goto(`${server.url}/#lesson/${index.json.lessons[l].id}/${sec}`);
        const button = page.locator(`#sec-${sec} .go a.button[href="${href}"]`);
        await button.waitFor({ timeout: 10000 });
        await button.scrollIntoViewIfNeeded();
        assert.ok(await button.isVisible(), `${size.name}: the ${sec} section has its ${href} button in view`);
      }
      assert.deepEqual(problems, []);
    }
  });

// Every code block has a Copy button just before it; pressed from the
// keyboard, it puts the block's text on the clipboard and says so.
browserTest('a lesson code block copies from its button, from the keyboard', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t);
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  t.after(() => context.close());
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  const page = await context.newPage();
  const problems = watchPage(page);
  await page.goto(`${server.url}/#lesson/01-cuda-intuition`);
  // The whole lesson: its sections below the first screen come one a task.
  await page.locator('#lesson[aria-busy="false"]').waitFor({ state: 'attached' });
  const blocks = await page.locator('#lesson .prose pre').count();
  assert.equal(await page.locator('#lesson .prose button[data-action="copy"] + pre').count(), blocks, 'each block has its button');
  const button = page.locator('#lesson .prose button[data-action="copy"]').first();
  await button.evaluate((b) => { const fold = b.closest('details'); if (fold) fold.open = true; }); // the first block is folded
  await button.scrollIntoViewIfNeeded();
  const code = await button.evaluate((b) => b.nextElementSibling.textContent);
  assert.ok(code.length > 0);
  await button.focus();
  await page.keyboard.press('Enter');
  await until(async () => (await button.textContent()) === 'Copied', 10000, 'the button says it copied');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), code);
  assert.deepEqual(problems, []);
});
