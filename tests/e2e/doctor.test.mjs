// The "Read your profile" page (#doctor) in a real Chromium, offline: after
// one visit the service worker has the page and the doctor module; with
// the server stopped, a profiler trace set on the file input (and one
// dropped on the drop zone) is read in the browser's worker, the progress
// bar reaches its end, and the answer shows the idle step's finding (idle
// 70 %, .item()) with its lesson link and its experiment pre-filled; a .gz
// is inflated in the worker; a file that is no trace shows the doctor's
// stable code, a gzip bomb too; a large read keeps the page painting and
// stops on Cancel. Every request is watched: none carries the file anywhere.
// The gap the finding names is marked on the timeline, and a long step
// (800 spans) is drawn span by span at 390 px without widening the page, nor
// does a CPU trace whose longest call (the data loader's __next__) is named,
// nor a gap's host operator drawn on its own lane.
// Screenshots at 390 and 1280 px wide go to build/screenshots/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

import { REPO, browserTest, testBrowser, screenshotDir, startServer, until, watchPage } from './lib.mjs';

const offlineNoise = (text) => /Failed to load resource|ERR_CONNECTION_REFUSED|net::ERR_FAILED/.test(text);
const FIX = path.join(REPO, 'tests/doctor/fixtures');

// After one visit, the service worker's cache holds the doctor module.
async function visitOnce(page, url) {
  await page.goto(`${url}/#lesson/01-cuda-intuition`);
  await page.locator('#lesson-title').waitFor();
  await page.evaluate(() => navigator.serviceWorker.ready);
  await until(() => page.evaluate(() => !!navigator.serviceWorker.controller), 15000, 'the page to be controlled');
  await until(() => page.evaluate(async () => {
    for (const n of await caches.keys()) if (await (await caches.open(n)).match('/gpulab_reader.wasm')) return true;
    return false;
  }), 15000, 'the doctor module in the cache');
}

async function answered(page, state = 'done') {
  await until(async () => (await page.locator('#doctor-status').getAttribute('data-state')) !== 'reading', 30000, 'the reader to finish');
  const got = await page.locator('#doctor-status').getAttribute('data-state');
  if (got !== state) throw new Error(`reader ended ${got}: ${await page.locator('#doctor-out').textContent()}`);
}

// A file dropped on the drop zone, as a browser's drag and drop delivers it.
async function drop(page, bytes, name, type) {
  const dt = await page.evaluateHandle(({ b64, name, type }) => {
    const raw = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const t = new DataTransfer();
    t.items.add(new File([raw], name, { type }));
    return t;
  }, { b64: bytes.toString('base64'), name, type });
  await page.dispatchEvent('#doctor-drop', 'dragover', { dataTransfer: dt });
  await page.dispatchEvent('#doctor-drop', 'drop', { dataTransfer: dt });
}

browserTest('a trace is read offline in the browser: progress, findings, lesson link, gz and errors, nothing sent', { timeout: 180000 }, async (t) => {
  const browser = await testBrowser();
  t.after(() => browser.close());
  const shots = screenshotDir();
  for (const [width, height, tag] of [[1280, 860, 'laptop'], [390, 844, 'phone']]) {
    const server = await startServer();
    t.after(() => server.stop());
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    page.setDefaultTimeout(20000);
    const problems = watchPage(page, offlineNoise);
    await visitOnce(page, server.url);
    assert.equal(await page.locator('a[href="#doctor"]').count() > 0, true, 'the nav links the page');
    await server.stop(); // the network to the server is cut from here on
    const sent = [];
    context.on('request', (r) => sent.push({ url: r.url(), method: r.method(), body: (r.postDataBuffer() || Buffer.alloc(0)).length }));
    await page.reload();
    await page.locator('#lesson-title').waitFor();
    await page.evaluate(() => { location.hash = '#doctor'; });
    await page.locator('#doctor-drop').waitFor();
    assert.match(await page.locator('.lesson-head').textContent(), /read in your browser: nothing is uploaded/i);
    assert.match(await page.locator('label[for="doctor-file"]').textContent(), /Choose a trace file/);

    // the file picker
    await page.setInputFiles('#doctor-file', path.join(FIX, 'idle_item.json'));
    await answered(page);
    const prog = await page.evaluate(() => { const p = document.getElementById('doctor-progress'); return [p.value, p.max]; });
    assert.ok(prog[1] === readFileSync(path.join(FIX, 'idle_item.json')).length && prog[0] === prog[1], `progress at its end: ${prog}`);
    const idle = page.locator('article[data-id="gpu_idle"]');
    assert.match(await idle.textContent(), /idle 70\s?%/);
    assert.match(await idle.textContent(), /\.item\(\)/);
    assert.match(await idle.locator('.badge').textContent(), /measured/);
    assert.equal(await idle.locator('a.explain-lesson').getAttribute('href'), '#lesson/01-cuda-intuition/async');
    assert.match(await idle.locator('button[data-action="doctor-open"]').textContent(), /log_every = 10, from your trace/);
    assert.equal(await page.locator('table.doctor-steps tbody tr').count(), 5);
    // the gap's row names the operator the host was in and the call inside it that waited
    assert.match(await page.locator('table.doctor-steps').textContent(), /7\.000 ms \(item, in aten::item → cudaStreamSynchronize\)/);
    // the idlest step drawn as the experiments draw their timelines: the host lane and the GPU's stream
    assert.equal(await page.locator('#doctor-timeline').count(), 1);
    const tl = page.locator('.chart-timeline').first();
    await tl.waitFor();
    assert.match(await page.locator('#doctor-out').textContent(), /ProfilerStep#12 on a timeline/);
    await tl.scrollIntoViewIfNeeded();
    await tl.screenshot({ path: path.join(shots, `doctor-${tag}-timeline.png`) });
    await page.evaluate(() => document.getElementById('doctor-drop').scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: path.join(shots, `doctor-${tag}.png`), fullPage: false });
    await page.evaluate(() => document.getElementById('doctor-findings').scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: path.join(shots, `doctor-${tag}-answer.png`), fullPage: false });
    await idle.screenshot({ path: path.join(shots, `doctor-${tag}-finding.png`) });
    // the gap the finding names is marked on the timeline, and the page fits the screen
    assert.match(await tl.textContent(), /the gap the finding\s*is about begins.*the gap ends/); // a label may wrap
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, 'the page widens the screen');
    if (width === 390) {
      // a long step: every span the doctor sends is drawn (800: 400 launches and their 400 kernels, over the
      // page's old cap of 256), still without widening a phone screen
      await page.setInputFiles('#doctor-file', path.join(FIX, 'launch_bound.json'));
      await until(async () => /ProfilerStep#0 on a timeline/.test(await page.locator('#doctor-out').textContent()), 30000,
        'the long step drawn');
      const drawn = await page.evaluate(() => document.querySelector('.chart-timeline').closest('figure')
        .querySelectorAll('table tbody tr').length);
      assert.equal(drawn, 800, 'every span of the long step');
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true,
        'the long step widens the screen');
      // a gap the host spent in one operator: the finding names it and the timeline gives it a lane of its own
      await page.setInputFiles('#doctor-file', path.join(FIX, 'flows_gap.json'));
      await until(async () => /ProfilerStep#3 on a timeline/.test(await page.locator('#doctor-out').textContent()), 30000,
        'the operator\'s step drawn');
      assert.match(await page.locator('article[data-id="gpu_idle"]').textContent(), /in a CPU operator, aten::index/);
      const fig = await page.evaluate(() => document.querySelector('.chart-timeline').closest('figure').textContent);
      assert.match(fig, /CPU operator named/);
      assert.match(fig, /aten::index/);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true,
        'the operator\'s lane widens the screen');
    }
    if (width === 1280) {
      // the experiment opens in place with the trace's parameters
      await idle.locator('button[data-action="doctor-open"]').click();
      await page.locator('#exp-profile-f-log_every').waitFor();
      assert.equal(await page.locator('#exp-profile-f-log_every').inputValue(), '10');
      await page.locator('#doctor-exp-0').screenshot({ path: path.join(shots, 'doctor-laptop-experiment.png') });
    }

    // a drop on the drop zone, a .json.gz inflated in the worker
    await drop(page, readFileSync(path.join(FIX, 'cpu_train.json.gz')), 'cpu_train.json.gz', 'application/gzip');
    await answered(page);
    const cpuOnly = page.locator('article[data-id="cpu_only"]');
    assert.match(await cpuOnly.textContent(), /no GPU events/);
    // its step's longest call named: a 60-character name that must wrap, not widen a phone's screen
    assert.match(await cpuOnly.textContent(), /in one enumerate\(DataLoader\)#_SingleProcessDataLoaderIter\.__next__/);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true,
      'a long operator name widens the screen');
    // a plain .json dropped too
    await drop(page, readFileSync(path.join(FIX, 'launch_bound.json')), 'launch_bound.json', 'application/json');
    await answered(page);
    assert.equal(await page.locator('article[data-id="launch_bound"]').count(), 1);

    // files that are no trace: the doctor's stable codes
    await drop(page, Buffer.from('{"hello": [1, 2, 3]}'), 'notes.json', 'application/json');
    await answered(page, 'failed');
    assert.match(await page.locator('#doctor-error').textContent(), /^doctor_not_trace: /);
    const gz = readFileSync(path.join(FIX, 'cpu_train.json.gz'));
    await drop(page, gz.subarray(0, gz.length >> 1), 'cut.json.gz', 'application/gzip');
    await answered(page, 'failed');
    assert.match(await page.locator('#doctor-error').textContent(), /^doctor_bad_gzip: /);
    await drop(page, Buffer.from('{"traceEvents": [{"ph": "X", "name": "a", "ts": 1'), 'cut.json', 'application/json');
    await answered(page, 'failed');
    assert.match(await page.locator('#doctor-error').textContent(), /^doctor_truncated: /);
    await page.screenshot({ path: path.join(shots, `doctor-${tag}-error.png`), fullPage: false });

    if (width === 1280) {
      // not JSON at all, and a name over 64 KiB
      await drop(page, Buffer.from('{"traceEvents": [}'), 'bad.json', 'application/json');
      await answered(page, 'failed');
      assert.match(await page.locator('#doctor-error').textContent(), /^doctor_not_trace: Not JSON at byte \d+/);
      await drop(page, Buffer.from(`{"traceEvents": [{"ph": "X", "name": "${'a'.repeat(70000)}", "ts": 1, "dur": 1}]}`),
        'long.json', 'application/json');
      await answered(page, 'failed');
      assert.match(await page.locator('#doctor-error').textContent(), /^doctor_name_too_long: /);
      // a gzip bomb (80 MiB of blanks in 80 KB) is refused as one, by the same rule as the server's
      await drop(page, gzipSync(Buffer.alloc(80 << 20, 0x20)), 'bomb.json.gz', 'application/gzip');
      await answered(page, 'failed');
      assert.match(await page.locator('#doctor-error').textContent(), /^doctor_gzip_bomb: /);
      // a large trace (200 MB, made in the page) reads in the worker: the page
      // keeps painting frames, and Cancel stops the read
      await page.evaluate(() => {
        const ev = '{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":1,"dur":1},'.repeat(14000);
        const chunk = new TextEncoder().encode(ev);
        const parts = ['{"traceEvents":['];
        for (let n = 0; n < (200 << 20) / chunk.length; n++) parts.push(chunk);
        parts.push('{"ph":"X","name":"end","ts":2,"dur":1}]}');
        const t = new DataTransfer();
        t.items.add(new File(parts, 'big.json', { type: 'application/json' }));
        document.getElementById('doctor-drop').dispatchEvent(new DragEvent('drop', { dataTransfer: t, bubbles: true, cancelable: true }));
      });
      await until(async () => Number(await page.locator('#doctor-progress').getAttribute('value')) > 0, 30000, 'the first progress');
      const frame = await page.evaluate(() => new Promise((r) => { const t0 = performance.now(); requestAnimationFrame(() => r(performance.now() - t0)); }));
      assert.ok(frame < 1000, `a frame while reading came after ${frame} ms`);
      assert.match(await page.locator('#doctor-progress-text').textContent(), /Reading .* of 2\d\d MB/);
      await page.screenshot({ path: path.join(shots, 'doctor-laptop-reading.png'), fullPage: false });
      await page.click('#doctor-cancel');
      assert.equal(await page.locator('#doctor-status').getAttribute('data-state'), 'cancelled');
      assert.equal(await page.evaluate(() => globalThis.gpulabDoctor.worker), null, 'the worker is gone');
      assert.equal(await page.locator('#doctor-out article').count(), 0);
    }

    // nothing was sent: the server is gone, and no request carried a body or went to /api/doctor
    assert.deepEqual(sent.filter((r) => r.method !== 'GET' || r.body > 0 || /\/api\/doctor/.test(r.url)), []);
    assert.deepEqual(problems, []);
    await context.close();
  }
});
