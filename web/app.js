// Boots the WebAssembly client: loads gpulab.js (Emscripten, MODULARIZE,
// EXPORT_NAME=createGpulab), which fetches gpulab.wasm and runs main() in
// wasm/main.c, and registers the service worker for offline use. Everything
// else the page does is written in C; this file only says in words why the
// client could not start, if it cannot.
(function () {
  "use strict";

  function fail(message) {
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
  // one the page simply stays online-only.
  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function (err) {
      console.warn("gpulab: offline mode unavailable (service worker not registered): " + (err && err.message ? err.message : err));
    });
  }

  if (typeof WebAssembly !== "object") {
    fail("This browser cannot run WebAssembly, which gpulab needs. Use a current Firefox, Chrome, Edge or Safari.");
    return;
  }

  var script = document.createElement("script");
  script.src = "gpulab.js";
  script.onload = function () {
    if (typeof window.createGpulab !== "function") {
      fail("gpulab.js loaded but did not define the client. Rebuild with 'make' and reload.");
      return;
    }
    window.createGpulab({
      print: function (text) { console.log(text); },
      printErr: function (text) { console.warn(text); }
    }).catch(function (err) {
      fail("gpulab could not start its WebAssembly client: " + (err && err.message ? err.message : err));
    });
  };
  script.onerror = function () {
    fail("gpulab could not load its program (gpulab.js). Rebuild with 'make' and reload the page.");
  };
  document.head.appendChild(script);
})();
