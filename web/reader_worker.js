// The page's trace reader (#doctor): a Web Worker that the UI module starts
// when the learner gives it a file (wasm/platform/bridge.c, js_doctor) and ends when
// the answer is in or the learner cancels. It loads gpulab_reader.js (the
// same lab/doctor/ C as `gpulab doctor`, wasm/reader/) and feeds it the
// file as file.stream() yields it, so memory stays bounded by the reader's
// caps, never by the file's size; a .gz (by its first bytes, 1f 8b) goes
// through the browser's DecompressionStream first. Nothing leaves the
// browser. Messages out: {type:"progress", read, size} (compressed bytes
// read of the file's size) and, once, {type:"done", status, text}: 200 and
// the doctor's answer, or its {"error":…} with the doctor's stable codes
// (and wasm_bytes, the module's memory at the end).
// It also explains pasted errors for #explain (lab/explain/, kept out of the
// UI module), in a worker the page starts on first use and keeps. In:
// {type:"warm"} (load the module now, so the first answer is quick) and
// {type:"explain", id, bytes} (the paste's UTF-8 bytes); out, in order:
// {type:"explained", id, status, text}: 200 and lab_explain's JSON, 400/413
// and its {"error":…} with the stable code, or 0 when the module failed.
"use strict";
importScripts("gpulab_reader.js");

let loading = null; // the module (a promise), one per worker, made on the first message
function load() {
  if (!loading) {
    loading = createGpulabReader({ print: function (t) { console.log(t); }, printErr: function (t) { console.warn(t); } });
  }
  return loading;
}

function explain(m, bytes) {
  const p = m._malloc(bytes.length + 1);
  if (!p) throw new Error("out of memory");
  m.HEAPU8.set(bytes, p); // after _malloc: the memory may have grown
  m.HEAPU8[p + bytes.length] = 0;
  const status = m._gpulab_explain(p, bytes.length);
  m._free(p);
  return { status: status, text: m.UTF8ToString(m._gpulab_explain_text()) };
}

const PROGRESS_MS = 100; // at most ten progress messages a second

async function read(m, file) {
  const size = file.size;
  let read = 0, inflated = 0, last = 0;
  let status = m._gpulab_doctor_begin();
  if (status) return status;
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  const gzip = head.length === 2 && head[0] === 0x1f && head[1] === 0x8b;
  // Counts the file's bytes as they are read (compressed, for a .gz).
  const counted = file.stream().pipeThrough(new TransformStream({
    transform(chunk, ctl) {
      read += chunk.byteLength;
      const now = performance.now();
      if (now - last >= PROGRESS_MS) {
        last = now;
        self.postMessage({ type: "progress", read: read, size: size });
      }
      ctl.enqueue(chunk);
    }
  }));
  const bytes = gzip ? counted.pipeThrough(new DecompressionStream("gzip")) : counted;
  const reader = bytes.getReader();
  let buf = 0, cap = 0;
  try {
    for (;;) {
      let r;
      try {
        r = await reader.read();
      } catch (e) { // only DecompressionStream throws here: damaged or cut short
        const why = String(e && e.message ? e.message : e).slice(0, 120);
        const n = m.lengthBytesUTF8(why) + 1, p = m._malloc(n);
        m.stringToUTF8(why, p, n);
        status = m._gpulab_doctor_gzip_failed(read, /truncat|end of (the )?(data|input|stream)|unexpected end/i.test(why) ? 1 : 0, p);
        m._free(p);
        return status;
      }
      if (r.done) break;
      const chunk = r.value;
      if (chunk.byteLength > cap) {
        if (buf) m._free(buf);
        cap = Math.max(chunk.byteLength, 1 << 20);
        buf = m._malloc(cap);
        if (!buf) throw new Error("out of memory");
      }
      m.HEAPU8.set(chunk, buf); // after _malloc: the memory may have grown
      status = m._gpulab_doctor_feed(buf, chunk.byteLength);
      if (status) return status;
      if (gzip) {
        inflated += chunk.byteLength;
        status = m._gpulab_doctor_inflated(read, inflated);
        if (status) return status;
      }
    }
  } finally {
    if (buf) m._free(buf);
    reader.cancel().catch(function () {});
  }
  self.postMessage({ type: "progress", read: size, size: size });
  return m._gpulab_doctor_end();
}

self.onmessage = function (ev) {
  const d = ev.data || {};
  if (d.type === "warm") {
    load().catch(function () {}); // a failure is answered on the first paste
    return;
  }
  if (d.type === "explain") {
    load()
      .then(function (m) {
        const a = explain(m, d.bytes);
        self.postMessage({ type: "explained", id: d.id, status: a.status, text: a.text });
      })
      .catch(function (e) {
        self.postMessage({ type: "explained", id: d.id, status: 0, text: String(e && e.message ? e.message : e) });
      });
    return;
  }
  const file = d.file;
  load()
    .then(function (m) {
      return read(m, file).then(function (status) {
        // wasm_bytes: the module's linear memory, which only grows: the
        // reader's peak (make bench reports it).
        self.postMessage({ type: "done", status: status, text: m.UTF8ToString(m._gpulab_doctor_text()),
          wasm_bytes: m.HEAPU8.length });
      });
    })
    .catch(function (e) {
      self.postMessage({ type: "done", status: 0, text: String(e && e.message ? e.message : e) });
    });
};
