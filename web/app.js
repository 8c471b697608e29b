// Boots the WebAssembly client: compiles gpulab.wasm, instantiates it with
// the client's program (Emscripten's gpulab.js: MODULARIZE,
// EXPORT_NAME=createGpulab), runs main() in wasm/platform/main.c once the page is
// parsed, and registers the service worker for offline use. Everything
// else the page does is written in C; this file only says in words why the
// client could not start, if it cannot.
//
// make writes this file into index.html's head as an inline script (at
// the gpulab:app mark), after the program (gpulab:program) and the first
// screen's data (gpulab:data: the lesson index and the first lesson); the
// server allows the two scripts by their SHA-256
// (server/http/csp.c). So this runs while the parser is still in the head:
// the first answers and the wasm's compile start then, and main() runs
// once the page is parsed (docs/architecture.md, "Static files").
(function () {
  "use strict";
  // Marks in the page's performance timeline (`make bench` prints them):
  // gpulab:app when this file runs, gpulab:main when the wasm is
  // instantiated and main() starts, gpulab:ready at the ready point.
  var mark = function (name) { if (window.performance && performance.mark) performance.mark(name); };
  mark("gpulab:app");

  // The page is shown once the client has drawn its main area (a lesson's
  // first screen), not before: a header painted alone is a page that looks
  // ready while its main thread draws the lesson, and a tap then waits.
  // style.css hides the body while <html> has data-boot; this file sets
  // it, so a page without scripts is never hidden, and takes it off at the
  // client's first drawing of the main area (a lesson's first screen, or
  // another page), on a failure, or after REVEAL_MS whatever happens
  // (docs/performance.md, "Shown at its first screen").
  var REVEAL_MS = 2500;
  var root = document.documentElement;
  function reveal() { root.removeAttribute("data-boot"); }
  root.setAttribute("data-boot", "");
  setTimeout(reveal, REVEAL_MS);

  function fail(message) {
    reveal();
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", function () { fail(message); });
      return;
    }
    var status = document.getElementById("status");
    if (status) {
      status.textContent = message;
      status.setAttribute("data-state", "error");
    }
    ["gpu-body", "lesson"].forEach(function (id) {
      var el = document.getElementById(id);
      if (!el) return;
      el.setAttribute("aria-busy", "false");
      el.textContent = "";
      var p = document.createElement("p");
      p.className = "boot-error";
      p.textContent = message;
      el.appendChild(p);
    });
  }

  // The service worker (sw.js) caches the app so it works offline after one
  // visit. It needs a secure context (https, or http on localhost); without
  // one the page simply stays online-only. Registered when the page has
  // settled: SW_SETTLE_MS after its ready point, then in an idle moment.
  // Its install fetches the app again to cache it (570 KB with the other
  // modules), and begun at the ready point it ran beside the rest of the
  // lesson's drawing: on the 2-core bench machine Lighthouse's total
  // blocking time was 0.8-1.2 s with it there and 0.46-0.61 s without,
  // the page's tasks waiting for a core (docs/performance.md).
  var SW_SETTLE_MS = 4000;
  var registered = false;
  function registerWorker() {
    if (registered || !("serviceWorker" in navigator) || !window.isSecureContext) return;
    registered = true;
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function (err) {
      console.warn("gpulab: offline mode unavailable (service worker not registered): " + (err && err.message ? err.message : err));
    });
  }
  function registerSettled(delayMs) {
    setTimeout(function () {
      if (window.requestIdleCallback) requestIdleCallback(registerWorker, { timeout: SW_SETTLE_MS });
      else registerWorker();
    }, delayMs);
  }

  // The first answers the client asks for, requested now, while the page
  // is parsed, instead of once main() runs. The bridge (wasm/platform/bridge.c,
  // js_fetch) takes each GET from window.gpulabEarly once, under its own
  // timeout, and calls abort() on it when that passes: a server that
  // accepts and never answers must not keep the browser's few connections,
  // which is why the API is asked here and not preloaded (a preload cannot
  // be aborted; tests/e2e/stall.test.mjs). Only what the first screen
  // needs: the GPU check, the server's health, and the lesson index and
  // bundle. The page carries the index and the first lesson itself (data
  // blocks with the file's path in data-url, written by make): taken from
  // there, they wait for no answer; another lesson is the web root's
  // static file (precompressed, revalidated by ETag). The device profiles
  // come later, when a widget needs them (wasm/pages/app.c).
  var early = {}, carried = {};
  var blocks = document.querySelectorAll('script[type="application/json"][data-url]');
  for (var i = 0; i < blocks.length; i++) carried[blocks[i].getAttribute("data-url")] = blocks[i].textContent;
  function ask(url) {
    if (Object.prototype.hasOwnProperty.call(carried, url)) {
      var had = Promise.resolve([200, carried[url], null]);
      had.abort = function () { /* nothing in flight */ };
      early[url] = had;
      return had;
    }
    // XMLHttpRequest, not fetch(): its whole answer comes to the page in
    // one load event, where fetch()'s body (r.text()) came in tasks that
    // Chromium ran after the page's parse and first frame, 60 ms after the
    // last byte had arrived (ready 140 ms against 168, medians of 25 cold
    // loads each; docs/architecture.md). API answers are sent no-store, and
    // static files no-cache (revalidated by ETag), so no cache mode is set.
    var xhr = new XMLHttpRequest();
    var p = new Promise(function (resolve) {
      xhr.onload = function () { resolve([xhr.status, xhr.responseText, xhr.getResponseHeader("Retry-After")]); };
      xhr.onerror = xhr.onabort = xhr.ontimeout = function () { resolve([0, ""]); };
      try {
        xhr.open("GET", url);
        xhr.setRequestHeader("Accept", "application/json");
        xhr.send();
      } catch (e) {
        resolve([0, ""]);
      }
    });
    p.abort = function () { xhr.abort(); };
    early[url] = p;
    return p;
  }
  if (typeof XMLHttpRequest === "function") {
    ask("/api/device");
    ask("/api/health");
    // The lesson the client will open (wasm/pages/app.c, go()): the one in the
    // address, else the last one read, else the first of the index. The
    // index is asked before the storage is read: the first read of
    // localStorage opens it (2-20 ms on a busy machine).
    var m = /^#lesson\/([a-z0-9-]{1,63})/.exec(location.hash);
    var lessons = ask("/lessons/index.json");
    var last = null;
    try { last = localStorage.getItem("gpulab.lesson"); } catch (e) { /* storage off */ }
    // The first lesson, which the page carries: taken at once when it is
    // the one to open, without waiting for the index.
    var first = document.querySelector("script[data-first-lesson]");
    var firstId = first ? /^\/lessons\/([a-z0-9-]{1,63})\.json$/.exec(first.getAttribute("data-url") || "") : null;
    var home = !location.hash || location.hash === "#";
    if (m) ask("/lessons/" + m[1] + ".json");
    else if (home && firstId && (!last || last === firstId[1])) ask(firstId[0]);
    else if (home) {
      lessons.then(function (res) {
        var index = null;
        try { index = JSON.parse(res[1]); } catch (e) { /* the client reports it */ }
        var ids = index && Array.isArray(index.lessons) ? index.lessons.map(function (l) { return l && l.id; }) : [];
        var id = last && ids.indexOf(last) >= 0 ? last : ids[0];
        if (typeof id === "string" && /^[a-z0-9-]{1,63}$/.test(id)) ask("/lessons/" + id + ".json");
      });
    }
  }
  window.gpulabEarly = early;

  // The client's wasm, compiled while the page is parsed: streamed (the
  // server sends application/wasm) from the head's preload of it;
  // instantiated in createGpulab below.
  var wasm = null;
  if (typeof WebAssembly === "object" && typeof fetch === "function") {
    var bytes = function () { return fetch("gpulab.wasm", { credentials: "same-origin" }); };
    wasm = (typeof WebAssembly.compileStreaming === "function" ? WebAssembly.compileStreaming(bytes()) : Promise.reject(null))
      .catch(function () { // a server that sends another MIME type: compiled from the bytes
        return bytes().then(function (r) {
          if (!r.ok) throw new Error("gpulab.wasm: HTTP " + r.status);
          return r.arrayBuffer();
        }).then(function (b) { return WebAssembly.compile(b); });
      });
    wasm.catch(function () { /* reported when the client instantiates it */ });
  }

  // main() draws into the document, so it waits for the parse (start(),
  // below, lets it go); everything before it (the compile, the
  // instantiation) does not.
  var parsed = null;
  var domReady = new Promise(function (resolve) { parsed = resolve; });

  // main() also waits for the first answers asked above, at most
  // FIRST_WAIT_MS after the page is parsed and the module instantiated:
  // then the lesson's first screen and the GPU panel are drawn in main()'s
  // own task, one style and layout for both. Started earlier, main() found
  // them still being read, and Chromium drew a frame of the bare page
  // before each came in (ready 177 ms vs 160 ms, median of 15 cold loads
  // each, and a spread twice as wide; docs/architecture.md). A server
  // slower than that, or one that never answers (the bridge's own timeout
  // reports it), delays the first screen by FIRST_WAIT_MS at most.
  var FIRST_WAIT_MS = 300;
  function firstAnswers() {
    var answers = Object.keys(early).map(function (url) { return early[url]; });
    return Promise.race([Promise.all(answers), new Promise(function (resolve) { setTimeout(resolve, FIRST_WAIT_MS); })]);
  }

  // The client's program is in the page, above this script (make writes
  // gpulab.js there): the module compiled above is instantiated at once,
  // and main() runs within receive(), once the page is parsed and the first
  // answers are in. Without a compiled module (no fetch), Emscripten
  // fetches the wasm itself, and is started after the parse.
  function load() {
    if (typeof WebAssembly !== "object") return;
    if (typeof window.createGpulab !== "function") {
      fail("This page does not hold gpulab's program (was it built without Emscripten?). Run 'make' and reload the page.");
      return;
    }
    var options = {
      print: function (text) { console.log(text); },
      printErr: function (text) { console.warn(text); }
    };
    var create = function () {
      window.createGpulab(options).catch(function (err) {
        fail("gpulab could not start its WebAssembly client: " + (err && err.message ? err.message : err));
      });
    };
    if (!wasm) {
      domReady.then(create);
      return;
    }
    options.instantiateWasm = function (imports, receive) {
      wasm.then(function (module) {
        return WebAssembly.instantiate(module, imports).then(function (instance) {
          return domReady.then(firstAnswers).then(function () {
            mark("gpulab:main");
            receive(instance, module);
          });
        });
      }).catch(function (err) {
        fail("gpulab could not start its WebAssembly client: " + (err && err.message ? err.message : err));
      });
      return {};
    };
    create();
  }
  load();

  // The rest needs the document: run it once the page is parsed.
  function start() {
    // Shown with the client's first drawing of the main area: a lesson's
    // first screen, or any other page (#explain, #plan, a message). Its
    // "Loading the lesson…" is the page's own, so the first write is the
    // client's.
    var main = document.getElementById("lesson");
    if (typeof MutationObserver === "function" && main) {
      var shown = new MutationObserver(function () {
        shown.disconnect();
        reveal();
      });
      shown.observe(main, { childList: true });
    } else {
      reveal();
    }

    // The app's ready point, stamped inside the page: the moment the GPU
    // panel is filled (its aria-busy turns false) and the lesson's first
    // screen is drawn with its widgets (data-first-screen on the lesson;
    // the client adds the rest of the lesson a frame or two later and
    // clears the lesson's aria-busy then; a lesson drawn whole, or a
    // message in its place, clears aria-busy at once), as performance.now()
    // in window.gpulabReady and data-ready-ms on <html>. `make bench`
    // reads it afterwards (bench/client.mjs), so the figure holds no
    // polling or round trip of the tool that reads it.
    if (typeof MutationObserver === "function" && window.performance) {
      var done = function () {
        var lesson = document.getElementById("lesson"), gpu = document.getElementById("gpu-body");
        return lesson && gpu && (lesson.getAttribute("aria-busy") === "false" || lesson.hasAttribute("data-first-screen")) &&
          gpu.getAttribute("aria-busy") === "false" && document.getElementById("lesson-title");
      };
      var watch = new MutationObserver(function () {
        if (!done()) return;
        watch.disconnect();
        window.gpulabReady = performance.now();
        mark("gpulab:ready");
        document.documentElement.setAttribute("data-ready-ms", window.gpulabReady.toFixed(1));
        registerSettled(SW_SETTLE_MS);
      });
      // These attributes alone: the client sets them after it fills each
      // part, and watching every node the lesson adds would cost more than
      // it says.
      watch.observe(document.body, { attributes: true, attributeFilter: ["aria-busy", "data-first-screen"], subtree: true });
    }

    // A page that never gets ready (a lesson that fails to load) still
    // works offline next time: the worker is registered after the load
    // event at the latest (three settling times after it).
    window.addEventListener("load", function () { registerSettled(3 * SW_SETTLE_MS); });

    // The lesson list and table of contents start closed (a phone reads the
    // lesson first); on a wider screen they sit beside the lesson, open.
    var nav = document.getElementById("nav-details");
    if (nav && window.matchMedia && window.matchMedia("(min-width: 901px)").matches) nav.open = true;

    if (typeof WebAssembly !== "object") {
      fail("This browser cannot run WebAssembly, which gpulab needs. Use a current Firefox, Chrome, Edge or Safari.");
      return;
    }
    parsed();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
