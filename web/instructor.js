// The instructor page: asks GET /api/instructor/class with the token the
// instructor pasted (kept in sessionStorage, sent only as
// "Authorization: Bearer", never in a URL) and shows who joined, their runs
// and quiz results, the GPU queue and the GPU's health and memory, and the
// measurement kit runs they handed in (GET /api/instructor/handins: their
// devices, each figure's spread, the implausible ones flagged), refreshed
// every few seconds. Everything from the server is written with textContent,
// so no learner's name can become markup.
(function () {
  "use strict";

  var KEY = "gpulab.instructor.token";
  var REFRESH_MS = 5000;
  var TIMEOUT_MS = 8000;
  var timer = 0;
  var inFlight = false;

  function $(id) { return document.getElementById(id); }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function storedToken() {
    try { return sessionStorage.getItem(KEY) || ""; } catch (e) { return ""; }
  }
  function storeToken(t) {
    try { if (t) sessionStorage.setItem(KEY, t); else sessionStorage.removeItem(KEY); } catch (e) { /* storage off: this load only */ }
  }
  var memoryToken = ""; // when sessionStorage is unavailable

  function status(text, state) {
    $("status").textContent = text;
    $("status").setAttribute("data-state", state);
  }

  function showTokenError(text) {
    var err = $("token-error");
    err.textContent = text;
    err.hidden = !text;
    if (text) $("token").setAttribute("aria-invalid", "true");
    else $("token").removeAttribute("aria-invalid");
  }

  function signedIn(on) {
    $("token-form").hidden = on;
    $("signed-in").hidden = !on;
    $("class-view").hidden = !on;
  }

  // ---- formatting --------------------------------------------------------------

  function num(v) { return typeof v === "number" && isFinite(v) ? v : null; }

  function seconds(s) {
    if (num(s) === null) return "—";
    if (s < 10) return s.toFixed(1) + " s";
    if (s < 600) return Math.round(s) + " s";
    return Math.round(s / 60) + " min";
  }

  function bytes(b) {
    if (num(b) === null) return "—";
    if (b >= 1e9) return (b / 1e9).toFixed(1) + " GB";
    return Math.round(b / 1e6) + " MB";
  }

  // "14:02:11" for today, else the date too; the server sends ISO-8601 UTC.
  function when(iso) {
    if (typeof iso !== "string") return "—";
    var d = new Date(iso);
    if (isNaN(d.getTime())) return iso;
    var sameDay = d.toDateString() === new Date().toDateString();
    return sameDay ? d.toLocaleTimeString() : d.toLocaleString();
  }

  function ago(iso) {
    var d = typeof iso === "string" ? new Date(iso) : null;
    if (!d || isNaN(d.getTime())) return "—";
    var s = Math.max(0, (Date.now() - d.getTime()) / 1000);
    if (s < 60) return "just now";
    if (s < 3600) return Math.round(s / 60) + " min ago";
    return when(iso);
  }

  // ---- drawing -------------------------------------------------------------------

  function row(cells) {
    var tr = el("tr");
    cells.forEach(function (c, i) {
      var td = el(i === 0 ? "th" : "td");
      if (i === 0) td.setAttribute("scope", "row");
      if (c instanceof Node) td.appendChild(c);
      else td.textContent = c;
      tr.appendChild(td);
    });
    return tr;
  }

  // Runs stored on the server, then those the learner's browser simulated (reported, never stored).
  function runsCell(r) {
    var box = el("span", "instr-runs");
    if (!r || typeof r !== "object") { box.textContent = "—"; return box; }
    box.appendChild(el("strong", null, num(r.total) !== null ? r.total : 0));
    if (num(r.simulated_in_browser)) box.appendChild(el("span", null, " + " + r.simulated_in_browser + " simulated in the browser"));
    var parts = [];
    [["done", "done"], ["queued", "queued"], ["running", "running"], ["failed", "failed"], ["cancelled", "cancelled"]]
      .forEach(function (k) { if (num(r[k[0]])) parts.push(r[k[0]] + " " + k[1]); });
    if (parts.length) box.appendChild(el("span", "muted", " (" + parts.join(", ") + ")"));
    return box;
  }

  // The server sums a learner's attempts per lesson (best score, passed
  // once, last attempt); every attempt is a page of /api/instructor/attempts.
  function quizCell(q) {
    var lessons = q && Array.isArray(q.lessons) ? q.lessons : [];
    if (lessons.length === 0) return el("span", "muted", "no attempt");
    var ul = el("ul", "instr-quiz");
    lessons.forEach(function (a) {
      if (!a || typeof a.lesson !== "string") return;
      var li = el("li");
      li.appendChild(el("span", null, a.lesson + ": " + (num(a.best_score) !== null ? a.best_score : "?") + "/" + (num(a.total) !== null ? a.total : "?") + " "));
      li.appendChild(el("span", "badge badge-small " + (a.passed ? "badge-live" : "badge-wait"), a.passed ? "passed" : "not yet"));
      ul.appendChild(li);
    });
    var n = num(q.attempts) || 0;
    var tries = el("span", "muted instr-tries", n + (n === 1 ? " attempt" : " attempts") + (q.last_at ? ", last " + ago(q.last_at) : ""));
    var box = el("div");
    box.appendChild(ul);
    box.appendChild(tries);
    return box;
  }

  function fillBody(tableId, emptyId, rows) {
    var body = $(tableId).tBodies[0];
    body.textContent = "";
    rows.forEach(function (r) { body.appendChild(r); });
    $(emptyId).hidden = rows.length > 0;
    $(tableId).hidden = rows.length === 0;
  }

  // A server without a usable GPU ("mode": "cpu") says so, never "0.0 s of 300 s".
  var NO_GPU = "no GPU on this server";
  function drawLearners(learners, gpu) {
    var rows = learners.map(function (l) {
      var session = el("span", "badge badge-small " + (l.active ? "badge-live" : "badge-wait"), l.active ? "active" : "left");
      var s = l.sessions || {};
      if (num(s.live) !== null) session.title = s.live + " live session" + (s.live === 1 ? "" : "s") + " of " + s.total + " joined";
      return row([String(l.name || "(no name)"), session, runsCell(l.runs), gpu ? seconds(l.gpu_seconds_used) : NO_GPU, quizCell(l.quiz), ago(l.last_seen)]);
    });
    fillBody("learners", "learners-empty", rows);
  }

  // queue: the live queue (position, estimate); waiting: the stored runs
  // (queued_at, the name of the session that queued it), matched by run id.
  // Names by session are kept across refreshes: a run queued or finished
  // between the two reads of one refresh is in only one of the lists.
  var sessionNames = {};
  function drawQueue(queue, waiting) {
    var names = {}, queuedAt = {};
    waiting.forEach(function (w) {
      if (!w) return;
      queuedAt[w.id] = w.queued_at;
      names[w.id] = w.name;
      if (typeof w.name === "string") sessionNames[w.session_id] = w.name;
    });
    var rows = queue.map(function (q) {
      var est = num(q.estimate_s);
      var st = q.status === "running" ? (est !== null && est >= 1 ? "running, about " + seconds(est) + " left" : "running")
        : "queued" + (est !== null ? ", done in about " + seconds(Math.max(est, 1)) : q.note ? ": no GPU worker is running" : "");
      var badge = el("span", "badge badge-small " + (q.status === "running" ? "badge-live" : "badge-wait"), st);
      return row([q.status === "running" ? "now" : String(q.position || "?"), String(names[q.id] || sessionNames[q.session_id] || q.name || "session " + q.session_id),
        String(q.experiment || "?"), badge, when(q.queued_at || queuedAt[q.id])]);
    });
    fillBody("queue", "queue-empty", rows);
  }

  // Each term and its value in a <div> (allowed inside <dl>), so the grid keeps them together.
  function stat(dl, term, value, extra) {
    var pair = el("div", "instr-stat" + (extra ? " " + extra : ""));
    pair.appendChild(el("dt", null, term));
    pair.appendChild(el("dd", null, value));
    dl.appendChild(pair);
  }

  function drawSummary(data, learners, queue) {
    var dl = $("summary");
    dl.textContent = "";
    var cls = data.class || {};
    var active = learners.filter(function (l) { return l.active; }).length;
    var runs = learners.reduce(function (n, l) { return n + (l.runs && num(l.runs.total) ? l.runs.total : 0); }, 0);
    var waiting = queue.filter(function (q) { return q.status !== "running"; }).length;
    stat(dl, "Learners", learners.length + " joined, " + active + " active");
    // Stored runs (GPU, or simulated by the server) beside those learners' browsers simulated and reported
    // (counted since this server started, never stored): a class without a GPU still shows its activity.
    var inBrowsers = num(data.simulated_in_browsers);
    stat(dl, "Runs", runs + " on the server" + (inBrowsers !== null ? " · " + inBrowsers + " simulated in browsers" : ""));
    stat(dl, "Waiting for the GPU", String(waiting));
    if (typeof cls.join_code === "string") stat(dl, "Join code", cls.join_code);
    var lim = cls.limits || {};
    if (num(lim.gpu_seconds_per_session) !== null)
      stat(dl, "GPU time per learner", data.mode === "cpu" ? NO_GPU : seconds(lim.gpu_seconds_per_session));
    if (num(lim.runs_per_minute) !== null) stat(dl, "Runs per learner per minute", String(lim.runs_per_minute));
    if (num(lim.class_size) !== null && num(lim.join_rate) !== null)
      stat(dl, "Joins", lim.class_size + " at once, then " + lim.join_rate + " a second");
    // What the server refused (joins over the window, wrong codes or tokens), with the setting that changes it.
    var refusals = data.refusals || {};
    var said = Object.keys(refusals).filter(function (k) { return num(refusals[k].count) > 0; }).map(function (k) {
      var r = refusals[k];
      return r.refused + ": " + r.count + " (" + r.change_with + ")"; // "joins with a wrong join code: 1", never "1 joins"
    });
    // A sentence, not a figure: the whole row, in plain weight.
    if (said.length) stat(dl, "Refused since the server started", said.join("; "), "instr-stat-wide");
  }

  // A class on a shared store: each GPU worker, and why one takes no runs.
  function drawWorkers(box, workers) {
    workers.forEach(function (w) {
      if (!w || !w.alive) return;
      var ok = w.usable !== false;
      var p = el("p", "instr-worker");
      p.appendChild(el("span", "badge badge-small " + (ok ? "badge-live" : "badge-sim"), ok ? "takes runs" : "not usable"));
      p.appendChild(el("span", null, " Worker " + w.id + " on " + (w.host || "?") + " (GPU " + w.gpu + ")" +
        (ok ? "" : ": " + (w.unusable_reason || "no reason given")) + "; " + (num(w.runs_done) || 0) + " runs, " +
        (num(w.runs_failed) || 0) + " failed or handed back."));
      box.appendChild(p);
    });
  }

  function drawGpu(gpu, workers) {
    var box = $("gpu");
    box.textContent = "";
    gpu = gpu || {};
    var dev = gpu.device || {};
    var verdict = dev.verdict || {};
    var worker = gpu.worker || {};
    var ok = verdict.usable === true;
    var head = el("p", "instr-gpu-verdict");
    head.appendChild(el("span", "badge " + (ok ? "badge-live" : "badge-sim"), ok ? "usable" : "not usable"));
    head.appendChild(el("span", null, " " + (verdict.summary || "The server gave no verdict on its GPU.")));
    box.appendChild(head);
    if (Array.isArray(workers)) drawWorkers(box, workers);
    else box.appendChild(el("p", "instr-worker", "GPU worker: " + (num(worker.pid) ? "running (process " + worker.pid + ")" : "not running") +
      (num(worker.restarts) !== null ? "; restarted " + worker.restarts + (worker.restarts === 1 ? " time" : " times") +
        " since the server started" : "") + "."));
    var seen = {};
    var devices = [];
    [dev.driver, dev.runtime].forEach(function (v) {
      (v && Array.isArray(v.devices) ? v.devices : []).forEach(function (d) {
        var k = d && (d.index + ":" + d.name);
        if (d && !seen[k]) { seen[k] = true; devices.push(d); }
      });
    });
    if (devices.length === 0) box.appendChild(el("p", "muted", "No GPU reported its memory."));
    devices.forEach(function (d) {
      var total = num(d.memory_total_bytes), free = num(d.memory_free_bytes);
      var p = el("div", "instr-mem");
      p.appendChild(el("p", null, "GPU " + (num(d.index) !== null ? d.index : "?") + ": " + (d.name || "unknown")));
      if (total) {
        var used = free !== null ? total - free : null;
        var id = "mem-" + devices.indexOf(d);
        var label = el("p", "muted", "Memory: " + (used !== null ? bytes(used) + " used of " : "") + bytes(total));
        label.id = id;
        p.appendChild(label);
        if (used !== null) {
          var m = el("meter");
          m.min = 0;
          m.max = total;
          m.low = total * 0.7;
          m.high = total * 0.9;
          m.optimum = 0;
          m.value = used;
          m.className = "class-meter";
          m.setAttribute("aria-labelledby", id);
          m.textContent = Math.round(used / total * 100) + " %";
          p.appendChild(m);
        }
      }
      box.appendChild(p);
    });
  }

  function draw(data) {
    var learners = Array.isArray(data.learners) ? data.learners : [];
    var waiting = Array.isArray(data.waiting) ? data.waiting : [];
    var queue = Array.isArray(data.queue) ? data.queue : waiting;
    $("class-name").textContent = (data.class && data.class.name) || "(unnamed)";
    drawSummary(data, learners, queue);
    drawLearners(learners, data.mode !== "cpu");
    drawQueue(queue, waiting);
    drawGpu(data.gpu, data.workers);
    $("updated").textContent = "Updated " + new Date().toLocaleTimeString() + ".";
  }

  // ---- the learners' own GPUs (GET /api/instructor/handins) ------------------------

  function figureValue(v, unit) {
    if (num(v) === null) return "—";
    if (unit === "bytes") return bytes(v);
    return Number(v.toPrecision(3)) + (unit && unit !== "%" ? " " + unit : unit || "");
  }

  function fill(id, rows) {
    var body = $(id).querySelector("tbody");
    body.textContent = "";
    rows.forEach(function (r) { body.appendChild(row(r)); });
  }

  function drawHandins(data) {
    var cls = data && data.class ? data.class : {};
    var runs = data && Array.isArray(data.handins) ? data.handins : [];
    $("handins-error").hidden = true;
    $("handins-empty").hidden = runs.length > 0;
    $("handins-view").hidden = runs.length === 0;
    fill("handin-devices", (Array.isArray(cls.devices) ? cls.devices : []).map(function (d) {
      return [d.device || "?", d.kind || "?", num(d.learners) !== null ? d.learners : "—"];
    }));
    fill("handin-figures", (Array.isArray(cls.figures) ? cls.figures : []).map(function (f) {
      var name = el("span");
      name.appendChild(el("code", null, f.metric));
      name.appendChild(el("span", "muted", " " + f.experiment));
      var flagged = el("span");
      (Array.isArray(f.implausible) ? f.implausible : []).forEach(function (x, i) {
        if (i) flagged.appendChild(document.createTextNode("; "));
        var b = el("strong", "instr-flagged", (x.name || "?") + ": " + figureValue(x.measured, f.unit));
        b.title = x.reason || "";
        flagged.appendChild(b);
        flagged.appendChild(el("span", "muted", " (" + (x.reason || "") + ")"));
      });
      if (!flagged.childNodes.length) flagged.textContent = "—";
      return [name, f.ran_on === "cpu" ? "CPU" : "GPU", num(f.n) !== null ? f.n : 0, figureValue(f.min, f.unit),
        figureValue(f.median, f.unit), figureValue(f.max, f.unit), flagged];
    }));
    fill("handin-runs", runs.map(function (h) {
      var run = h.run || {};
      var flags = Array.isArray(h.flagged) && h.flagged.length
        ? el("strong", "instr-flagged", h.flagged.length + " implausible: " + h.flagged.map(function (f) { return f.metric; }).join(", "))
        : el("span", "muted", "none");
      return [h.name || "?", (run.device || "?") + " (" + (run.kind || "?") + ")", run.torch || "—",
        [run.platform, run.date].filter(function (x) { return typeof x === "string" && x; }).join(", ") || "—", when(h.at), flags];
    }));
  }

  function loadHandins(t) {
    fetch("/api/instructor/handins", { headers: { "Authorization": "Bearer " + t, "Accept": "application/json" }, cache: "no-store" })
      .then(function (r) { return r.json().then(function (j) { return { status: r.status, json: j }; }); })
      .then(function (res) {
        if (res.status === 200) return drawHandins(res.json);
        $("handins-error").textContent = "The runs handed in could not be read: " +
          (res.json && res.json.error ? res.json.error.message : "HTTP " + res.status);
        $("handins-error").hidden = false;
      }).catch(function () { /* the class view says the server is gone */ });
  }

  // ---- talking to the server -------------------------------------------------------

  function token() { return storedToken() || memoryToken; }

  function schedule() {
    clearTimeout(timer);
    timer = 0;
    if (token() && $("auto").checked && !document.hidden) timer = setTimeout(load, REFRESH_MS);
  }

  function forget(message) {
    storeToken("");
    memoryToken = "";
    clearTimeout(timer);
    signedIn(false);
    status("Not signed in", "wait");
    showTokenError(message || "");
    $("token").focus();
  }

  function load() {
    var t = token();
    if (!t || inFlight) return;
    inFlight = true;
    var ctl = new AbortController();
    var abort = setTimeout(function () { ctl.abort(); }, TIMEOUT_MS);
    fetch("/api/instructor/class", {
      headers: { "Authorization": "Bearer " + t, "Accept": "application/json" },
      cache: "no-store",
      signal: ctl.signal,
    }).then(function (r) {
      return r.text().then(function (text) {
        var json = null;
        try { json = JSON.parse(text); } catch (e) { /* not JSON */ }
        return { status: r.status, json: json };
      });
    }).then(function (res) {
      var code = res.json && res.json.error && res.json.error.code;
      if (res.status === 200 && res.json && typeof res.json === "object") {
        var first = $("signed-in").hidden; // just signed in: move focus to what appeared
        signedIn(true);
        showTokenError("");
        status("Signed in as the instructor", "live");
        draw(res.json);
        loadHandins(t);
        if (first) $("class-name").focus();
      } else if (res.status === 401 || code === "instructor_only") {
        forget("The server did not accept this token. Copy it again from the server's output (the line " +
          "'gpulab: instructor token: …'); a token from an earlier start no longer works.");
      } else if (res.status === 404 && code === "not_found") {
        forget("This server is not running a class. Start it with 'gpulab serve --class FILE' (or --class-name).");
      } else {
        status("The server answered HTTP " + res.status + (res.json && res.json.error ? ": " + res.json.error.message : ""), "error");
      }
    }).catch(function () {
      status("The server did not answer; trying again in " + REFRESH_MS / 1000 + " s", "offline");
    }).then(function () {
      clearTimeout(abort);
      inFlight = false;
      schedule();
    });
  }

  $("token-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var t = $("token").value.trim();
    if (!t) {
      showTokenError("Paste the instructor token first.");
      $("token").focus();
      return;
    }
    if (/\s/.test(t) || t.length > 512) {
      showTokenError("A token has no spaces or line breaks; copy only the part after 'instructor token:'.");
      $("token").focus();
      return;
    }
    storeToken(t);
    if (storedToken() !== t) memoryToken = t;
    $("token").value = ""; // the field does not keep it; sessionStorage does, for this tab only
    status("Checking the token…", "wait");
    load();
  });

  $("forget").addEventListener("click", function () { forget(""); });
  $("refresh").addEventListener("click", function () { load(); });
  $("auto").addEventListener("change", schedule);
  document.addEventListener("visibilitychange", function () { if (!document.hidden) load(); else clearTimeout(timer); });

  // The class-name heading takes focus after signing in (for screen readers).
  $("class-name").setAttribute("tabindex", "-1");
  signedIn(false);
  if (token()) {
    status("Checking the token…", "wait");
    load();
  }
})();
