// Accessibility and first-screen layout in a real Chromium: axe-core 4
// (tests/e2e/node_modules/axe-core, injected into the page) finds no serious
// or critical violation on lesson 1, lesson 2, #lab, #doctor (empty, and
// with a trace's answer), #yours (empty, and with a doctored kit run's
// comparison), the quiz after scoring and the instructor page, at phone and laptop width; on a 390×844 phone
// the lesson's title is within the first screen and a half, the table of
// contents starts collapsed, the GPU status is one line with its details one
// click away, and no element id appears twice.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { doctoredKit } from '../api/kit_lib.mjs';
import { REPO, browserTest, screenshotDir, setUp, startServer, until, watchPage } from './lib.mjs';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1280, height: 800 };
const T = { timeout: 240000 };


async function settled(page) {
  await until(() => page.evaluate(() => document.getElementById('lesson').getAttribute('aria-busy') === 'false' &&
    document.getElementById('gpu-body').getAttribute('aria-busy') === 'false'), 20000, 'the lesson and the GPU status');
}

// Serious and critical axe violations, as readable lines.
async function axe(page) {
  // Sections off screen skip their layout (content-visibility: auto) until
  // scrolled to; axe scrolls and reads positions faster than they settle and
  // then sees a button of the next section under a line of text. Every
  // section is laid out first, as a learner's scrolling does.
  await page.evaluate(() => { for (const s of document.querySelectorAll('.lesson-section')) s.style.contentVisibility = 'visible'; });
  await page.evaluate(AXE);
  const v = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations);
  return v.filter((x) => x.impact === 'serious' || x.impact === 'critical')
    .map((x) => `${x.impact} ${x.id}: ${x.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

async function duplicateIds(page) {
  return page.evaluate(() => {
    const seen = new Map();
    for (const el of document.querySelectorAll('[id]')) seen.set(el.id, (seen.get(el.id) || 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  });
}

browserTest('no serious or critical axe violation on every page and state, phone and laptop', T, async (t) => {
  const { server, browser } = await setUp(t);
  const lessons = (await (await fetch(`${server.url}/api/lessons`)).json()).lessons;
  for (const viewport of [PHONE, LAPTOP]) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    page.setDefaultTimeout(20000);
    const problems = watchPage(page);
    for (const hash of [`#lesson/${lessons[0].id}`, `#lesson/${lessons[1].id}`, '#lab', '#doctor']) {
      await page.goto(`${server.url}/${hash}`);
      await settled(page);
      assert.deepEqual(await axe(page), [], `${hash} at ${viewport.width}px`);
      assert.deepEqual(await duplicateIds(page), [], `${hash}: duplicate ids`);
    }
    // The profile reader with an answer (the doctor's steps table and findings).
    await page.goto(`${server.url}/#doctor`);
    await settled(page);
    await page.setInputFiles('#doctor-file', path.join(REPO, 'tests/doctor/fixtures/idle_item.json'));
    await page.locator('#doctor-status[data-state="done"]').waitFor();
    assert.deepEqual(await axe(page), [], `#doctor with an answer at ${viewport.width}px`);
    assert.deepEqual(await duplicateIds(page), [], '#doctor: duplicate ids');
    // The quiz after scoring (every question answered with its first option).
    await page.goto(`${server.url}/#lesson/${lessons[0].id}/quiz`);
    await settled(page);
    await page.locator('#quiz-form').waitFor();
    for (const fs of await page.locator('#quiz-form fieldset').all()) await fs.locator('input').first().check();
    await page.click('button[data-action="quiz-submit"]');
    await page.locator('#quiz-result').waitFor();
    assert.deepEqual(await axe(page), [], `quiz after scoring at ${viewport.width}px`);
    // The GPU details, opened.
    await page.click('#gpu-details > summary');
    assert.deepEqual(await axe(page), [], `GPU details open at ${viewport.width}px`);
    assert.deepEqual(problems, []);
    await context.close();
  }
  const page = await browser.newPage({ viewport: LAPTOP });
  await page.goto(`${server.url}/instructor.html`);
  await page.waitForLoadState('load');
  assert.deepEqual(await axe(page), [], 'instructor page');
  await page.close();
});

browserTest('on a phone the lesson comes first: title within 1.5 screens, contents collapsed, GPU status one line', T, async (t) => {
  const { server, browser } = await setUp(t);
  const page = await browser.newPage({ viewport: PHONE });
  await page.goto(`${server.url}/`);
  await settled(page);
  const top = await page.evaluate(() => document.getElementById('lesson-title').getBoundingClientRect().top + window.scrollY);
  assert.ok(top < 1.5 * PHONE.height, `the lesson title starts ${top}px down (limit ${1.5 * PHONE.height})`);
  assert.equal(await page.evaluate(() => document.getElementById('nav-details').open), false, 'contents collapsed');
  assert.equal(await page.evaluate(() => document.getElementById('gpu-details').open), false, 'GPU details closed');
  assert.match(await page.locator('#gpu-line').textContent(), /everything is simulated|experiments run on it/);
  await page.screenshot({ path: path.join(screenshotDir(), 'layout-phone-top.png') });
  // Keyboard: the summary opens the details.
  await page.focus('#gpu-details > summary');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.getElementById('gpu-details').open), true);
  await page.close();
  const laptop = await browser.newPage({ viewport: LAPTOP });
  await laptop.goto(`${server.url}/`);
  await settled(laptop);
  assert.equal(await laptop.evaluate(() => document.getElementById('nav-details').open), true, 'contents open beside the lesson');
  await laptop.screenshot({ path: path.join(screenshotDir(), 'layout-laptop-top.png') });
  await laptop.close();
});

// Your own GPU, empty and with a comparison (its figures' tables, the flags,
// both sides' charts of every experiment): a test of its own, so the page
// tour above keeps its time.
browserTest('no serious or critical axe violation on #yours, empty and with a doctored run, phone and laptop', T, async (t) => {
  const { server, browser } = await setUp(t);
  const doctored = Buffer.from(JSON.stringify(doctoredKit()));
  for (const viewport of [PHONE, LAPTOP]) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    page.setDefaultTimeout(20000);
    const problems = watchPage(page);
    await page.goto(`${server.url}/#yours`);
    await settled(page);
    assert.deepEqual(await axe(page), [], `#yours at ${viewport.width}px`);
    await page.setInputFiles('#yours-file', { name: 'doctored.json', mimeType: 'application/json', buffer: doctored });
    await page.locator('#yours-status[data-state="done"]').waitFor({ timeout: 60000 });
    assert.deepEqual(await axe(page), [], `#yours with a run at ${viewport.width}px`);
    assert.deepEqual(await duplicateIds(page), [], '#yours: duplicate ids');
    assert.deepEqual(problems, []);
    await context.close();
  }
});

browserTest('progress counts only sections seen, the contents mark the section being read, #lab bullets stay clear', T, async (t) => {
  const { server, browser } = await setUp(t);
  const page = await browser.newPage({ viewport: LAPTOP });
  await page.goto(`${server.url}/`);
  await settled(page);
  const id = await page.evaluate(() => location.hash.split('/')[1] || localStorage.getItem('gpulab.lesson'));
  const sections = await page.locator('#lesson section.lesson-section[id^="sec-"]:not(#sec-quiz):not(#sec-report)').count();
  const stored = (sid) => page.evaluate(([lid, s]) => (localStorage.getItem(`gpulab.progress.${lid}`) || '').includes(`"${s}"`),
    [id, sid.slice(4)]);
  const ids = await page.locator('#lesson section.lesson-section[id^="sec-"]:not(#sec-quiz):not(#sec-report)')
    .evaluateAll((els) => els.map((e) => e.id));
  // Jump to the quiz, then back to the first section's end: the sections in
  // between were never on screen, so they are not read.
  await page.evaluate((lid) => { location.hash = `#lesson/${lid}/quiz`; }, id);
  await until(async () => page.evaluate(() => window.scrollY > 1000), 10000, 'the jump to the quiz');
  await page.evaluate((sid) => document.getElementById(sid).scrollIntoView({ block: 'end' }), ids[0]);
  await until(() => stored(ids[0]), 10000, 'the first section read once its end is on screen');
  const after = (await page.locator('#nav-progress').textContent()).match(/(\d+) of (\d+) sections read/);
  assert.ok(after && Number(after[1]) <= 3, `a jump to the quiz counted sections never seen: ${after && after[0]}`);
  // Read on: each section counts once its end is on screen.
  for (const sid of ids) {
    await page.evaluate((s) => document.getElementById(s).scrollIntoView({ block: 'end' }), sid);
    await until(() => stored(sid), 10000, `${sid} read`);
  }
  await until(async () => new RegExp(`${sections} of ${sections} sections read`).test(await page.locator('#nav-progress').textContent()),
    10000, `${sections} of ${sections} sections read`);
  // Scroll to the third section: its contents link is the current one.
  const third = await page.locator('#lesson section.lesson-section').nth(2).getAttribute('id');
  await page.evaluate((sid) => document.getElementById(sid).scrollIntoView({ block: 'start' }), third);
  await until(async () => (await page.locator('#nav-body .nav-sections a[aria-current="location"]').getAttribute('href') || '')
    .endsWith(`/${third.slice(4)}`), 10000, 'the current section marked in the contents');
  // #lab: each bullet is drawn inside its item, so none runs into a link.
  await page.goto(`${server.url}/#lab`);
  await settled(page);
  const items = await page.locator('.lab-index li').evaluateAll((els) => els.map((li) => {
    const r = li.getBoundingClientRect();
    return { left: r.left, right: r.right, top: Math.round(r.top), marker: getComputedStyle(li, '::before').content };
  }));
  assert.ok(items.length > 3);
  for (let i = 1; i < items.length; i++) {
    assert.match(items[i].marker, /•/);
    if (items[i].top === items[i - 1].top) assert.ok(items[i].left >= items[i - 1].right, 'items on a row do not overlap');
  }
});
