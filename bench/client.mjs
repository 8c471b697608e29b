// The client's budgets, measured in headless Chromium against the real
// server on loopback: first-load bytes (every response the first visit
// fetched, gzip -9 sizes summed) and time until the lesson is interactive
// (the GPU panel and the lesson rendered, aria-busy false), median of 5
// cold loads, beside DOMContentLoaded of the same loads (the peer: the bare
// HTML shell). Usage: node bench/client.mjs BUILD
import { spawn } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../tests/e2e/package.json', import.meta.url));
const { chromium } = require('playwright-core');
const build = process.argv[2] || 'build';
const server = spawn(`${build}/bin/gpulab`, ['serve', '--host', '127.0.0.1', '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
const port = await new Promise((res, rej) => {
  const t = setTimeout(() => rej(new Error('server did not start')), 10000);
  server.stdout.on('data', (d) => {
    const m = String(d).match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
    if (m) { clearTimeout(t); res(Number(m[1])); }
  });
});
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const interactive = [], dom = [];
  let bytes = 0, gz = 0, files = 0;
  for (let i = 0; i < 5; i++) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const bodies = [];
    if (i === 0) page.on('response', (r) => bodies.push(r.body().catch(() => Buffer.alloc(0))));
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForSelector('#lesson[aria-busy="false"] #lesson-title', { timeout: 15000 });
    await page.waitForSelector('#gpu-body[aria-busy="false"]', { timeout: 15000 });
    const t = await page.evaluate(() => ({ now: performance.now(),
      dom: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd }));
    interactive.push(t.now);
    dom.push(t.dom);
    if (i === 0) {
      for (const b of await Promise.all(bodies)) { files++; bytes += b.length; gz += gzipSync(b, { level: 9 }).length; }
    }
    await ctx.close();
  }
  const ti = median(interactive), td = median(dom);
  console.log(`  first load: ${files} responses, ${(bytes / 1024).toFixed(1)} KiB raw, ${(gz / 1024).toFixed(1)} KiB gzip (budget 300 KB: ${gz <= 300 * 1000 ? 'met' : 'MISSED'})`);
  console.log(`  time to interactive lesson: median ${ti.toFixed(0)} ms of 5 cold loads (budget 1000 ms: ${ti <= 1000 ? 'met' : 'MISSED'}); ` +
    `peer DOMContentLoaded ${td.toFixed(0)} ms, ratio ${(ti / td).toFixed(2)}x`);
} finally {
  await browser.close();
  server.kill('SIGTERM');
}
