// Shared helpers for gpulab's browser tests: start the real server on a free
// port, launch the system Chromium headless, watch a page for console errors
// and CSP violations, and save screenshots. Every helper has a deadline, so a
// hung server or browser fails the test instead of stalling the run.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CHROMIUM = '/usr/bin/chromium';

export function haveChromium() {
  return existsSync(CHROMIUM);
}

export const NO_CHROMIUM = 'no /usr/bin/chromium: install Debian package chromium (make deps) to run the browser tests';

// A test that needs the browser: node:test's test(name, opts, fn), skipped
// with the reason when the system Chromium is absent (never a silent pass).
export function browserTest(name, opts, fn) {
  return test(name, opts, async (t) => {
    if (!haveChromium()) return t.skip(NO_CHROMIUM);
    return fn(t);
  });
}

export function serverBinary() {
  return path.resolve(REPO, process.env.GPULAB_BIN || 'build/bin/gpulab');
}

export function screenshotDir() {
  const dir = path.resolve(REPO, process.env.GPULAB_SCREENSHOTS || 'build/screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}

// Starts `gpulab serve --host 127.0.0.1 --port 0 ...args` (env added to the
// environment) and resolves once it prints "gpulab: listening on URL" and,
// with `classMode`, the join code and instructor token lines that follow.
// Returns { url, stop(), joinCode, instructorToken }; stop() ends the process
// (SIGTERM, then SIGKILL after 3 s) and resolves when it has exited.
export function startServer({ bin = serverBinary(), timeoutMs = 15000, args = [], env = {}, classMode = false } = {}) {
  return new Promise((resolve, reject) => {
    if (!existsSync(bin)) {
      reject(new Error(`no server binary at ${bin}: run 'make' first or set GPULAB_BIN`));
      return;
    }
    const proc = spawn(bin, ['serve', '--host', '127.0.0.1', '--port', '0', ...args],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    let exited = false;
    const exitedPromise = new Promise((done) => proc.on('exit', () => { exited = true; done(); }));
    const stop = async () => {
      if (exited) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => { if (!exited) proc.kill('SIGKILL'); }, 3000);
      await exitedPromise;
      clearTimeout(timer);
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`server did not say it was listening within ${timeoutMs} ms; stderr: ${err}`));
    }, timeoutMs);
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/gpulab: listening on (https?:\/\/[^\s]+)/);
      const code = out.match(/gpulab: class ".*" join code: ([A-Z0-9-]+)/);
      const token = out.match(/gpulab: instructor token: ([0-9a-f]{64})/);
      if (m && (!classMode || (code && token))) {
        clearTimeout(timer);
        resolve({
          url: m[1].replace(/\/$/, ''), stop, stderr: () => err, get exited() { return exited; },
          joinCode: code ? code[1] : null, instructorToken: token ? token[1] : null,
        });
      }
    });
    proc.stderr.on('data', (chunk) => { err += chunk; });
    proc.on('error', (e) => { clearTimeout(timer); reject(e); });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening; stderr: ${err}`));
    });
  });
}

// GET url; resolves { status, headers, body, json } (json null when the body is not JSON).
export function getJson(url, timeoutMs = 5000) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => {
        let json = null;
        try { json = JSON.parse(body); } catch { /* not JSON */ }
        resolve({ status: res.statusCode, headers: res.headers, body, json });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
  });
}

// The real server and browser contexts for one test (in the file's one
// Chromium), all stopped when the test ends.
export async function setUp(t) {
  const server = await startServer();
  t.after(() => server.stop());
  const browser = await testBrowser();
  t.after(() => browser.close());
  return { server, browser };
}

export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    timeout: 30000,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run'],
  });
}

// A test's browser: one Chromium per test file, launched by the first test
// that asks and closed after the file's last test (a launch and close cost
// about 1.8 s of CPU on the 2-core machine, 5 in 9.2 s, and the browser
// tests asked for 51 a run). Each test still gets browser contexts of its
// own (their own cache, storage, cookies, service workers and
// connections), and its close() closes those, not the browser. A browser
// that has gone (crashed) is launched again for the next test. Outside
// `node --test` (NODE_TEST_CONTEXT unset: a file run by hand) there is no
// end-of-file hook to close a shared one, so each test launches its own.
const TEST_RUNNER = Boolean(process.env.NODE_TEST_CONTEXT);
let shared = null;
if (TEST_RUNNER) {
  after(async () => {
    const browser = shared && (await shared.catch(() => null));
    shared = null;
    if (browser) await browser.close();
  });
}

export async function testBrowser() {
  if (!TEST_RUNNER) return launchBrowser();
  if (!shared) {
    shared = launchBrowser().catch((e) => {
      shared = null;
      throw e;
    });
  }
  const browser = await shared;
  if (!browser.isConnected()) {
    shared = null;
    return testBrowser();
  }
  const mine = new Set();
  const track = (context) => {
    mine.add(context);
    context.on('close', () => mine.delete(context));
    return context;
  };
  return {
    newContext: async (options) => track(await browser.newContext(options)),
    newPage: async (options) => {
      const page = await browser.newPage(options);
      track(page.context());
      return page;
    },
    close: async () => {
      await Promise.all([...mine].map((context) => context.close().catch(() => {})));
    },
  };
}

// Records console errors, uncaught exceptions and CSP violations on a page.
// `ignore(text, url)` may excuse messages a test provokes on purpose.
export function watchPage(page, ignore = () => false) {
  const problems = [];
  page.on('console', (msg) => {
    const loc = msg.location();
    if (msg.type() === 'error' && !ignore(msg.text(), loc && loc.url)) problems.push(`console: ${msg.text()}`);
    if (/Content Security Policy/i.test(msg.text())) problems.push(`csp: ${msg.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`exception: ${e.message}`));
  return problems;
}

// Resolves when fn() is truthy, polling every 50 ms; rejects after timeoutMs.
export async function until(fn, timeoutMs = 5000, what = 'condition') {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
