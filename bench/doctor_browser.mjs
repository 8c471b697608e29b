// The page's trace reader (#doctor) on a large trace in headless Chromium:
// the file is set on the page's file input from disk (CDP hands Chromium
// the path; nothing is copied into the test), read by the doctor module in
// its Web Worker (web/reader_worker.js) and answered on the page. Reports
// the time from the file's arrival (the input's change event, stamped in
// the page) to the answer on the page (the status turns "done", stamped by
// a MutationObserver in the page: no polling in the figure), the worker's
// wasm memory at the end (it only grows: the reader's peak), the page's JS
// heap (CDP Performance.getMetrics) and the peak RSS of Chromium's renderer
// processes (the page and its workers), sampled from /proc every 100 ms.
// Usage: node bench/doctor_browser.mjs BUILD TRACE
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync, readdirSync, statSync } from 'node:fs';

const require = createRequire(new URL('../tests/e2e/package.json', import.meta.url));
const { chromium } = require('playwright-core');
const [build = 'build', trace] = process.argv.slice(2);
if (!trace) {
  console.error('usage: node bench/doctor_browser.mjs BUILD TRACE');
  process.exit(2);
}

const server = spawn(`${build}/bin/gpulab`, ['serve', '--host', '127.0.0.1', '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
const port = await new Promise((res, rej) => {
  const t = setTimeout(() => rej(new Error('server did not start')), 15000);
  server.stdout.on('data', (d) => {
    const m = String(d).match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
    if (m) { clearTimeout(t); res(Number(m[1])); }
  });
});

// Chromium's renderer processes under the browser process, and their RSS.
function renderers(root) {
  const kids = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      (kids.get(ppid) || kids.set(ppid, []).get(ppid)).push(Number(name));
    } catch { /* gone */ }
  }
  const out = [], todo = [root];
  while (todo.length) {
    const p = todo.pop();
    for (const k of kids.get(p) || []) {
      todo.push(k);
      try {
        if (readFileSync(`/proc/${k}/cmdline`, 'utf8').includes('--type=renderer')) out.push(k);
      } catch { /* gone */ }
    }
  }
  return out;
}
function rssBytes(pid) {
  try {
    const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
    return m ? Number(m[1]) * 1024 : 0;
  } catch { return 0; }
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
let peakRss = 0, sampler = null;
try {
  const page = await browser.newPage();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.goto(`http://127.0.0.1:${port}/#doctor`);
  await page.locator('#doctor-drop').waitFor({ timeout: 30000 });
  await page.evaluate(() => {
    window.doctorBench = {};
    document.addEventListener('change', (ev) => {
      if (ev.target.id === 'doctor-file') window.doctorBench.start = performance.now();
    }, true);
    const st = document.getElementById('doctor-status');
    new MutationObserver(() => {
      const s = st.getAttribute('data-state');
      if (s && s !== 'reading' && !window.doctorBench.end) {
        window.doctorBench.end = performance.now();
        window.doctorBench.state = s;
      }
    }).observe(st, { attributes: true, attributeFilter: ['data-state'] });
  });
  const root = process.pid; // Playwright starts Chromium as a child of this process
  const baseRss = renderers(root).reduce((a, p) => a + rssBytes(p), 0);
  sampler = setInterval(() => {
    const rss = renderers(root).reduce((a, p) => a + rssBytes(p), 0);
    if (rss > peakRss) peakRss = rss;
  }, 100);
  let heapPeak = 0;
  const heapTimer = setInterval(async () => {
    try {
      const m = (await cdp.send('Performance.getMetrics')).metrics.find((x) => x.name === 'JSHeapUsedSize');
      if (m && m.value > heapPeak) heapPeak = m.value;
    } catch { /* closing */ }
  }, 250);
  await page.setInputFiles('#doctor-file', trace);
  await page.waitForFunction(() => window.doctorBench.end, null, { timeout: 600000, polling: 200 });
  clearInterval(heapTimer);
  const r = await page.evaluate(() => ({ ...window.doctorBench, wasm: window.gpulabDoctor && window.gpulabDoctor.wasmBytes,
    error: (document.getElementById('doctor-error') || {}).textContent || '',
    findings: [...document.querySelectorAll('#doctor-out article[data-id]')].map((a) => a.getAttribute('data-id')) }));
  const size = statSync(trace).size;
  const s = (r.end - r.start) / 1000;
  console.log(`  page reader (Chromium worker)  ${s.toFixed(2)} s  ${(size / 1e6 / s).toFixed(0)} MB/s  ` +
    `wasm memory ${(r.wasm / 1048576).toFixed(0)} MiB  page JS heap peak ${(heapPeak / 1048576).toFixed(1)} MiB  ` +
    `renderer RSS peak ${(peakRss / 1048576).toFixed(0)} MiB (${(baseRss / 1048576).toFixed(0)} MiB before the file)  ${r.state}${r.error ? ': ' + r.error : ''}`);
  console.log(`  findings: ${r.findings.join(', ')}`);
  if (r.state !== 'done') process.exitCode = 1;
} finally {
  if (sampler) clearInterval(sampler);
  await browser.close();
  server.kill();
}
