// The crossover experiment in a real Chromium against the real server, on
// every profile: the headline says who was faster at each size against the
// best CPU line the result holds (the server's OpenBLAS line once it
// joins the browser's own), names that line, and tells the lesson's story:
// the CPU wins tiny work (N = 16) and the GPU wins for good from some size
// on, at 256 at the latest (against a 2-core OpenBLAS server it is 64 to
// 128; a faster CPU moves it up, never below 32). The findings name the
// same crossover. Each CPU line is labelled by where it ran.
import assert from 'node:assert/strict';
import path from 'node:path';

import { browserTest, getJson, screenshotDir, setUp, until, watchPage } from './lib.mjs';

const TEST_TIMEOUT = 600000;
const MAX_SIZE = 256; // 16, 32, 64, 128, 256: the crossover and beyond it, with a short real CPU part

// "the CPU at N = 16 and 32; the GPU at N = 64, 128 and 256" → {16: 'cpu', ...}
function winners(text) {
  const out = {};
  for (const m of text.matchAll(/the (CPU|GPU) at N = ([0-9, and]+)/g)) {
    for (const n of m[2].split(/,|and/).map((s) => s.trim()).filter(Boolean)) out[Number(n)] = m[1].toLowerCase();
  }
  return out;
}

browserTest('crossover headline on every profile: against the best CPU, the CPU wins at N = 16 and the GPU from N <= 256 on', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t);
  const profiles = (await getJson(`${server.url}/api/profiles`)).json.profiles.map((p) => p.name);
  assert.ok(profiles.length >= 5, 'the server lists its profiles');
  const problems = [];
  const seen = [];
  for (const profile of profiles) {
    // A fresh context each time: no result remembered from the profile before.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    t.after(() => context.close());
    const page = await context.newPage();
    page.setDefaultTimeout(20000);
    const pageProblems = watchPage(page);
    await page.goto(`${server.url}/#lab/crossover`);
    await page.locator('#exp-crossover').waitFor();
    await page.selectOption('#exp-crossover-target', profile);
    await page.fill('#exp-crossover-f-max_size', String(MAX_SIZE));
    await page.click('#exp-crossover-run');
    const out = page.locator('#exp-crossover-out');
    // The browser's own run first, then the server's BLAS line joins and the verdict is written again.
    const headline = out.locator('.exp-headline[data-cpu="cpu_server"]');
    await until(async () => (await headline.count()) > 0, 120000, `${profile}: the headline against the server's CPU`);
    const text = (await headline.textContent()).trim();
    seen.push(`${profile}: ${text}`);
    assert.match(text, /against the best CPU here \(Server CPU sgemm \(OpenBLAS [0-9.]+ cblas_sgemm, [0-9]+ threads?\)\)/,
      `${profile}: the headline names the server's BLAS line: ${text}`);
    const who = winners(text);
    assert.deepEqual(Object.keys(who).map(Number).sort((a, b) => a - b), [16, 32, 64, 128, 256], text);
    assert.equal(who[16], 'cpu', `${profile}: the CPU wins tiny work: ${text}`);
    const from = Math.min(...Object.keys(who).map(Number).filter((n) => Object.keys(who).map(Number)
      .filter((m) => m >= n).every((m) => who[m] === 'gpu')));
    assert.ok(from >= 32 && from <= 256, `${profile}: the GPU wins for good from some N up to 256 (${from}): ${text}`);
    // The findings tell the same comparison: the crossover they name is the headline's.
    const findings = await out.locator('ul.findings').textContent();
    assert.match(findings, new RegExp(`the GPU with the data on it won from N = ${from} on`), `${profile}: ${findings}`);
    assert.match(findings, /tiny work loses on a GPU/);
    assert.doesNotMatch(findings, /slower still/);
    // Every CPU line says where it ran.
    const sources = await out.locator('.exp-series-sources').textContent();
    assert.match(sources, /measured in your browser\s*CPU sgemm \(your browser, one thread\)/); // plain words, not "f32x4"
    assert.doesNotMatch(await out.locator('.legend').textContent(), /WebAssembly|SIMD|f32x4/);
    assert.match(sources, /measured on the server's CPU\s*Server CPU sgemm \(OpenBLAS/);
    if (profile === 'h100-sxm' || profile === 't4') {
      await page.locator('#exp-crossover').screenshot({ path: path.join(screenshotDir(), `crossover-${profile}.png`) });
    }
    problems.push(...pageProblems);
    await context.close();
  }
  t.diagnostic(seen.join('\n'));
  assert.deepEqual(problems, []);
});

// A result never changes its mind: the page records every headline and
// status the widget shows; once the status says "Done" the headline is
// the one that stays, and any headline shown before it (the browser's lines
// alone) is marked provisional. The server's line is held back 1.5 s, so
// the browser's part is always on screen first.
browserTest('crossover says Done once, with the headline that stays; before it the headline is provisional', { timeout: 180000 }, async (t) => {
  const { server, browser } = await setUp(t);
  // serviceWorkers 'block': a request the service worker handled would bypass page.route.
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, serviceWorkers: 'block' });
  t.after(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  const problems = watchPage(page);
  let held = 0;
  await page.route('**/api/experiments/crossover', async (route) => {
    held++;
    await new Promise((r) => setTimeout(r, 1500));
    await route.continue();
  });
  await page.goto(`${server.url}/#lab/crossover`);
  await page.locator('#exp-crossover').waitFor();
  await page.fill('#exp-crossover-f-max_size', '128');
  await page.evaluate(() => {
    window.seenStates = [];
    const note = () => {
      const status = document.getElementById('exp-crossover-status');
      const h = document.querySelector('#exp-crossover-out .exp-headline');
      const state = {
        status: status ? status.textContent : '',
        headline: h ? h.textContent : null,
        provisional: h ? h.getAttribute('data-provisional') === 'true' : null,
      };
      const last = window.seenStates[window.seenStates.length - 1];
      if (!last || last.status !== state.status || last.headline !== state.headline) window.seenStates.push(state);
    };
    new MutationObserver(note).observe(document.getElementById('exp-crossover'), { subtree: true, childList: true, characterData: true });
  });
  await page.click('#exp-crossover-run');
  const out = page.locator('#exp-crossover-out');
  await until(async () => (await out.locator('.exp-headline[data-cpu="cpu_server"]').count()) > 0 &&
    /^Done/.test(await page.locator('#exp-crossover-status').textContent()), 120000, 'the run done with the server line');
  await new Promise((r) => setTimeout(r, 1000)); // anything that would still change it
  const states = await page.evaluate(() => window.seenStates);
  assert.ok(held >= 1, 'the server was asked for its CPU line');
  const done = states.findIndex((s) => /^Done/.test(s.status));
  assert.ok(done >= 0, JSON.stringify(states));
  const final = states[done].headline;
  assert.ok(final && !states[done].provisional, `Done comes with the final headline: ${JSON.stringify(states[done])}`);
  for (const s of states.slice(done)) assert.equal(s.headline, final, `the headline changed after Done: ${JSON.stringify(states)}`);
  const before = states.slice(0, done).filter((s) => s.headline);
  assert.ok(before.length > 0, 'the browser part was shown before the server line came');
  for (const s of before) assert.ok(s.provisional && /Provisional/.test(s.headline), `shown before Done, not marked: ${JSON.stringify(s)}`);
  assert.match(await page.locator('#exp-crossover-status').textContent(), /^Done/);
  await page.locator('#exp-crossover').screenshot({ path: path.join(screenshotDir(), 'crossover-done-390.png') });
  assert.deepEqual(problems, []);
});

// Without the server's line (its requests fail, as offline), the verdict is
// against the browser's own CPU: one WebAssembly thread of the SIMD kernel
// still beats every profile's GPU at N = 16, as a real CPU does.
browserTest('crossover in the browser alone: one WebAssembly thread beats the GPU at N = 16 on every profile', { timeout: TEST_TIMEOUT }, async (t) => {
  const { server, browser } = await setUp(t);
  const profiles = (await getJson(`${server.url}/api/profiles`)).json.profiles.map((p) => p.name);
  const problems = [];
  const seen = [];
  for (const profile of profiles) {
    // serviceWorkers 'block': a request the service worker handled would bypass page.route.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
    t.after(() => context.close());
    const page = await context.newPage();
    page.setDefaultTimeout(20000);
    const pageProblems = watchPage(page, (text) => /Failed to load resource/.test(text));
    await page.route('**/api/experiments/crossover', (route) => route.abort());
    await page.goto(`${server.url}/#lab/crossover`);
    await page.locator('#exp-crossover').waitFor();
    await page.selectOption('#exp-crossover-target', profile);
    await page.fill('#exp-crossover-f-max_size', '64');
    const out = page.locator('#exp-crossover-out');
    // The browser's CPU is timed for real (the median of 2 ms batches in a
    // Web Worker). The other e2e file, run beside this one on the two
    // cores, can hold that worker off the CPU for most batches of a run
    // (in one whole make test: 16 against 64 on rtx-4090), so a run whose
    // N = 16 went to the GPU is run again, at most ATTEMPTS times in all;
    // the claim is about what the CPU can do, which a run slowed by others
    // does not disprove. Every attempt is in the diagnostics.
    const ATTEMPTS = 3;
    let text = '';
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      // the last attempt's headline taken away, so the one waited for is the new run's
      await out.evaluate((el) => el.querySelectorAll('.exp-headline').forEach((h) => h.remove()));
      await page.click('#exp-crossover-run');
      await until(async () => (await out.getAttribute('aria-busy')) === 'false' &&
        (await out.locator('.exp-headline[data-cpu="cpu"]').count()) > 0, 60000, `${profile}: the browser's verdict`)
        .catch(async (e) => { throw new Error(`${e.message}; the widget shows: ${(await out.textContent()).slice(0, 1500)}`); });
      text = (await out.locator('.exp-headline').textContent()).trim();
      seen.push(`${profile} (attempt ${attempt}): ${text}`);
      if (winners(text)[16] === 'cpu') break;
    }
    assert.match(text, /against the best CPU here \(CPU sgemm \(your browser, one thread\)/);
    assert.equal(winners(text)[16], 'cpu', `${profile}, after ${ATTEMPTS} runs: ${text}`);
    assert.match(await out.locator('ul.findings').textContent(), /At N = 16 the CPU needed [0-9.]+ µs but the GPU/);
    problems.push(...pageProblems);
    await context.close();
  }
  t.diagnostic(seen.join('\n'));
  assert.deepEqual(problems, []);
});
