/* The browser side of bridge.h, the one file that knows about Emscripten.
 * JavaScript calls back into C through three exported entry points; pending
 * fetches are kept in a small table so no function pointer crosses to JS. */
#include "bridge.h"

#include <emscripten.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PENDING 32

static struct {
  ui_fetch_cb cb;
  void *ctx;
  int used;
} pending[MAX_PENDING];

static ui_hash_cb hash_cb;
static void *hash_ctx;
static ui_action_cb action_cb;
static void *action_ctx;
static int listening; /* the document listeners are added once */
static int retry_after = -1; /* the answer being delivered's Retry-After, s */

EMSCRIPTEN_KEEPALIVE void ui_bridge_fetch_done(int slot, int status, const char *body, int len, int retry_after_s);
EMSCRIPTEN_KEEPALIVE void ui_bridge_hash(const char *hash);
EMSCRIPTEN_KEEPALIVE void ui_bridge_action(const char *action, const char *arg);
EMSCRIPTEN_KEEPALIVE void ui_bridge_later(int slot);

static struct {
  ui_later_cb cb;
  void *ctx;
  int used;
} later[MAX_PENDING];

/* The body is handed to C as a temporary UTF-8 copy; a network failure
 * reads as status 0, no answer within timeout_ms as -1 (UI_FETCH_TIMED_OUT):
 * the timer wins the race and then aborts the request, so a server that
 * accepts and never answers cannot hold the page. A GET that web/app.js
 * already started while the page was parsed, or took from the page itself
 * (window.gpulabEarly: a promise of [status, text, Retry-After] with an
 * abort()), is answered from there, once, under the same timer.
 * Retry-After travels in seconds. */
EM_JS(void, js_fetch, (int slot, const char *method, const char *url, int timeout_ms, const char *body), {
  const target = UTF8ToString(url);
  const ctl = new AbortController();
  /* An API answer is never reused; a static file (a lesson) is revalidated
   * by its ETag, so a reload costs a 304 and no body. */
  const cache = target.startsWith("/api/") ? "no-store" : "no-cache";
  const init = {method : UTF8ToString(method), headers : {"Accept" : "application/json"}, cache : cache, signal : ctl.signal};
  if (body) {
    init.headers["Content-Type"] = "application/json";
    init.body = UTF8ToString(body);
  }
  const early = window.gpulabEarly || {};
  const started = !body && init.method === "GET" && early[target];
  if (started) delete early[target];
  const answer = started || fetch(target, init)
      .then(function(r) { return r.text().then(function(t) { return [ r.status, t, r.headers.get("Retry-After") ]; }); })
      .catch(function() { return [ 0, "" ]; });
  let timer = 0;
  const late = new Promise(function(resolve) {
    timer = setTimeout(function() {
      resolve([ -1, "" ]); /* first, so the abort's rejection cannot win the race */
      ctl.abort();
      if (started && started.abort) started.abort();
    }, timeout_ms);
  });
  /* Each answer is handed to C in a task of its own (a timer), not in the
   * promise's microtask: the first answers, asked while the page was
   * parsed, are all in when main() starts, and handed over as microtasks
   * they ran in main()'s task, one task of 105-130 ms with the GPU panel,
   * the lesson's JSON and its first screen on the busy 2-core machine
   * (PerformanceObserver "longtask"; several times that on a phone's CPU,
   * which Lighthouse's total blocking time counts). */
  Promise.race([ answer, late ]).then(function(res) { setTimeout(function() {
    clearTimeout(timer);
    const retry = /^[0-9]{1,6}$/.test(res[2] || "") ? parseInt(res[2], 10) : -1;
    /* TextEncoder, not lengthBytesUTF8 + stringToUTF8: those walk the
     * text in JS, character by character, still uncompiled on a first
     * load (about 12 ms of a 45 KB lesson in a CPU profile, in the task
     * that makes the page ready). */
    const bytes = new TextEncoder().encode(res[1]);
    const p = _malloc(bytes.length + 1);
    HEAPU8.set(bytes, p); /* after _malloc, which may have grown the memory and replaced HEAPU8 */
    HEAPU8[p + bytes.length] = 0;
    _ui_bridge_fetch_done(slot, res[0], p, bytes.length, retry);
    _free(p);
  }, 0); });
});

EM_JS(void, js_set_html, (const char *id, const char *html), {
  const el = document.getElementById(UTF8ToString(id));
  if (el) el.innerHTML = UTF8ToString(html);
});

EM_JS(void, js_append_html, (const char *id, const char *html), {
  const el = document.getElementById(UTF8ToString(id));
  if (el) el.insertAdjacentHTML("beforeend", UTF8ToString(html));
});

EM_JS(void, js_set_text, (const char *id, const char *text), {
  const el = document.getElementById(UTF8ToString(id));
  if (el) el.textContent = UTF8ToString(text);
});

EM_JS(void, js_set_attr, (const char *id, const char *name, const char *value), {
  const el = document.getElementById(UTF8ToString(id));
  if (!el) return;
  if (value) el.setAttribute(UTF8ToString(name), UTF8ToString(value));
  else el.removeAttribute(UTF8ToString(name));
});

EM_JS(void, js_fill, (const char *selector, const char *html), {
  const markup = UTF8ToString(html);
  document.querySelectorAll(UTF8ToString(selector)).forEach(function(el) { el.innerHTML = markup; });
});

EM_JS(void, js_focus, (const char *id), {
  const el = document.getElementById(UTF8ToString(id));
  if (!el) return;
  /* The page is hidden until its first screen (web/app.js, data-boot),
   * and a hidden element takes no focus: what the client moves the
   * learner to is on screen by then. */
  document.documentElement.removeAttribute("data-boot");
  el.focus({preventScroll : true});
  el.scrollIntoView({block : "start"});
});

EM_JS(void, js_set_title, (const char *title), { document.title = UTF8ToString(title); });

EM_JS(void, js_hash, (char *buf, int n), { stringToUTF8(location.hash, buf, n); });

EM_JS(void, js_listen, (void), {
  function withStrings(a, b, fn) {
    const na = lengthBytesUTF8(a) + 1, nb = lengthBytesUTF8(b) + 1;
    const pa = _malloc(na), pb = _malloc(nb);
    stringToUTF8(a, pa, na);
    stringToUTF8(b, pb, nb);
    fn(pa, pb);
    _free(pa);
    _free(pb);
  }
  window.addEventListener("hashchange", function() {
    withStrings(location.hash, "", function(h) { _ui_bridge_hash(h); });
  });
  /* A lesson section counts as seen once its end has been on screen (in
   * the lower 80 % of the window, where a reader's eyes reach): a jump past
   * it, to the quiz say, is not reading it. Reported once per element as
   * the action "section-seen" with the element's id. The contents link of
   * the section being read gets aria-current="location". Checked at most
   * every 250 ms. */
  const seen = new WeakSet();
  let pendingCheck = 0;
  function checkSeen() {
    pendingCheck = 0;
    let current = null;
    /* The lesson below its first screen (.lesson-rest) is not laid out
     * while it is below the screen (content-visibility), and measuring a
     * section inside it would lay it out: 20-25 ms of style and layout on
     * the busy 2-core machine, twice while the lesson was drawn. None of
     * its sections can be seen or read then. */
    const rest = document.getElementById("lesson-rest");
    const restBelow = rest && rest.getBoundingClientRect().top > window.innerHeight;
    document.querySelectorAll("section.lesson-section[id]").forEach(function(el) {
      if (restBelow && rest.contains(el)) return;
      const r = el.getBoundingClientRect();
      if (r.height > 0 && r.top <= window.innerHeight * 0.3) current = el.id;
      if (seen.has(el)) return;
      if (r.height === 0 || r.bottom > window.innerHeight + 4) return; /* 4 px: subpixel layout */
      if (r.bottom < window.innerHeight * 0.2) return; /* jumped past: its end was never read */
      seen.add(el);
      withStrings("section-seen", el.id, function(a, b) { _ui_bridge_action(a, b); });
    });
    document.querySelectorAll("#nav-body .nav-sections a").forEach(function(a) {
      const here = current && a.getAttribute("href").endsWith("/" + current.slice(4));
      if (here) a.setAttribute("aria-current", "location");
      else a.removeAttribute("aria-current");
    });
  }
  function scheduleSeen() {
    if (!pendingCheck) pendingCheck = setTimeout(checkSeen, 250);
  }
  window.addEventListener("scroll", scheduleSeen, {passive : true});
  window.addEventListener("resize", scheduleSeen);
  new MutationObserver(scheduleSeen).observe(document.body, {childList : true, subtree : true});
  /* The first time the learner reaches into an experiment widget (focus,
   * pointer), the action "widget-used": what only widgets need (the
   * server's profiles) is fetched then, not with the first screen. */
  function widgetUsed(ev) {
    if (!(ev.target instanceof Element) || !ev.target.closest(".exp-widget, .experiment")) return;
    document.removeEventListener("focusin", widgetUsed);
    document.removeEventListener("pointerdown", widgetUsed);
    withStrings("widget-used", "", function(a, b) { _ui_bridge_action(a, b); });
  }
  document.addEventListener("focusin", widgetUsed);
  document.addEventListener("pointerdown", widgetUsed);
  document.addEventListener("click", function(ev) {
    const el = ev.target instanceof Element ? ev.target.closest("[data-action]") : null;
    if (!el) return;
    ev.preventDefault();
    if (el.dataset.action == "copy") /* a lesson's code block: the <pre> after the button */
      return navigator.clipboard.writeText(el.nextSibling.textContent).then(function() { el.textContent = "Copied"; });
    withStrings(el.getAttribute("data-action") || "", el.getAttribute("data-arg") || "",
                function(a, b) { _ui_bridge_action(a, b); });
  });
});

EM_JS(int, js_form_checked, (const char *form_id, char *buf, int n), {
  const form = document.getElementById(UTF8ToString(form_id));
  const out = {};
  if (form) {
    form.querySelectorAll("input[type=checkbox]:checked, input[type=radio]:checked").forEach(function(el) {
      if (!el.name) return;
      (out[el.name] = out[el.name] || []).push(el.value);
    });
  }
  const text = JSON.stringify(out);
  if (lengthBytesUTF8(text) + 1 > n) return -1;
  stringToUTF8(text, buf, n);
  return lengthBytesUTF8(text);
});

/* The object URL is revoked after the click has started the download. */
EM_JS(void, js_download, (const char *filename, const char *mime, const char *text), {
  const blob = new Blob([UTF8ToString(text)], {type : UTF8ToString(mime)});
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = UTF8ToString(filename);
  a.hidden = true;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(function() { URL.revokeObjectURL(url); }, 10000);
});

EM_JS(int, js_dom_value, (const char *id, char *buf, int n), {
  const el = document.getElementById(UTF8ToString(id));
  if (!el || !("value" in el)) return -1;
  const v = el.type === "checkbox" ? (el.checked ? "1" : "0") : String(el.value);
  const len = lengthBytesUTF8(v);
  if (len + 1 > n) return -1;
  stringToUTF8(v, buf, n);
  return len;
});

/* Two animation frames, then the timer: the first frame runs before the
 * browser paints, the second after, so the page shows its new state first. */
EM_JS(void, js_later, (int slot, int delay_ms), {
  requestAnimationFrame(function() {
    requestAnimationFrame(function() { setTimeout(function() { _ui_bridge_later(slot); }, delay_ms); });
  });
});

/* localStorage throws when storage is disabled; that reads as "absent". */
EM_JS(int, js_storage_get, (const char *key, char *buf, int n), {
  try {
    const v = localStorage.getItem(UTF8ToString(key));
    if (v === null) return -1;
    stringToUTF8(v, buf, n);
    return lengthBytesUTF8(v);
  } catch (e) {
    return -1;
  }
});

EM_JS(void, js_storage_set, (const char *key, const char *value), {
  try {
    localStorage.setItem(UTF8ToString(key), UTF8ToString(value));
  } catch (e) {
  }
});

/* The simulation module (web/sim_worker.js running gpulab_sim.wasm, from
 * wasm/sim/) starts in a Web Worker on the first simulation (or kit file)
 * and stays. globalThis.gpulabSimStart() makes it once: sim.ask(message,
 * answer) posts a message with its id and calls answer(status, text) once,
 * 0 when the worker could not load (offline before the service worker
 * cached it) or failed. Answers are matched to their message by id. */
EM_JS(void, js_sim_define, (void), {
  if (globalThis.gpulabSimStart) return;
  globalThis.gpulabSimStart = function() {
    let sim = globalThis.gpulabSim;
    if (sim) return sim;
    sim = globalThis.gpulabSim = {worker : null, next : 1, waiting : {}, broken : false};
    try {
      sim.worker = new Worker("sim_worker.js");
    } catch (e) {
      sim.broken = true;
    }
    if (sim.worker) {
      sim.worker.onmessage = function(ev) {
        const w = sim.waiting[ev.data.id];
        if (!w) return;
        delete sim.waiting[ev.data.id];
        w(ev.data.status, ev.data.text);
      };
      sim.worker.onerror = function(ev) {
        if (ev && ev.preventDefault) ev.preventDefault();
        console.warn("gpulab: the simulation module failed: " + (ev && ev.message ? ev.message : "no worker"));
        sim.broken = true;
        const all = sim.waiting;
        sim.waiting = {};
        for (const k in all) all[k](0, "");
      };
    }
    sim.ask = function(message, answer) {
      if (sim.broken) {
        setTimeout(function() { answer(0, ""); }, 0);
        return;
      }
      message.id = sim.next++;
      sim.waiting[message.id] = answer;
      sim.worker.postMessage(message);
    };
    return sim;
  };
});

/* Its answers come back through the fetch table: status 200 or 400 with
 * JSON text, 0 when the module could not run. */
EM_JS(void, js_simulate, (int slot, const char *experiment, const char *params, const char *profile,
                          const char *profile_json), {
  globalThis.gpulabSimStart().ask({
    experiment : UTF8ToString(experiment),
    params : UTF8ToString(params),
    profile : UTF8ToString(profile),
    profile_json : profile_json ? UTF8ToString(profile_json) : ""
  }, function(status, text) {
    const n = lengthBytesUTF8(text) + 1;
    const p = _malloc(n);
    stringToUTF8(text, p, n);
    _ui_bridge_fetch_done(slot, status, p, n - 1, -1);
    _free(p);
  });
});

/* A page's file input and its drop zone (the kit's #yours, the doctor's
 * trace): start(file) for a file chosen on the picker (input id) or
 * dropped on the zone (selector), which is marked while a file is over it.
 * Listeners on the document, added once per page. */
EM_JS(void, js_file_input_define, (void), {
  if (globalThis.gpulabFileInput) return;
  globalThis.gpulabFileInput = function(inputId, zoneSel, start) {
    document.addEventListener("change", function(ev) {
      const el = ev.target;
      if (el && el.id === inputId && el.files && el.files.length) start(el.files[0]);
    });
    function zone(ev) { return ev.target instanceof Element ? ev.target.closest(zoneSel) : null; }
    ["dragenter", "dragover"].forEach(function(type) {
      document.addEventListener(type, function(ev) {
        const z = zone(ev);
        if (!z) return;
        ev.preventDefault();
        z.classList.add("drop-over");
      });
    });
    document.addEventListener("dragleave", function(ev) {
      const z = zone(ev);
      if (z) z.classList.remove("drop-over");
    });
    document.addEventListener("drop", function(ev) {
      const z = zone(ev);
      if (!z) return;
      ev.preventDefault();
      z.classList.remove("drop-over");
      if (ev.dataTransfer && ev.dataTransfer.files.length) start(ev.dataTransfer.files[0]);
    });
  };
});

/* A kit file chosen on the page's picker (#yours-file) or dropped on its
 * zone (#yours-drop): handed as a File to the simulation module, which
 * reads and compares it (bridge.h, ui_on_kit_file). Listeners on the
 * document, added once. */
EM_JS(void, js_kit_listen, (void), {
  function tell(event, a, b, text) {
    const n = lengthBytesUTF8(text) + 1, p = _malloc(n);
    stringToUTF8(text, p, n);
    _ui_bridge_kit(event, a, b, p, n - 1);
    _free(p);
  }
  function start(file) {
    if (!file) return;
    tell(0, 0, file.size, file.name || "");
    globalThis.gpulabSimStart().ask({type : "kit", file : file}, function(status, text) { tell(1, status, 0, text || ""); });
  }
  globalThis.gpulabFileInput("yours-file", "#yours-drop", start);
});
static ui_kit_cb kit_cb;
static void *kit_ctx;
EMSCRIPTEN_KEEPALIVE void ui_bridge_kit(int event, double a, double b, const char *text, int len);
void ui_bridge_kit(int event, double a, double b, const char *text, int len) {
  if (kit_cb) kit_cb(event, a, b, text, len > 0 ? (size_t)len : 0, kit_ctx);
}
void ui_on_kit_file(ui_kit_cb cb, void *ctx) {
  static int listening_kit;
  js_sim_define();
  js_file_input_define();
  if (!listening_kit) js_kit_listen();
  listening_kit = 1;
  kit_cb = cb;
  kit_ctx = ctx;
}

/* The trace reader (bridge.h, ui_on_doctor): one worker per file, ended
 * when its answer is in or on a cancel, so the wasm memory a large trace
 * grew goes back to the browser. Listeners on the document, added once. */
EM_JS(void, js_doctor_listen, (void), {
  const dr = globalThis.gpulabDoctor = {worker : null};
  function tell(event, a, b, text) {
    const n = lengthBytesUTF8(text) + 1, p = _malloc(n);
    stringToUTF8(text, p, n);
    _ui_bridge_doctor(event, a, b, p, n - 1);
    _free(p);
  }
  dr.stop = function() {
    if (dr.worker) dr.worker.terminate();
    dr.worker = null;
  };
  function start(file) {
    if (!file) return;
    dr.stop();
    tell(0, 0, file.size, file.name || "");
    let w;
    try {
      w = dr.worker = new Worker("reader_worker.js");
    } catch (e) {
      tell(2, 0, 0, "");
      return;
    }
    w.onmessage = function(ev) {
      if (dr.worker !== w) return;
      const d = ev.data;
      if (d.type === "progress") return tell(1, d.read, d.size, "");
      dr.stop();
      dr.wasmBytes = d.wasm_bytes; /* read by make bench (bench/doctor_browser.mjs) */
      tell(2, d.status, 0, d.text || "");
    };
    w.onerror = function(ev) { /* the module did not load: offline before the service worker kept it */
      if (ev && ev.preventDefault) ev.preventDefault();
      if (dr.worker !== w) return;
      dr.stop();
      tell(2, 0, 0, "");
    };
    w.postMessage({file : file});
  }
  globalThis.gpulabFileInput("doctor-file", "#doctor-drop", start);
});
EM_JS(void, js_doctor_cancel, (void), {
  if (globalThis.gpulabDoctor) globalThis.gpulabDoctor.stop();
});
static ui_doctor_cb doctor_cb;
static void *doctor_ctx;
EMSCRIPTEN_KEEPALIVE void ui_bridge_doctor(int event, double a, double b, const char *text, int len);
void ui_bridge_doctor(int event, double a, double b, const char *text, int len) {
  if (doctor_cb) doctor_cb(event, a, b, text, len > 0 ? (size_t)len : 0, doctor_ctx);
}
void ui_on_doctor(ui_doctor_cb cb, void *ctx) {
  static int listening_doctor;
  js_file_input_define();
  if (!listening_doctor) js_doctor_listen();
  listening_doctor = 1;
  doctor_cb = cb;
  doctor_ctx = ctx;
}
void ui_doctor_cancel(void) { js_doctor_cancel(); }
/* The explainer (bridge.h, ui_explain_text): one worker, kept, its answers
 * delivered through the fetch table like the simulation module's. A worker
 * that fails is dropped, so the next paste tries a fresh one (online again). */
EM_JS(void, js_explain, (int slot, const char *text, int n), {
  let ex = globalThis.gpulabExplain;
  if (!ex) ex = globalThis.gpulabExplain = {worker : null, next : 1, waiting : {}};
  const deliver = function(status, answer) {
    const len = lengthBytesUTF8(answer) + 1;
    const p = _malloc(len);
    stringToUTF8(answer, p, len);
    _ui_bridge_fetch_done(slot, status, p, len - 1, -1);
    _free(p);
  };
  const fail = function(why) {
    if (ex.worker) ex.worker.terminate();
    ex.worker = null;
    console.warn("gpulab: the explainer failed: " + why);
    const all = ex.waiting;
    ex.waiting = {};
    for (const k in all) all[k](0, "");
  };
  if (!ex.worker) {
    let w;
    try {
      w = ex.worker = new Worker("reader_worker.js");
    } catch (e) {
      if (slot >= 0) setTimeout(function() { deliver(0, ""); }, 0);
      return;
    }
    w.onmessage = function(ev) {
      const d = ev.data;
      if (ex.worker !== w || !d) return;
      /* 0: the module failed; another type: a reader from before it explained (a stale cache) */
      if (d.type !== "explained" || d.status === 0) return fail(d.text || "no module"); /* answers every paste waiting */
      const cb = ex.waiting[d.id];
      delete ex.waiting[d.id];
      if (cb) cb(d.status, d.text || "");
    };
    w.onerror = function(ev) { /* the module did not load: offline before the service worker kept it */
      if (ev && ev.preventDefault) ev.preventDefault();
      if (ex.worker === w) fail(ev && ev.message ? ev.message : "no worker");
    };
  }
  if (slot < 0) { /* ui_explain_warm */
    ex.worker.postMessage({type : "warm"});
    return;
  }
  const id = ex.next++;
  ex.waiting[id] = deliver;
  ex.worker.postMessage({type : "explain", id : id, bytes : HEAPU8.slice(text, text + n)});
});

static void start_fetch(const char *method, const char *url, const char *body, int timeout_ms, ui_fetch_cb cb,
                        void *ctx) {
  for (int i = 0; i < MAX_PENDING; i++) {
    if (pending[i].used) continue;
    pending[i].used = 1;
    pending[i].cb = cb;
    pending[i].ctx = ctx;
    js_fetch(i, method, url, timeout_ms, body);
    return;
  }
  cb(0, "", 0, ctx); /* too many requests in flight: report it as a failed request */
}

void ui_fetch(const char *url, int timeout_ms, ui_fetch_cb cb, void *ctx) {
  start_fetch("GET", url, NULL, timeout_ms, cb, ctx);
}

void ui_fetch_delete(const char *url, int timeout_ms, ui_fetch_cb cb, void *ctx) {
  start_fetch("DELETE", url, NULL, timeout_ms, cb, ctx);
}

void ui_fetch_post(const char *url, const char *json_body, int timeout_ms, ui_fetch_cb cb, void *ctx) {
  start_fetch("POST", url, json_body ? json_body : "{}", timeout_ms, cb, ctx);
}

/* The calibrated profiles' JSON (a server's, the learner's own GPU's), by
 * name: sent with each run on one of them. */
static struct {
  char name[32];
  char *json;
} calibrated[2];

void ui_simulate_profile(const char *name, const char *profile_json) {
  int i = 0;
  if (!name) return;
  while (i < 2 && calibrated[i].json && strcmp(calibrated[i].name, name) != 0) i++;
  if (i == 2) i = 1;
  free(calibrated[i].json);
  calibrated[i].json = NULL;
  if (!profile_json) return;
  size_t n = strlen(profile_json) + 1;
  if (!(calibrated[i].json = malloc(n))) return;
  memcpy(calibrated[i].json, profile_json, n);
  snprintf(calibrated[i].name, sizeof calibrated[i].name, "%s", name);
}

static const char *calibrated_json(const char *profile) {
  for (int i = 0; profile && i < 2; i++)
    if (calibrated[i].json && strcmp(calibrated[i].name, profile) == 0) return calibrated[i].json;
  return NULL;
}

void ui_simulate(const char *experiment, const char *params_json, const char *profile, ui_fetch_cb cb, void *ctx) {
  js_sim_define();
  for (int i = 0; i < MAX_PENDING; i++) {
    if (pending[i].used) continue;
    pending[i].used = 1;
    pending[i].cb = cb;
    pending[i].ctx = ctx;
    js_simulate(i, experiment, params_json ? params_json : "", profile ? profile : "", calibrated_json(profile));
    return;
  }
  cb(0, "", 0, ctx);
}

void ui_explain_text(const char *text, size_t n, ui_fetch_cb cb, void *ctx) {
  for (int i = 0; i < MAX_PENDING; i++) {
    if (pending[i].used) continue;
    pending[i].used = 1;
    pending[i].cb = cb;
    pending[i].ctx = ctx;
    js_explain(i, text, (int)n);
    return;
  }
  cb(0, "", 0, ctx);
}
void ui_explain_warm(void) { js_explain(-1, "", 0); }

void ui_bridge_fetch_done(int slot, int status, const char *body, int len, int retry_after_s) {
  if (slot < 0 || slot >= MAX_PENDING || !pending[slot].used) return;
  ui_fetch_cb cb = pending[slot].cb;
  void *ctx = pending[slot].ctx;
  pending[slot].used = 0;
  retry_after = retry_after_s;
  cb(status, body, len > 0 ? (size_t)len : 0, ctx);
  retry_after = -1;
}

int ui_fetch_retry_after_s(void) { return retry_after; }

void ui_bridge_hash(const char *hash) {
  if (hash_cb) hash_cb(hash, hash_ctx);
}

void ui_bridge_action(const char *action, const char *arg) {
  if (action_cb) action_cb(action, arg, action_ctx);
}

void ui_dom_set_html(const char *id, const char *html) { js_set_html(id, html); }
void ui_dom_append_html(const char *id, const char *html) { js_append_html(id, html); }
void ui_dom_set_text(const char *id, const char *text) { js_set_text(id, text); }
void ui_dom_set_attr(const char *id, const char *name, const char *value) { js_set_attr(id, name, value); }
void ui_dom_fill(const char *selector, const char *html) { js_fill(selector, html); }
void ui_dom_focus(const char *id) { js_focus(id); }
void ui_dom_set_title(const char *title) { js_set_title(title); }

void ui_location_hash(char *buf, size_t n) {
  if (n == 0) return;
  buf[0] = '\0';
  js_hash(buf, (int)n);
}

static void listen_once(void) {
  if (!listening) js_listen();
  listening = 1;
}

void ui_on_hash_change(ui_hash_cb cb, void *ctx) {
  listen_once();
  hash_cb = cb;
  hash_ctx = ctx;
}

void ui_on_action(ui_action_cb cb, void *ctx) {
  listen_once();
  action_cb = cb;
  action_ctx = ctx;
}

int ui_storage_get(const char *key, char *buf, size_t n) {
  if (n == 0) return -1;
  buf[0] = '\0';
  return js_storage_get(key, buf, (int)n);
}

void ui_storage_set(const char *key, const char *value) { js_storage_set(key, value); }

int ui_form_checked(const char *form_id, char *buf, size_t n) {
  if (n == 0) return -1;
  buf[0] = '\0';
  return js_form_checked(form_id, buf, (int)n);
}

void ui_download(const char *filename, const char *mime, const char *text) { js_download(filename, mime, text); }

int ui_dom_value(const char *id, char *buf, size_t n) {
  if (n == 0) return -1;
  buf[0] = '\0';
  return js_dom_value(id, buf, (int)n);
}

void ui_later(int delay_ms, ui_later_cb cb, void *ctx) {
  for (int i = 0; i < MAX_PENDING; i++) {
    if (later[i].used) continue;
    later[i].used = 1;
    later[i].cb = cb;
    later[i].ctx = ctx;
    js_later(i, delay_ms < 0 ? 0 : delay_ms);
    return;
  }
  cb(ctx); /* the table is full: run it now rather than never */
}

void ui_bridge_later(int slot) {
  if (slot < 0 || slot >= MAX_PENDING || !later[slot].used) return;
  ui_later_cb cb = later[slot].cb;
  void *ctx = later[slot].ctx;
  later[slot].used = 0;
  cb(ctx);
}
