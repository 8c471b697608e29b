// gpulab's service worker: after one visit the page works with the server
// gone. On install it caches the app shell, every lesson bundle (the public
// one and the offline one with its sealed answer key, which the client reads only
// when the server cannot be reached) and any recorded GPU runs. Requests:
// /api/* go to the network first (a failure reaches the client, which then
// simulates or scores offline); everything else is fetched from the network
// too, kept fresh in the cache, and served from the cache when the network
// fails. Bump VERSION when the list of shell files changes.
"use strict";

const VERSION = "gpulab-v9"; // v9: the lessons' claims a learner's own kit run is checked against (#yours); v8: the measurement kit (measure.py, measure.ipynb) kept for download offline; v7: the reader module is gpulab_reader.js/.wasm (reader_worker.js); v6: app.js and gpulab.js are written into index.html
// The UI module (gpulab.js/.wasm), the simulation module that a Web
// Worker loads on the first simulation (sim_worker.js, gpulab_sim.js/.wasm),
// the reader of #doctor and #explain (reader_worker.js, gpulab_reader.js/.wasm),
// the measurement kit a learner downloads to run on their own GPU, and the
// lessons' claims the page checks on the run the learner brings back (#yours).
const SHELL = ["/", "/index.html", "/style.css", "/gpulab.wasm", "/favicon.svg",
  "/sim_worker.js", "/gpulab_sim.js", "/gpulab_sim.wasm", "/reader_worker.js", "/gpulab_reader.js",
  "/gpulab_reader.wasm", "/lessons/index.json", "/lessons/claims.json", "/measure.py", "/measure.ipynb"];

// The lesson ids from lessons/index.json (ids are checked: they become URLs).
async function lessonFiles(cache) {
  const res = await cache.match("/lessons/index.json");
  if (!res) return [];
  const index = await res.json();
  const files = [];
  for (const l of (index && Array.isArray(index.lessons) ? index.lessons : [])) {
    if (typeof l.id !== "string" || !/^[a-z0-9-]{1,63}$/.test(l.id)) continue;
    files.push(`/lessons/${l.id}.json`, `/lessons/${l.id}.offline.json`);
  }
  return files;
}

// Recorded runs are optional (made by `make record` on a GPU machine).
async function recordedFiles() {
  try {
    const res = await fetch("/recorded/index.json", { cache: "no-store" });
    if (!res.ok) return [];
    const index = await res.json();
    const names = index && Array.isArray(index.recorded) ? index.recorded : [];
    const files = names.filter((n) => typeof n === "string" && /^[a-z0-9_-]{1,63}$/.test(n)).map((n) => `/recorded/${n}.json`);
    return ["/recorded/index.json", ...files];
  } catch (e) {
    return [];
  }
}

async function install() {
  const cache = await caches.open(VERSION);
  // cache: "no-cache" asks the server whether the copy the page just fetched
  // is still current (ETag): a 304 of a few hundred bytes, not the wasm again.
  await cache.addAll(SHELL.map((url) => new Request(url, { cache: "no-cache" })));
  const extra = [...(await lessonFiles(cache)), ...(await recordedFiles())];
  // One missing lesson file must not stop the rest from being cached.
  await Promise.all(extra.map((url) => cache.add(new Request(url, { cache: "no-cache" })).catch(() => undefined)));
}

self.addEventListener("install", (event) => {
  event.waitUntil(install().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("gpulab-") && name !== VERSION) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

// Static files: the network's answer (stored when it is a complete 200),
// else the cached copy; a page navigation falls back to the cached page.
async function staticFirstNetwork(request) {
  const cache = await caches.open(VERSION);
  try {
    const res = await fetch(request);
    if (res.ok && res.status === 200 && res.type === "basic") await cache.put(request, res.clone());
    return res;
  } catch (e) {
    const hit = await cache.match(request, { ignoreSearch: request.mode === "navigate" });
    if (hit) return hit;
    if (request.mode === "navigate") {
      const page = await cache.match("/");
      if (page) return page;
    }
    throw e;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/api/")) {
    // Network only for GET and POST alike: a cached API answer would be stale
    // (device state, scores); a failure tells the client to go offline.
    event.respondWith(fetch(request));
    return;
  }
  if (request.method !== "GET") return;
  event.respondWith(staticFirstNetwork(request));
});
