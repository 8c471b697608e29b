// A real classroom never stops the class (issue 20): a server that takes
// the connection and never answers must not leave the page on
// "Connecting…". A small proxy in front of a real gpulab serves the page and
// its static files but holds every /api/ request open without sending a
// byte; within 10 s the page says the server did not answer, simulates the
// device, reads the lesson from its static files and renders a simulated
// result. A second test: a class join answered 429 with Retry-After: 1 is
// sent again by the page itself, which says so, and then gets in.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

import { browserTest, testBrowser, screenshotDir, startServer, until, watchPage } from './lib.mjs';

const TEST_TIMEOUT = 120000;
const TIMED_OUT = 'The server did not answer in 5 s; simulating in your browser instead';

// A proxy on a free loopback port. `hold(req)` true: the request is
// accepted and never answered (its closing, when the browser gives up, is
// counted); `answer(req, res)` true: the proxy answered it itself; anything
// else goes to `target` as it came (Host and Origin unchanged, so the
// server's same-origin check sees the proxy's origin on both).
function startProxy(target, { hold = () => false, answer = () => false } = {}) {
  const sockets = new Set();
  const state = { seen: [], held: 0, closed: 0 };
  const server = http.createServer((req, res) => {
    state.seen.push({ line: `${req.method} ${req.url}`, at: Date.now() });
    if (hold(req)) {
      state.held++;
      res.on('close', () => { state.closed++; });
      return;
    }
    if (answer(req, res)) return;
    const up = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({
      url: `http://127.0.0.1:${server.address().port}`,
      state,
      close: () => new Promise((done) => {
        for (const s of sockets) s.destroy();
        server.close(() => done());
      }),
    }));
  });
}

// Aborted requests, the 429 the proxy sends on purpose and the session
// check before joining (401 no_session) are logged by the browser.
const expected = (text) => /ERR_ABORTED|status of (401|429)/.test(text);

browserTest('a server that never answers: the page says so within 10 s and simulates', { timeout: TEST_TIMEOUT }, async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const proxy = await startProxy(server.url, { hold: (req) => req.url.startsWith('/api/') });
  t.after(() => proxy.close());
  const browser = await testBrowser();
  t.after(() => browser.close());
  // No service worker: this is a first visit, nothing cached to fall back on.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  const problems = watchPage(page, expected);

  const started = Date.now();
  await page.goto(`${proxy.url}/`);
  await until(async () => (await page.locator('#status').textContent()) === TIMED_OUT, 10000,
    'the status line to say the server did not answer');
  const fellBackMs = Date.now() - started;
  assert.ok(fellBackMs < 10000, `fell back after ${fellBackMs} ms`);
  t.diagnostic(`the page said the server did not answer ${fellBackMs} ms after it was opened`);
  assert.equal(await page.locator('#status').getAttribute('data-state'), 'offline');
  assert.match(await page.locator('#gpu-badge').textContent(), /simulated \(profile: T4\)/);
  assert.match(await page.locator('#gpu-body').textContent(),
    /The server did not answer in 5 s; running the simulation in your browser instead\./);
  assert.equal(await page.locator('#gpu-body').getAttribute('aria-busy'), 'false');
  assert.doesNotMatch(await page.locator('#gpu-body').textContent(), /Asking the gpulab server/);

  // The lesson comes from its static copy, the API having hung.
  await page.locator('#lesson-title').waitFor();
  await page.evaluate(() => window.scrollTo(0, 0));
  const shots = screenshotDir();
  await page.screenshot({ path: path.join(shots, 'stall-timeout-laptop.png') });

  // An experiment runs, simulated in the browser; nothing is sent for it.
  await page.evaluate(() => { location.hash = '#lab/timing'; });
  await page.locator('#exp-timing-run').click();
  const out = page.locator('#exp-timing-out');
  await until(async () => (await out.locator('.exp-source, .exp-failure').count()) > 0, 30000, 'a simulated result');
  assert.equal((await out.locator('.exp-source').textContent()).trim(), 'simulated — profile T4 (in your browser)');
  assert.ok(await out.locator('svg, table').count() > 0, 'the result is drawn');
  assert.ok(!proxy.state.seen.some((r) => r.line.startsWith('POST /api/experiments')), 'no run was sent to the hung server');

  // Every request the page made to the hung API was given up (aborted), not left open.
  assert.ok(proxy.state.held >= 3, `the page asked the API (${proxy.state.held} requests held)`);
  await until(() => proxy.state.closed === proxy.state.held, 10000, 'the held requests to be aborted by the page');

  // The same on a phone.
  const phone = await context.newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  const phoneProblems = watchPage(phone, expected);
  await phone.goto(`${proxy.url}/`);
  await until(async () => (await phone.locator('#status').textContent()) === TIMED_OUT, 10000, 'the phone status line');
  await phone.locator('#lesson-title').waitFor();
  await phone.evaluate(() => window.scrollTo(0, 0));
  await phone.screenshot({ path: path.join(shots, 'stall-timeout-phone.png') });
  assert.deepEqual(phoneProblems, []);
  assert.deepEqual(problems, []);
  await context.close();
});

browserTest('a class join answered 429 is retried after Retry-After and gets in', { timeout: TEST_TIMEOUT }, async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gpulab-stall-e2e-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startServer({ classMode: true, args: ['--class-name', 'Busy class', '--db', path.join(dir, 'class.db')] });
  t.after(() => server.stop());
  const joins = [];
  const proxy = await startProxy(server.url, {
    answer: (req, res) => {
      if (req.method !== 'POST' || req.url !== '/api/class/join') return false;
      joins.push(Date.now());
      if (joins.length > 1) return false; // the retry goes through
      req.resume();
      const body = JSON.stringify({ error: { code: 'rate_limited', message: 'Too many joins this minute; retry in 1 s' } });
      res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '1', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      return true;
    },
  });
  t.after(() => proxy.close());
  const browser = await testBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  const problems = watchPage(page, expected);

  await page.goto(`${proxy.url}/`);
  await page.locator('#class .class-join').waitFor();
  // Every text the form's status shows, however briefly.
  await page.evaluate(() => {
    window.joinNotes = [];
    new MutationObserver(() => {
      const el = document.getElementById('class-join-status');
      if (el && el.textContent && !window.joinNotes.includes(el.textContent)) window.joinNotes.push(el.textContent);
    }).observe(document.getElementById('class'), { subtree: true, childList: true, characterData: true });
  });
  await page.locator('#class-code').fill(server.joinCode);
  await page.locator('#class-name').fill('Ada L.');
  await page.locator('#class-join').click();
  await page.locator('#class-who').waitFor();
  assert.equal(await page.locator('#class-who').textContent(), 'Ada L.');
  assert.equal(joins.length, 2, 'one refused join, one retry');
  assert.ok(joins[1] - joins[0] >= 1000, `the retry waited Retry-After (${joins[1] - joins[0]} ms)`);
  const notes = await page.evaluate(() => window.joinNotes);
  assert.ok(notes.includes('The class is busy letting others in; trying again in 1 s.'), `notes: ${JSON.stringify(notes)}`);
  assert.deepEqual(problems, []);
  await context.close();
});
