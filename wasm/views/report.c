/* Builds the lab report (see report.h): the parts every lesson shares and
 * lesson 1's sections; later lessons' sections live in report_*.c. Text from
 * envelopes and the device check is backslash-escaped, so a device name
 * cannot become Markdown or HTML in the learner's viewer; numbers are
 * printed with their unit. */
#include "report.h"

#include <stdio.h>
#include <string.h>

#include "json_get.h"
#include "report_parts.h"
#include "route.h"

/* CommonMark lets any ASCII punctuation be escaped with a backslash; these
 * are the ones that could start markup. Line breaks become spaces, so a
 * value stays inside its table cell or list item. */
void ui_report_md(ui_buf *b, const char *s) {
  char one[3] = {0};
  for (; s && *s; s++) {
    if (*s == '\n' || *s == '\r' || *s == '\t') {
      ui_buf_raw(b, " ");
    } else if (strchr("\\`*_[]<>|#!&~", *s)) {
      one[0] = '\\';
      one[1] = *s;
      ui_buf_raw(b, one);
    } else {
      one[0] = *s;
      one[1] = '\0';
      ui_buf_raw(b, one);
    }
  }
}

static void mdf_num(ui_buf *b, const cJSON *o, const char *key, const char *fmt, const char *absent) {
  double v;
  if (ui_json_num(o, key, &v)) ui_buf_rawf(b, fmt, v);
  else ui_buf_raw(b, absent);
}

const char *ui_report_source(const cJSON *env, char *out, int n) {
  const char *backend = ui_json_str(env, "backend");
  const cJSON *dev = ui_json_obj(env, "device"), *rec = ui_json_obj(env, "recorded");
  const char *name = ui_json_str(dev, "name"), *profile = ui_json_str(dev, "profile");
  if (!backend) snprintf(out, (size_t)n, "unknown");
  else if (strcmp(backend, "cuda") == 0) snprintf(out, (size_t)n, "live (%s)", name ? name : "this machine's GPU");
  else if (strcmp(backend, "recorded") == 0)
    snprintf(out, (size_t)n, "recorded on %s (%s)", ui_json_str(rec, "device") ? ui_json_str(rec, "device") : name ? name : "a GPU",
             ui_json_str(rec, "date") ? ui_json_str(rec, "date") : "date unknown");
  else if (strcmp(backend, "simulated") == 0)
    snprintf(out, (size_t)n, "simulated (profile: %s)", profile ? profile : "default");
  else snprintf(out, (size_t)n, "%s", backend);
  return out;
}

const char *ui_report_filename(const char *lesson_id, const char *date, char *out, int n) {
  char day[11] = "undated";
  if (date && strlen(date) >= 10) {
    memcpy(day, date, 10);
    day[10] = '\0';
    for (int i = 0; i < 10; i++)
      if (!((day[i] >= '0' && day[i] <= '9') || day[i] == '-')) snprintf(day, sizeof day, "undated");
  }
  snprintf(out, (size_t)n, "gpulab-report-%s-%s.md", ui_id_valid(lesson_id) ? lesson_id : "lesson", day);
  return out;
}

/* The title of the lesson section that runs experiment `name`, or NULL. */
const char *ui_report_section_for(const cJSON *lesson, const char *name) {
  const cJSON *s, *e;
  cJSON_ArrayForEach(s, ui_json_arr(lesson, "sections")) {
    cJSON_ArrayForEach(e, ui_json_arr(s, "experiments")) {
      if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0) return ui_json_str(s, "title");
    }
  }
  return NULL;
}

void ui_report_run_hint(ui_buf *b, const cJSON *lesson, const char *name) {
  const char *where = ui_report_section_for(lesson, name);
  ui_buf_rawf(b, "Run the **%s** experiment", name);
  if (where) {
    ui_buf_raw(b, " (section \"");
    ui_report_md(b, where);
    ui_buf_raw(b, "\")");
  }
  ui_buf_raw(b, ", then download this report again.\n\n");
}

void ui_report_findings(ui_buf *b, const cJSON *env) {
  const cJSON *f;
  if (cJSON_GetArraySize(ui_json_arr(env, "findings")) == 0) return;
  ui_buf_raw(b, "What the run found:\n\n");
  cJSON_ArrayForEach(f, ui_json_arr(env, "findings")) {
    if (!cJSON_IsString(f)) continue;
    ui_buf_raw(b, "- ");
    ui_report_md(b, f->valuestring);
    ui_buf_raw(b, "\n");
  }
  ui_buf_raw(b, "\n");
}

/* ---- 1. the device check -------------------------------------------------- */

static void device_list(ui_buf *b, const cJSON *devices) {
  const cJSON *d;
  int n = 0;
  cJSON_ArrayForEach(d, devices) {
    ui_buf_raw(b, n++ ? "; " : "");
    ui_report_md(b, ui_json_str(d, "name") ? ui_json_str(d, "name") : "unnamed device");
    if (ui_json_str(d, "compute_capability")) {
      ui_buf_raw(b, " (compute ");
      ui_report_md(b, ui_json_str(d, "compute_capability"));
      ui_buf_raw(b, ")");
    }
  }
  if (n == 0) ui_buf_raw(b, "none");
}

static void device_source(ui_buf *b, const ui_device_state *d) {
  ui_buf_raw(b, "Source: ");
  if (!d->simulated) {
    ui_buf_raw(b, "**live** — read from the machine running the gpulab server.\n\n");
    return;
  }
  ui_buf_raw(b, "**simulated** (profile: ");
  ui_report_md(b, d->profile_label ? d->profile_label : "default");
  ui_buf_raw(b, d->offline ? ") — the gpulab server could not be reached, so the browser simulated the check.\n\n"
                           : ") — the server's device check failed, so the browser simulated it.");
  if (!d->offline && d->note) {
    ui_buf_raw(b, " ");
    ui_report_md(b, d->note);
  }
  if (!d->offline) ui_buf_raw(b, "\n\n");
}

void ui_report_device_section(ui_buf *b, const ui_device_state *d) {
  const cJSON *drv = ui_json_obj(d ? d->views : NULL, "driver"), *rt = ui_json_obj(d ? d->views : NULL, "runtime");
  const cJSON *v = ui_json_obj(d ? d->views : NULL, "verdict");
  ui_buf_raw(b, "## 1. Device check: the driver's view and the runtime's view\n\n");
  if (!d || !d->views) {
    ui_buf_raw(b, "_The device check had not finished when this report was made._ Wait for the \"Your GPU\" panel, "
                  "then download the report again.\n\n");
    return;
  }
  device_source(b, d);
  ui_buf_raw(b, "| | Driver view (nvidia-smi / NVML) | Runtime view (CUDA runtime) |\n|---|---|---|\n| Answered | ");
  if (ui_json_bool(drv, "present") == 1) {
    ui_buf_raw(b, "yes, via ");
    ui_report_md(b, ui_json_str(drv, "source") ? ui_json_str(drv, "source") : "the driver");
  } else {
    ui_buf_raw(b, "no driver answered");
  }
  ui_buf_raw(b, " | ");
  ui_report_md(b, ui_json_str(rt, "status") ? ui_json_str(rt, "status") : "unknown");
  ui_buf_raw(b, ui_json_bool(rt, "built_with_cuda") == 0 ? " (built without CUDA)" : "");
  ui_buf_raw(b, " |\n| Version | driver ");
  ui_report_md(b, ui_json_str(drv, "driver_version") ? ui_json_str(drv, "driver_version") : "none");
  ui_buf_raw(b, ", CUDA ");
  ui_report_md(b, ui_json_str(drv, "cuda_version") ? ui_json_str(drv, "cuda_version") : "none");
  ui_buf_raw(b, " | runtime ");
  ui_report_md(b, ui_json_str(rt, "runtime_version") ? ui_json_str(rt, "runtime_version") : "none");
  ui_buf_raw(b, " |\n| GPUs seen | ");
  device_list(b, ui_json_arr(drv, "devices"));
  ui_buf_raw(b, " | ");
  device_list(b, ui_json_arr(rt, "devices"));
  ui_buf_raw(b, " |\n| Error | ");
  ui_report_md(b, ui_json_str(drv, "error") ? ui_json_str(drv, "error") : "none");
  ui_buf_raw(b, " | ");
  if (ui_json_str(rt, "error_name")) {
    ui_report_md(b, ui_json_str(rt, "error_name"));
    ui_buf_raw(b, ": ");
  }
  ui_report_md(b, ui_json_str(rt, "error_message") ? ui_json_str(rt, "error_message") : ui_json_str(rt, "error_name") ? "" : "none");
  ui_buf_raw(b, " |\n\n**Verdict:** ");
  ui_report_md(b, ui_json_str(v, "summary") ? ui_json_str(v, "summary") : "no verdict");
  ui_buf_raw(b, " (");
  ui_report_md(b, ui_json_str(v, "code") ? ui_json_str(v, "code") : "unknown");
  ui_buf_raw(b, ui_json_bool(v, "usable") == 1 && ui_json_bool(v, "simulate") != 1
                    ? "). Experiments run on this GPU for real.\n\n"
                    : "). The lab simulates the experiments.\n\n");
  if (ui_json_str(v, "explanation")) {
    ui_report_md(b, ui_json_str(v, "explanation"));
    ui_buf_raw(b, "\n\n");
  }
  if (ui_json_str(v, "advice")) {
    ui_buf_raw(b, "What to do: ");
    ui_report_md(b, ui_json_str(v, "advice"));
    ui_buf_raw(b, "\n\n");
  }
}

/* ---- 2. timing ------------------------------------------------------------- */

static void timing_section(ui_buf *b, const ui_report_input *in) {
  const cJSON *env = in->timing, *m = ui_json_obj(env, "metrics"), *p = ui_json_obj(env, "params");
  const cJSON *st = ui_json_obj(env, "stats");
  char src[200];
  double v;
  ui_buf_raw(b, "## 2. Timing: with and without synchronization\n\n");
  if (!m || !ui_json_num(m, "host_nosync_ms", &v) || !ui_json_num(m, "host_sync_ms", &v)) {
    ui_buf_raw(b, "_No timing run yet._ ");
    ui_report_run_hint(b, in->lesson, "timing");
    return;
  }
  ui_buf_raw(b, "Source: **");
  ui_report_md(b, ui_report_source(env, src, sizeof src));
  ui_buf_raw(b, "** — your last timing run.\n\nRun: ");
  mdf_num(b, p, "repeats", "%.0f", "several");
  ui_buf_raw(b, " matrix multiplies of ");
  mdf_num(b, p, "size", "%.0f", "N");
  ui_buf_raw(b, "×");
  mdf_num(b, p, "size", "%.0f", "N");
  ui_buf_raw(b, " per sample");
  if (ui_json_num(st, "samples", &v)) {
    ui_buf_rawf(b, "; median of %.0f samples", v);
    if (ui_json_num(st, "warmup", &v)) ui_buf_rawf(b, " after %.0f warm-up runs", v);
    if (ui_json_num(st, "iqr_pct", &v)) ui_buf_rawf(b, ", spread (IQR) %.2f %%", v);
  }
  ui_buf_raw(b, ".\n\n| Clock | Time |\n|---|---|\n| Host timer, no synchronize | ");
  mdf_num(b, m, "host_nosync_ms", "%.3f ms", "not measured");
  ui_buf_raw(b, " |\n| Host timer, after synchronize | ");
  mdf_num(b, m, "host_sync_ms", "%.3f ms", "not measured");
  ui_buf_raw(b, " |\n| CUDA events (GPU time) | ");
  mdf_num(b, m, "events_ms", "%.3f ms", "not measured");
  ui_buf_raw(b, " |\n\n");
  if (ui_json_str(st, "method")) {
    ui_buf_raw(b, "How it was measured: ");
    ui_report_md(b, ui_json_str(st, "method"));
    ui_buf_raw(b, "\n\n");
  }
  ui_report_findings(b, env);
}

/* ---- 3. memory ------------------------------------------------------------- */

static void memory_terms(ui_buf *b, const cJSON *env) {
  const cJSON *m = ui_json_obj(env, "metrics"), *t;
  char buf[32];
  double v;
  ui_buf_raw(b, "| Term | Size | Per parameter |\n|---|---|---|\n");
  cJSON_ArrayForEach(t, ui_json_arr(ui_json_obj(env, "details"), "terms")) {
    ui_buf_raw(b, "| ");
    ui_report_md(b, ui_json_str(t, "label") ? ui_json_str(t, "label") : ui_json_str(t, "id"));
    ui_buf_rawf(b, " | %s | ", ui_json_num(t, "bytes", &v) ? ui_fmt_bytes(v, buf) : "unknown");
    if (ui_json_num(t, "bytes_per_param", &v)) ui_buf_rawf(b, "%g bytes", v);
    else ui_buf_raw(b, "grows with batch × sequence length");
    ui_buf_raw(b, " |\n");
  }
  if (ui_json_num(m, "floor_bytes", &v))
    ui_buf_rawf(b, "| **Floor: weights + gradients + Adam** | **%s** | |\n", ui_fmt_bytes(v, buf));
  if (ui_json_num(m, "total_bytes", &v))
    ui_buf_rawf(b, "| **One training step in total** | **%s** | |\n", ui_fmt_bytes(v, buf));
  if (ui_json_num(m, "usable_bytes", &v)) ui_buf_rawf(b, "| Usable on the device | %s | |\n", ui_fmt_bytes(v, buf));
  if (ui_json_num(m, "budget_bytes", &v))
    ui_buf_rawf(b, "| Budget of the deliberate out-of-memory test | %s | |\n", ui_fmt_bytes(v, buf));
  ui_buf_raw(b, "\n");
}

static void memory_section(ui_buf *b, const ui_report_input *in) {
  const cJSON *env = in->memory ? in->memory : in->memory_default;
  const cJSON *p = ui_json_obj(env, "params");
  char src[200];
  ui_buf_raw(b, "## 3. Memory: the terms that can run out\n\n");
  if (!ui_json_obj(env, "metrics")) {
    ui_buf_raw(b, "_No memory run yet, and the browser could not compute the lesson's default._ ");
    ui_report_run_hint(b, in->lesson, "memory");
    return;
  }
  ui_buf_raw(b, "Source: **");
  ui_report_md(b, ui_report_source(env, src, sizeof src));
  if (in->memory) {
    ui_buf_raw(b, "** — your last memory run.\n\n");
  } else {
    ui_buf_raw(b, "** — the lesson's default settings, computed in your browser: you have not run it yet. ");
    ui_report_run_hint(b, in->lesson, "memory");
  }
  ui_buf_raw(b, "Model: ");
  mdf_num(b, p, "params_m", "%g million parameters", "unknown size");
  mdf_num(b, p, "batch", ", batch %.0f", "");
  mdf_num(b, p, "seq_len", ", sequence length %.0f", "");
  mdf_num(b, p, "hidden", ", hidden size %.0f", "");
  mdf_num(b, p, "layers", ", %.0f layers", "");
  ui_buf_raw(b, ", fp32 with Adam. Out-of-memory happens when these terms together pass what the device has left:\n\n");
  memory_terms(b, env);
  ui_report_findings(b, env);
}

/* ---- 4. quiz, sources ------------------------------------------------------ */

static void attempt_line(ui_buf *b, const char *what, const ui_attempt *a) {
  ui_buf_rawf(b, "- %s: %s, %d of %d right", what, a->passed ? "passed" : "not passed", a->score, a->total);
  if (a->date[0]) {
    ui_buf_raw(b, ", ");
    ui_report_md(b, a->date);
  }
  ui_buf_raw(b, a->offline ? " (scored offline, in the browser)\n" : " (scored by the gpulab server)\n");
}

void ui_report_quiz_section(ui_buf *b, const ui_progress *p, int number) {
  ui_buf_rawf(b, "## %d. Quiz\n\n", number);
  if (!p || !p->best.set) {
    ui_buf_raw(b, "_Not taken yet._ Answer the quiz at the end of the lesson, then download this report again.\n\n");
    return;
  }
  attempt_line(b, "Best attempt", &p->best);
  attempt_line(b, "Last attempt", &p->last);
  ui_buf_rawf(b, "- Attempts: %d\n\n", p->attempts);
}

void ui_report_sources_start(ui_buf *b, const ui_device_state *d) {
  ui_buf_raw(b, "## Where every figure comes from\n\n| Figure | Source |\n|---|---|\n| Device check | ");
  if (!d || !d->views) ui_buf_raw(b, "not finished");
  else if (!d->simulated) ui_buf_raw(b, "live");
  else {
    ui_buf_raw(b, "simulated (profile: ");
    ui_report_md(b, d->profile_label ? d->profile_label : "default");
    ui_buf_raw(b, ")");
  }
  ui_buf_raw(b, " |\n");
}

void ui_report_sources_end(ui_buf *b, const ui_progress *p) {
  ui_buf_raw(b, "| Quiz | ");
  if (!p || !p->last.set) ui_buf_raw(b, "not taken yet");
  else ui_buf_raw(b, p->last.offline ? "scored offline in the browser" : "scored by the gpulab server");
  ui_buf_raw(b, " |\n\n**live**: measured just now on the machine running gpulab. **recorded**: a real GPU run saved "
                "earlier and replayed. **simulated**: computed in the browser from a device profile's model — "
                "a teaching estimate, not a measurement.\n");
}

static void sources_section(ui_buf *b, const ui_report_input *in) {
  char src[200];
  ui_report_sources_start(b, in->device);
  ui_buf_raw(b, "| Timing | ");
  if (in->timing && ui_json_obj(in->timing, "metrics")) ui_report_md(b, ui_report_source(in->timing, src, sizeof src));
  else ui_buf_raw(b, "not run yet");
  ui_buf_raw(b, " |\n| Memory | ");
  if (in->memory && ui_json_obj(in->memory, "metrics")) ui_report_md(b, ui_report_source(in->memory, src, sizeof src));
  else if (ui_json_obj(in->memory_default, "metrics")) {
    ui_report_md(b, ui_report_source(in->memory_default, src, sizeof src));
    ui_buf_raw(b, ", lesson default");
  } else ui_buf_raw(b, "not available");
  ui_buf_raw(b, " |\n");
  ui_report_sources_end(b, in->progress);
}

/* Lesson 1's report: device check, timing, memory, quiz. */
static void lesson1_body(ui_buf *b, const ui_report_input *in) {
  ui_report_device_section(b, in->device);
  timing_section(b, in);
  memory_section(b, in);
  ui_report_quiz_section(b, in->progress, 4);
  sources_section(b, in);
}

/* Which sections a lesson's report has, chosen by the lesson id's number
 * ("02-…"); a lesson not listed gets lesson 1's sections. */
static const struct {
  const char *prefix;
  void (*body)(ui_buf *b, const ui_report_input *in);
} bodies[] = {
    {"02-", ui_report_lesson2_body},
};

void ui_report_markdown(ui_buf *b, const ui_report_input *in) {
  const char *title = ui_json_str(in->lesson, "title"), *id = ui_json_str(in->lesson, "id");
  void (*body)(ui_buf *, const ui_report_input *) = lesson1_body;
  ui_buf_raw(b, "# gpulab lab report: ");
  ui_report_md(b, title ? title : "a lesson");
  ui_buf_raw(b, "\n\n- Lesson: ");
  ui_report_md(b, title ? title : "unknown");
  if (ui_id_valid(id)) ui_buf_rawf(b, " (`%s`)", id);
  ui_buf_raw(b, "\n- Date: ");
  ui_report_md(b, in->date ? in->date : "unknown");
  ui_buf_raw(b, "\n- gpulab: ");
  if (in->version) ui_report_md(b, in->version);
  else ui_buf_raw(b, "version unknown (the server could not be reached)");
  ui_buf_raw(b, "\n\n");
  for (size_t i = 0; id && i < sizeof bodies / sizeof bodies[0]; i++)
    if (strncmp(id, bodies[i].prefix, strlen(bodies[i].prefix)) == 0) body = bodies[i].body;
  body(b, in);
}
