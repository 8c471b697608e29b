// The simulation module's thin shim: runs in a Web Worker that the page's
// UI module starts on the first simulation (wasm/platform/bridge.c, js_simulate).
// It loads gpulab_sim.js (Emscripten, wasm/sim/) and answers each message
// {id, experiment, params, profile, profile_json} with {id, status, text}:
// the envelope (200) or an error object (400) as JSON text, in order.
// A message {id, type: "kit", file} is a measurement kit file the page
// (#yours) was given: its bytes are read here, never sent anywhere, and
// compared by the same C as `gpulab compare` (wasm/sim/kit_run.c), with the
// lessons' claims the page may check (/lessons/claims.json, kept by the
// service worker); a file larger than the kit ever writes is not read at
// all, only its size is given, and the C refuses it.
"use strict";
importScripts("gpulab_sim.js");
const ready = createGpulabSim({
  print: function (text) { console.log(text); },
  printErr: function (text) { console.warn(text); }
});
const KIT_MAX_BYTES = 1024 * 1024; // lab/compare/kit_file.h, LAB_KIT_MAX_BYTES

let claims = null; // the claims' text, asked once (a failure is asked again next time)
function claimsText() {
  if (!claims) {
    claims = fetch("/lessons/claims.json").then(function (r) { return r.ok ? r.text() : ""; })
      .catch(function () { return ""; })
      .then(function (t) { if (!t) claims = null; return t; });
  }
  return claims;
}

// bytes into the module's memory, NUL-terminated (not through ccall's
// "string", which copies onto the module's small stack); 0 for null.
function place(m, bytes) {
  if (!bytes) return 0;
  const p = m._malloc(bytes.length + 1);
  if (!p) throw new Error("out of memory");
  m.HEAPU8.set(bytes, p); // after _malloc: the memory may have grown
  m.HEAPU8[p + bytes.length] = 0;
  return p;
}

async function compareKit(m, file) {
  const size = file.size;
  const bytes = size <= KIT_MAX_BYTES ? new Uint8Array(await file.arrayBuffer()) : null;
  const text = new TextEncoder().encode(await claimsText());
  let p = 0, c = 0;
  try {
    p = place(m, bytes);
    c = place(m, text);
    const status = m._gpulab_kit_compare(p, size, c);
    return { status: status, text: m.UTF8ToString(m._gpulab_sim_text()) };
  } finally {
    if (p) m._free(p);
    if (c) m._free(c);
  }
}

self.onmessage = function (ev) {
  const d = ev.data;
  ready.then(function (m) {
    if (d.type === "kit") {
      return compareKit(m, d.file).then(function (a) {
        self.postMessage({ id: d.id, status: a.status, text: a.text });
      }, function (e) {
        self.postMessage({ id: d.id, status: 0, text: String(e && e.message ? e.message : e) });
      });
    }
    const status = m.ccall("gpulab_sim_run", "number", ["string", "string", "string", "string"],
      [d.experiment, d.params, d.profile, d.profile_json]);
    self.postMessage({ id: d.id, status: status, text: m.UTF8ToString(m._gpulab_sim_text()) });
  }, function () {
    self.postMessage({ id: d.id, status: 0, text: "" });
  });
};
