// "Download trace" on a result: the page builds the Chrome trace from the
// envelope it shows (lab/trace/trace_export.c in wasm) and offers it as a file;
// the file is a valid trace of that run, says it was simulated, and a
// result without a timeline has no button. Screenshots at 390 and 1280 px.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { browserTest, screenshotDir, setUp, until, watchPage } from './lib.mjs';

const T = { timeout: 180000 };

async function runOn(page, url, name) {
  await page.goto(`${url}/#lab/${name}`);
  await page.locator(`#exp-${name}`).waitFor();
  await page.selectOption(`#exp-${name}-target`, 't4');
  if (name === 'crossover') await page.fill('#exp-crossover-f-max_size', '128');
  await page.click(`#exp-${name}-run`);
  const out = page.locator(`#exp-${name}-out`);
  await until(async () => (await out.getAttribute('aria-busy')) === 'false' &&
    (await out.locator('.exp-source, .exp-failure').count()) > 0, 60000, `${name} result`);
  return out;
}

async function download(page, out) {
  const [dl] = await Promise.all([page.waitForEvent('download'), out.getByRole('button', { name: 'Download trace' }).click()]);
  const file = await dl.path();
  return { name: dl.suggestedFilename(), trace: JSON.parse(readFileSync(file, 'utf8')) };
}

for (const [label, viewport] of [['phone', { width: 390, height: 844 }], ['laptop', { width: 1280, height: 900 }]]) {
  browserTest(`download_trace_gives_a_valid_trace_of_the_shown_run_${label}`, T, async (t) => {
    const { server, browser } = await setUp(t);
    const context = await browser.newContext({ viewport, acceptDownloads: true });
    const page = await context.newPage();
    page.setDefaultTimeout(20000);
    const problems = watchPage(page);
    const out = await runOn(page, server.url, 'timing');
    assert.match(await out.locator('.exp-trace').textContent(), /ui\.perfetto\.dev.*chrome:\/\/tracing/);
    await page.locator('#exp-timing').screenshot({ path: path.join(screenshotDir(), `trace-button-${label}.png`) });
    const { name, trace } = await download(page, out);
    assert.equal(name, 'gpulab-timing.trace.json');
    assert.equal(trace.otherData.backend, 'simulated');
    assert.equal(trace.otherData.profile, 't4');
    assert.match(trace.otherData.source, /not a measurement/);
    const x = trace.traceEvents.filter((e) => e.ph === 'X');
    assert.ok(x.length > 0 && x.every((e) => e.dur >= 0 && e.ts >= 0 && e.name && e.pid && e.tid));
    const named = new Set(trace.traceEvents.filter((e) => e.name === 'thread_name').map((e) => `${e.pid}/${e.tid}`));
    assert.ok(x.every((e) => named.has(`${e.pid}/${e.tid}`)), 'every thread named');
    assert.equal(trace.traceEvents.filter((e) => e.ph === 's').length, trace.traceEvents.filter((e) => e.ph === 'f').length);
    if (label === 'laptop') {
      const mem = await runOn(page, server.url, 'allocator');
      const m = await download(page, mem);
      assert.ok(m.trace.traceEvents.some((e) => e.ph === 'C' && 'allocated' in e.args && 'reserved' in e.args));
      const cross = await runOn(page, server.url, 'crossover');
      assert.equal(await cross.getByRole('button', { name: 'Download trace' }).count(), 0, 'no timeline, no button');
    }
    assert.deepEqual(problems, []);
  });
}
