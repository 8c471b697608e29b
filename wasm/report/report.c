/* Builds the lab report (see report.h): the frame every lesson shares, the
 * table of which lessons have sections of their own (lesson 1's are here),
 * and the generic report (report_generic.c) for every other lesson. Text from
 * envelopes and the device check is backslash-escaped, so a device name
 * cannot become Markdown or HTML in the learner's viewer; numbers are
 * printed with their unit. */
#include "report.h"

#include <stdio.h>
#include <string.h>

#include "chart_axis.h"
#include "json_get.h"
#include "report_generic.h"
#include "report_own.h"
#include "report_parts.h"
#include "route.h"

static void mdf_num(ui_buf *b, const cJSON *o, const char *key, const char *fmt, const char *absent) {
  double v;
  if (ui_json_num(o, key, &v)) ui_buf_rawf(b, fmt, v);
  else ui_buf_raw(b, absent);
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

/* ---- 2. timing ------------------------------------------------------------- */

static void timing_section(ui_buf *b, const ui_report_input *in) {
  const cJSON *env = ui_report_run(in, "timing"), *m = ui_json_obj(env, "metrics"), *p = ui_json_obj(env, "params");
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
    ui_buf_rawf(b, " | %s | ", ui_json_num(t, "bytes", &v) ? ui_fmt_value(v, UI_UNIT_BYTES, buf) : "unknown");
    if (ui_json_num(t, "bytes_per_param", &v)) ui_buf_rawf(b, "%g bytes", v);
    else ui_buf_raw(b, "grows with batch × sequence length");
    ui_buf_raw(b, " |\n");
  }
  if (ui_json_num(m, "floor_bytes", &v))
    ui_buf_rawf(b, "| **Floor: weights + gradients + Adam** | **%s** | |\n", ui_fmt_value(v, UI_UNIT_BYTES, buf));
  if (ui_json_num(m, "total_bytes", &v))
    ui_buf_rawf(b, "| **One training step in total** | **%s** | |\n", ui_fmt_value(v, UI_UNIT_BYTES, buf));
  if (ui_json_num(m, "usable_bytes", &v))
    ui_buf_rawf(b, "| Free on the device (after the CUDA context) | %s | |\n", ui_fmt_value(v, UI_UNIT_BYTES, buf));
  if (ui_json_num(m, "budget_bytes", &v))
    ui_buf_rawf(b, "| The run's budget_gib cap | %s | |\n", ui_fmt_value(v, UI_UNIT_BYTES, buf));
  if (ui_json_num(m, "fits", &v))
    ui_buf_rawf(b, "| **Verdict** | **%s** | |\n", v == 1 ? "fits under the lower of the two" : "does not fit");
  ui_buf_raw(b, "\n");
}

/* The out-of-memory of the run, and the fixes that follow from its numbers. */
static void memory_oom(ui_buf *b, const cJSON *env) {
  const cJSON *o = ui_json_obj(ui_json_obj(env, "details"), "oom");
  if (!ui_json_str(o, "message")) return;
  ui_buf_raw(b, ui_json_bool(o, "deliberate") == 1 ? "Out of memory, on purpose (force_oom), at " : "Out of memory at ");
  ui_report_md(b, ui_json_str(o, "step") ? ui_json_str(o, "step") : "a step");
  ui_buf_raw(b, ": ");
  ui_report_md(b, ui_json_str(o, "message"));
  ui_buf_raw(b, "\n\n");
  ui_report_list(b, "How to fix it:", ui_json_arr(o, "fixes"));
}

/* The learner's memory run, else the lesson's default (lessons[] below). */
static void memory_section(ui_buf *b, const ui_report_input *in) {
  const cJSON *mine = ui_report_run(in, "memory"), *env = mine ? mine : in->default_run;
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
  if (mine) {
    ui_buf_raw(b, "** — your last memory run.\n\n");
  } else {
    ui_buf_raw(b, "** — the lesson's default settings, computed in your browser: you have not run it yet. ");
    ui_report_run_hint(b, in->lesson, "memory");
  }
  ui_buf_raw(b, "Model: ");
  double pm;
  char fig[32];
  if (ui_json_num(p, "params_m", &pm)) ui_buf_textf(b, "%s million parameters", ui_fmt_value(pm, UI_UNIT_PLAIN, fig));
  else ui_buf_raw(b, "unknown size");
  mdf_num(b, p, "batch", ", batch %.0f", "");
  mdf_num(b, p, "seq_len", ", sequence length %.0f", "");
  mdf_num(b, p, "hidden", ", hidden size %.0f", "");
  mdf_num(b, p, "layers", ", %.0f layers", "");
  ui_buf_raw(b, ", fp32 with Adam. Out-of-memory happens when these terms together pass what the device has left:\n\n");
  memory_terms(b, env);
  memory_oom(b, env);
  ui_report_findings(b, env);
}

static void sources_section(ui_buf *b, const ui_report_input *in) {
  char src[200];
  const cJSON *timing = ui_report_run(in, "timing"), *memory = ui_report_run(in, "memory");
  ui_report_sources_start(b, in->device);
  ui_buf_raw(b, "| Timing | ");
  if (timing) {
    ui_report_md(b, ui_report_source(timing, src, sizeof src));
    ui_report_real_series(b, timing);
  } else ui_buf_raw(b, "not run yet");
  ui_buf_raw(b, " |\n| Memory | ");
  if (memory) ui_report_md(b, ui_report_source(memory, src, sizeof src));
  else if (ui_json_obj(in->default_run, "metrics")) {
    ui_report_md(b, ui_report_source(in->default_run, src, sizeof src));
    ui_buf_raw(b, ", lesson default");
  } else ui_buf_raw(b, "not available");
  ui_buf_raw(b, " |\n");
  const cJSON *runs[] = {timing, memory ? memory : in->default_run};
  ui_report_sources_end(b, in->progress);
  ui_report_mixed_note(b, runs, 2);
}

/* Lesson 1's report: device check, timing, memory, quiz. */
static void lesson1_body(ui_buf *b, const ui_report_input *in) {
  ui_report_device_section(b, in->device);
  timing_section(b, in);
  memory_section(b, in);
  ui_report_quiz_section(b, in->progress, 4);
  sources_section(b, in);
}

/* The lessons whose report has sections of its own, by the lesson id's
 * number ("01-…"), and the experiment each quotes at its defaults when the
 * learner has no run of it; every other lesson gets the generic report. */
static const struct {
  const char *prefix;
  void (*body)(ui_buf *b, const ui_report_input *in);
  const char *default_experiment;
} lessons[] = {
    {"01-", lesson1_body, "memory"},
};

static int lesson_of(const cJSON *lesson) {
  const char *id = ui_json_str(lesson, "id");
  for (size_t i = 0; id && i < sizeof lessons / sizeof lessons[0]; i++)
    if (strncmp(id, lessons[i].prefix, strlen(lessons[i].prefix)) == 0) return (int)i;
  return -1;
}

const char *ui_report_default_experiment(const cJSON *lesson) {
  int i = lesson_of(lesson);
  return i < 0 ? NULL : lessons[i].default_experiment;
}

void ui_report_markdown(ui_buf *b, const ui_report_input *in) {
  const char *title = ui_json_str(in->lesson, "title"), *id = ui_json_str(in->lesson, "id");
  int which = lesson_of(in->lesson);
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
  if (which < 0) ui_report_generic_body(b, in);
  else lessons[which].body(b, in);
  ui_report_own_run(b, in->own_run);
}
