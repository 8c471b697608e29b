// The "Paste your error" page in a real Chromium, offline: after one visit
// the service worker serves the app; with the server stopped, a pasted OOM
// message is explained in the browser (the same C as `gpulab explain`, in
// the reader module's Web Worker, gpulab_reader.wasm, not in the page's
// module; "Explaining…" with aria-busy until the answer is in; an error's
// JSON drawn as an alert): the memory bar with its labelled parts, the diagnosis, and a link
// to lesson 1's memory section; the experiment opens on the lab page
// (#lab/memory?…) pre-filled from the text; a Mac's MPS out-of-memory and
// an AMD card's HIP error get their platform's advice without widening a
// phone screen. Screenshots
// at 390 and 1280 px wide go to build/screenshots/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { REPO, browserTest, testBrowser, screenshotDir, startServer, until, watchPage } from './lib.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const offlineNoise = (text) => /Failed to load resource|ERR_CONNECTION_REFUSED|net::ERR_FAILED/.test(text);
const OOM = readFileSync(path.join(REPO, 'tests/explain/own/004-oom-new-too-much.txt'), 'utf8');
const FRAG = readFileSync(path.join(REPO, 'tests/explain/own/003-oom-old-fragmentation.txt'), 'utf8');

browserTest('a pasted oom is explained offline with the memory bar and the lesson link', { timeout: 120000 }, async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const browser = await testBrowser();
  t.after(() => browser.close());
  const shots = screenshotDir();
  for (const [width, height, name] of [[1280, 860, 'explain-laptop.png'], [390, 844, 'explain-phone.png']]) {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    page.setDefaultTimeout(15000);
    const problems = watchPage(page, offlineNoise);
    await page.goto(`${server.url}/#lesson/01-cuda-intuition`);
    await page.locator('#lesson-title').waitFor();
    await page.evaluate(() => navigator.serviceWorker.ready);
    await until(() => page.evaluate(() => !!navigator.serviceWorker.controller), 10000, 'the page to be controlled');
    // reached from the lesson list
    assert.equal(await page.locator('a[href="#explain"]').count() > 0, true, 'the nav links the page');
    if (width === 390) await server.stop(); // offline for the second visit (the cache is per context)
    if (width === 390) {
      await page.reload();
      await page.locator('#lesson-title').waitFor();
    }
    await page.evaluate(() => { location.hash = '#explain'; });
    await page.locator('#explain-text').waitFor();
    await page.fill('#explain-text', width === 390 ? FRAG : OOM);
    // each change of the answer's box: its aria-busy, and whether "Explaining…" shows
    await page.evaluate(() => {
      const out = document.getElementById('explain-out');
      window.explainStates = [];
      new MutationObserver(() => window.explainStates.push(`${out.getAttribute('aria-busy')}:${!!document.getElementById('explain-wait')}`))
        .observe(out, { attributes: true, childList: true });
    });
    await page.click('button[data-action="explain-run"]');
    const item = page.locator('#explain-item-0');
    await item.waitFor();
    const states = await page.evaluate(() => window.explainStates);
    assert.equal(states[0], 'true:true', `"Explaining…" while busy first: ${states}`);
    assert.equal(states[states.length - 1], 'false:false', `the answer, not busy: ${states}`);
    assert.equal(await page.evaluate(() => !!(globalThis.gpulabExplain && globalThis.gpulabExplain.worker)), true,
      'explained by the reader module\'s worker');
    assert.equal(await item.getAttribute('data-kind'), 'oom');
    assert.equal(await page.locator('#explain-item-0 svg.explain-bar-svg rect').count() >= 3, true, 'the bar has parts');
    const legend = await page.locator('#explain-item-0 .explain-legend').textContent();
    assert.match(legend, /this process's tensors/);
    assert.match(legend, /free/);
    assert.match(legend, width === 390 ? /20\.00 MiB/ : /19\.68 GiB/);
    assert.equal(await page.locator('#explain-item-0 a.explain-lesson').getAttribute('href'), '#lesson/01-cuda-intuition/memory');
    await page.screenshot({ path: path.join(shots, name), fullPage: false });
    await page.locator('#explain-item-0 .explain-bar').screenshot({ path: path.join(shots, name.replace('.png', '-bar.png')) });
    if (width === 1280) {
      // the legend's swatches are filled squares with no line sample's top border (the request's: its own 1px)
      assert.deepEqual(await page.$$eval('#explain-item-0 .explain-legend .swatch:not(.bar-request)',
        (els) => [...new Set(els.map((el) => getComputedStyle(el).borderTopWidth))]), ['0px']);
      // the memory experiment opens on the lab page, #lab/memory, pre-filled with the model the text
      // names (gpt2-large: 774 M) from the link's query; Back returns to the answer's page
      const open = page.locator('#explain-item-0 a.explain-open');
      await page.locator('#explain-item-0 .explain-links').screenshot({ path: path.join(shots, 'explain-laptop-links.png') });
      assert.match(await open.getAttribute('href'), /^#lab\/memory\?(.*&)?params_m=774(&|$)/);
      await open.click();
      await until(() => page.evaluate(() => location.hash.startsWith('#lab/memory?')), 15000, 'the lab page of memory');
      await page.locator('#exp-memory-f-params_m').waitFor();
      assert.equal(await page.locator('#exp-memory-f-params_m').inputValue(), '774');
      assert.equal(await page.locator('#exp-memory-f-layers').inputValue(), '36');
      assert.equal(await page.locator('.experiment[data-experiment]').count(), 1, 'the one experiment, as #lab/NAME shows it');
      await page.locator('.experiment[data-experiment="memory"]').screenshot({ path: path.join(shots, 'explain-laptop-experiment.png') });
      await page.goBack();
      await page.locator('#explain-text').waitFor();
      // a collect_env dump: the device check's layers, the driver marked as the one that failed
      await page.fill('#explain-text', readFileSync(path.join(REPO, 'tests/explain/own/026-collect_env-driver-too-old.txt'), 'utf8'));
      await page.click('button[data-action="explain-run"]');
      await page.locator('#explain-item-0 table.explain-layers').waitFor();
      assert.match(await page.locator('#explain-item-0 tr.layer-failed').textContent(), /driver.*470\.182\.03.*failed/);
      await page.locator('#explain-item-0').screenshot({ path: path.join(shots, 'explain-laptop-layers.png') });
      // several messages at once, each an item; no serious axe violation, no duplicate id
      await page.fill('#explain-text', `${OOM}\n${FRAG}\nTypeError: can't convert cuda:0 device type tensor to numpy.\n`);
      await page.click('button[data-action="explain-run"]');
      await page.locator('#explain-item-2').waitFor();
      assert.equal(await page.locator('#explain-item-2').getAttribute('data-kind'), 'device_mismatch');
      await page.evaluate(AXE);
      const v = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations);
      assert.deepEqual(v.filter((x) => x.impact === 'serious' || x.impact === 'critical').map((x) => x.id), []);
      assert.deepEqual(await page.evaluate(() => {
        const seen = new Map();
        for (const el of document.querySelectorAll('[id]')) seen.set(el.id, (seen.get(el.id) || 0) + 1);
        return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
      }), []);
      // an error answer (white space only: explain_empty) comes back from the worker as the error's JSON, drawn as an alert
      await page.fill('#explain-text', '   \n ');
      await page.click('button[data-action="explain-run"]');
      await page.locator('#explain-out p.exp-failure[role="alert"]').waitFor();
      assert.match(await page.locator('#explain-out').textContent(), /Paste the error message/);
      await page.fill('#explain-text', OOM);
      await page.click('button[data-action="explain-run"]');
      await page.locator('#explain-item-0').waitFor();
      // the lesson link leads to the memory section
      await page.click('#explain-item-0 a.explain-lesson');
      await until(() => page.evaluate(() => document.activeElement && document.activeElement.id === 'sec-memory'), 15000,
        'the memory section focused');
    }
    if (width === 390) {
      // a Mac's and an AMD card's messages (real ones, tests/explain/cases/): the advice follows the platform
      // (no nvidia-smi, no CUDA wheel), the MPS bar is the allocator's limit, and no long word widens the phone screen
      for (const [file, kind, want] of [['156-mps_oom-gb-sd-extension.txt', 'mps_oom', /PYTORCH_MPS_HIGH_WATERMARK_RATIO/],
        ['196-hip-invalid-device-function-ddp-broadcast.txt', 'hip', /rocminfo/]]) {
        await page.fill('#explain-text', readFileSync(path.join(REPO, 'tests/explain/cases', file), 'utf8'));
        await page.click('button[data-action="explain-run"]');
        await until(async () => (await item.getAttribute('data-kind')) === kind, 15000, `the ${kind} answer`);
        const steps = await page.locator('#explain-item-0 .explain-steps').textContent();
        assert.match(steps, want);
        assert.doesNotMatch(steps, /nvidia-smi|cu12[0-9]|cu11[0-9]|\(\?\)/, `${kind}: CUDA advice or a placeholder`);
        assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true,
          `${kind}: the answer widens the 390 px page`);
        await page.screenshot({ path: path.join(shots, `explain-phone-${kind}.png`), fullPage: true });
      }
      assert.match(await page.locator('#explain-item-0').textContent(), /ROCm/);
    }
    assert.deepEqual(problems, []);
    await context.close();
  }
});
