// The simulation module's thin shim: runs in a Web Worker that the page's
// UI module starts on the first simulation (wasm/platform/bridge.c, js_simulate).
// It loads gpulab_sim.js (Emscripten, wasm/sim/) and answers each message
// {id, experiment, params, profile, profile_json} with {id, status, text}:
// the envelope (200) or an error object (400) as JSON text, in order.
"use strict";
importScripts("gpulab_sim.js");
const ready = createGpulabSim({
  print: function (text) { console.log(text); },
  printErr: function (text) { console.warn(text); }
});
self.onmessage = function (ev) {
  const d = ev.data;
  ready.then(function (m) {
    const status = m.ccall("gpulab_sim_run", "number", ["string", "string", "string", "string"],
      [d.experiment, d.params, d.profile, d.profile_json]);
    self.postMessage({ id: d.id, status: status, text: m.UTF8ToString(m._gpulab_sim_text()) });
  }, function () {
    self.postMessage({ id: d.id, status: 0, text: "" });
  });
};
