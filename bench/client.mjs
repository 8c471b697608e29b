// The client's budgets, measured in headless Chromium against the real
// server on loopback, each beside a peer measured in the same run: a static
// HTML page of the same lesson text with the same stylesheet.
//  - Bytes on the wire: what the server actually sent, counted two ways:
//    CDP Network.loadingFinished encodedDataLength (headers + compressed
//    body) for the page's own requests until it is interactive, and a TCP
//    proxy in front of the server counting every byte it sent to the
//    browser, service worker included, until the worker has cached the app.
//  - Time to interactive: navigation start until the lesson and the GPU
//    panel are rendered (aria-busy false), median of 5 fresh browser
//    contexts (cold caches); the peer's is its load event.
// Usage: node bench/client.mjs BUILD
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, rmSync, utimesSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';

const require = createRequire(new URL('../tests/e2e/package.json', import.meta.url));
const { chromium } = require('playwright-core');
const build = process.argv[2] || 'build';
const web = path.join(build, 'web');
const BUDGET_BYTES = 300000;
const BUDGET_MS = 1000;

// The peer: the first lesson's text as one static page (with compressed
// twins, as `make` makes for the client's files).
const index = JSON.parse(readFileSync(path.join(web, 'lessons', 'index.json'), 'utf8'));
const lesson = JSON.parse(readFileSync(path.join(web, 'lessons', `${index.lessons[0].id}.json`), 'utf8'));
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
const staticName = 'bench-static-lesson.html';
const staticPath = path.join(web, staticName);
const staticHtml = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(lesson.title)}</title><link rel="stylesheet" href="style.css"></head><body><main class="main"><article class="panel lesson">
<h1 id="lesson-title">${esc(lesson.title)}</h1>${lesson.sections.map((s) => `<section class="lesson-section"><h2>${esc(s.title)}</h2>${s.html}</section>`).join('\n')}
</article></main></body></html>\n`;
writeFileSync(staticPath, staticHtml);
writeFileSync(`${staticPath}.gz`, zlib.gzipSync(staticHtml, { level: 9 }));
writeFileSync(`${staticPath}.br`, zlib.brotliCompressSync(staticHtml));
const stamp = new Date(Math.floor(Date.now() / 1000) * 1000 - 60000); // the same time for the page and its twins
for (const ext of ['', '.gz', '.br']) utimesSync(staticPath + ext, stamp, stamp);

const server = spawn(`${build}/bin/gpulab`, ['serve', '--host', '127.0.0.1', '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
const port = await new Promise((res, rej) => {
  const t = setTimeout(() => rej(new Error('server did not start')), 10000);
  server.stdout.on('data', (d) => {
    const m = String(d).match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
    if (m) { clearTimeout(t); res(Number(m[1])); }
  });
});

// A counting TCP proxy: bytes from the server to the browser.
let wire = 0;
const proxy = net.createServer((client) => {
  const up = net.connect(port, '127.0.0.1');
  client.pipe(up);
  up.on('data', (d) => { wire += d.length; });
  up.pipe(client);
  const end = () => { client.destroy(); up.destroy(); };
  client.on('error', end); up.on('error', end); client.on('close', end); up.on('close', end);
});
await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${proxy.address().port}`;

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// One cold load in a fresh context: ms to ready, bytes per CDP, responses.
async function load(url, ready, { waitWorker = false } = {}) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Network.enable');
  let bytes = 0, responses = 0;
  cdp.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; responses++; });
  wire = 0;
  await page.goto(url);
  await ready(page);
  const ms = await page.evaluate(() => performance.now());
  const atReady = { bytes, responses, wire };
  let afterWorker = null;
  if (waitWorker) {
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(async () => {
      for (const n of await caches.keys()) if ((await (await caches.open(n)).keys()).length >= 8) return true;
      return false;
    }, null, { timeout: 30000, polling: 200 });
    await page.waitForLoadState('networkidle');
    afterWorker = wire;
  }
  await ctx.close();
  return { ms, ...atReady, afterWorker };
}

const appReady = async (page) => {
  await page.waitForSelector('#lesson[aria-busy="false"] #lesson-title', { timeout: 20000 });
  // The GPU details are closed until asked: wait for them to be filled, not shown.
  await page.waitForSelector('#gpu-body[aria-busy="false"]', { state: 'attached', timeout: 20000 });
};
const staticReady = async (page) => { await page.waitForLoadState('load'); };

try {
  const app = [], peer = [];
  for (let i = 0; i < 5; i++) {
    app.push(await load(`${base}/`, appReady, { waitWorker: i === 0 }));
    peer.push(await load(`${base}/${staticName}`, staticReady));
  }
  const a = app[0], p = peer[0];
  const kb = (n) => `${n.toLocaleString('en-US')} bytes`;
  console.log(`  first load on the wire (CDP encodedDataLength, until interactive): ${kb(a.bytes)} in ${a.responses} responses ` +
    `(budget ${kb(BUDGET_BYTES)}: ${a.bytes <= BUDGET_BYTES ? 'met' : 'MISSED'}); peer static lesson page ${kb(p.bytes)}, ratio ${(a.bytes / p.bytes).toFixed(2)}x`);
  console.log(`  same load counted by a TCP proxy: ${kb(a.wire)}; with the service worker's install (offline copy): ${kb(a.afterWorker)}`);
  const ta = median(app.map((r) => r.ms)), tp = median(peer.map((r) => r.ms));
  console.log(`  time to interactive lesson: median ${ta.toFixed(0)} ms of 5 fresh contexts [${app.map((r) => r.ms.toFixed(0)).join(', ')}] ` +
    `(budget ${BUDGET_MS} ms: ${ta <= BUDGET_MS ? 'met' : 'MISSED'}); peer static page load ${tp.toFixed(0)} ms, ratio ${(ta / tp).toFixed(2)}x`);
} finally {
  await browser.close();
  proxy.close();
  server.kill('SIGTERM');
  for (const ext of ['', '.gz', '.br']) rmSync(staticPath + ext, { force: true });
}
