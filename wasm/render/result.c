/* The frame around every result (source label, method, statistics,
 * findings) and the dispatch to one renderer per experiment. */
#include "result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments.h"
#include "json_get.h"
#include "registry.h"
#include "result_parts.h"
#include "result_stem.h"

const char *ui_result_source(const cJSON *env, bool in_browser, char *buf, size_t n) {
  const char *backend = ui_json_str(env, "backend");
  const char *name = ui_json_str(ui_json_obj(env, "device"), "name");
  char shortname[64];
  const char *exp = ui_json_str(env, "experiment");
  if (backend && strcmp(backend, "cuda") == 0 && lab_experiment_is_device_check(lab_experiment_find(exp))) {
    /* The device check runs on the server's machine whatever it finds,
     * GPU or none: live, but not "on a GPU". */
    snprintf(buf, n, "checked live on the server's machine%s", name ? "" : " (no usable GPU found)");
  } else if (backend && strcmp(backend, "cuda") == 0) {
    snprintf(buf, n, "live on %s", name ? name : "this machine's GPU");
  } else if (backend && strcmp(backend, "pytorch") == 0) {
    ui_result_kit_source(env, NULL, buf, n);
  } else if (backend && strcmp(backend, "recorded") == 0) {
    const cJSON *rec = ui_json_obj(env, "recorded");
    const char *rdev = ui_json_str(rec, "device"), *date = ui_json_str(rec, "date");
    if (ui_json_obj(env, "measured_with")) ui_result_kit_source(env, rec, buf, n); /* never as gpulab's own kernels */
    else snprintf(buf, n, "recorded on %s, %s", rdev ? rdev : name ? name : "a GPU", date ? date : "date unknown");
  } else {
    snprintf(buf, n, "simulated — profile %s (%s)", ui_res_device_short(env, shortname, sizeof shortname),
             in_browser ? "in your browser" : "on the server");
  }
  return buf;
}

/* A run of the measurement kit (backend "pytorch", or one kept as a
 * recording): its own words, from its "measured_with"; rec is the
 * recording's object, NULL for the learner's own run. */
const char *ui_result_kit_source(const cJSON *env, const cJSON *rec, char *buf, size_t n) {
  const cJSON *mw = ui_json_obj(env, "measured_with");
  const char *name = ui_json_str(ui_json_obj(env, "device"), "name"), *torch = ui_json_str(mw, "torch");
  const char *platform = ui_json_str(mw, "platform"), *date = ui_json_str(rec ? rec : mw, "date");
  const char *dev = rec && ui_json_str(rec, "device") ? ui_json_str(rec, "device") : name ? name : "the CPU";
  if (rec)
    snprintf(buf, n, "recorded with the measurement kit, PyTorch %s, on %s%s%s, %s", torch ? torch : "?", dev,
             platform ? " on " : "", platform ? platform : "", date ? date : "date unknown");
  else
    snprintf(buf, n, "your run: %s, PyTorch %s%s%s", dev, torch ? torch : "?", platform ? ", " : "",
             platform ? platform : "");
  return buf;
}

static void stats_line(ui_buf *b, const cJSON *env) {
  const cJSON *st = ui_json_obj(env, "stats");
  const char *method = ui_json_str(st, "method"), *median_of = ui_json_str(st, "median_of");
  double samples = 0, warmup = 0, iqr = 0, median;
  char t[32];
  /* Folded: the method names the profile's fields (context_bytes,
   * launch_us…), useful to someone checking the model, noise to a learner
   * reading the result. */
  if (method) {
    ui_buf_raw(b, "<details class=\"exp-method\"><summary>How it was measured: the method, in full</summary><p>");
    ui_buf_text(b, method);
    ui_buf_raw(b, "</p></details>");
  }
  ui_buf_raw(b, "<p class=\"exp-stats\">");
  if (ui_json_num(st, "samples", &samples)) {
    ui_buf_textf(b, "%.0f sample%s", samples, samples == 1 ? "" : "s");
    if (ui_json_num(st, "warmup", &warmup) && warmup > 0) ui_buf_textf(b, " after %.0f warm-up run%s", warmup,
                                                                           warmup == 1 ? "" : "s");
  }
  if (median_of) {
    ui_buf_raw(b, " · median of <code>");
    ui_buf_text(b, median_of);
    ui_buf_raw(b, "</code>");
    median = ui_res_metric(env, median_of);
    if (isfinite(median)) {
      ui_buf_raw(b, " = ");
      ui_buf_text(b, ui_fmt_value(median, UI_UNIT_PLAIN, t));
    }
  }
  if (ui_json_num(st, "iqr_pct", &iqr)) ui_buf_textf(b, " · spread (IQR) %s %% of the median", ui_fmt_value(iqr, UI_UNIT_PLAIN, t));
  int valid = ui_json_bool(env, "validated");
  if (valid == 1) ui_buf_raw(b, " · checked against the CPU reference");
  else if (valid == 0) ui_buf_raw(b, " · <strong>did not match the CPU reference</strong>");
  ui_buf_raw(b, "</p>");
}

/* Series worked out for real (a series' "source", docs/architecture.md):
 * one badge covers the backend's numbers, and these are named with where
 * they ran, so a simulated run never hides real numbers and a real line is
 * never taken for simulated. One badge per kind, then its lines: the
 * precision run has nine computed lines, and nine equal badges said it
 * nine times. */
static void series_sources(ui_buf *b, const cJSON *env, bool in_browser) {
  static const char *const kinds[] = {"measured", "computed"};
  const cJSON *s;
  const char *backend = ui_json_str(env, "backend");
  bool any = false;
  /* Groups: measured/computed, each here (the browser) or on the server; a
   * line with ran_on "server" is one the server measured beside an
   * in-browser run (crossover's BLAS line). */
  for (int g = 0; g < 4; g++) {
    bool measured = g < 2, on_server = g % 2 == 1, open = false;
    const char *named[16]; /* a label is named once (precision's FP32 is a throughput, an error and a loss line) */
    int n_named = 0;
    cJSON_ArrayForEach(s, ui_json_arr(env, "series")) {
      const char *source = ui_json_str(s, "source"), *label = ui_json_str(s, "label");
      if (!source || strcmp(source, kinds[measured ? 0 : 1]) != 0) continue;
      const char *ran_on = ui_json_str(s, "ran_on");
      bool here = in_browser && !(ran_on && strcmp(ran_on, "server") == 0);
      if (here == on_server) continue;
      if (!label) label = ui_json_str(s, "id");
      bool seen = false;
      for (int i = 0; label && i < n_named; i++) seen = seen || strcmp(named[i], label) == 0;
      if (seen) continue;
      if (label && n_named < 16) named[n_named++] = label;
      if (!any) ui_buf_raw(b, "<ul class=\"exp-series-sources\" aria-label=\"Where each line's numbers come from\">");
      if (!open)
        ui_buf_rawf(b, "<li><span class=\"badge badge-real badge-small\">%s</span> ",
                    measured ? (here ? "measured in your browser" : "measured on the server's CPU")
                             : (here ? "computed in your browser" : "computed on the server's CPU"));
      else
        ui_buf_raw(b, "; ");
      any = open = true;
      ui_buf_text(b, label); /* the label says what did the work */
    }
    if (open) ui_buf_raw(b, "</li>");
  }
  if (any && backend && strcmp(backend, "simulated") == 0)
    ui_buf_raw(b, "<li class=\"muted\">Every other line is simulated from the device profile.</li>");
  if (any) ui_buf_raw(b, "</ul>");
}

/* One renderer per experiment, from the table in lab/face/experiments.h. */
#define UI_X_RENDERER_DECL(stem, gpu, cpu, needs) UI_RESULT_RENDERER(stem);
LAB_EXPERIMENTS(UI_X_RENDERER_DECL)
#undef UI_X_RENDERER_DECL

static const struct {
  const char *name;
  void (*render)(ui_buf *b, const cJSON *env);
} renderers[] = {
#define UI_X_RENDERER(stem, gpu, cpu, needs) {#stem, ui_result_##stem},
    LAB_EXPERIMENTS(UI_X_RENDERER)
#undef UI_X_RENDERER
};

void ui_render_result(ui_buf *b, const cJSON *env, bool in_browser, const char *note) {
  const char *exp = ui_json_str(env, "experiment"), *backend = ui_json_str(env, "backend");
  char src[200];
  ui_result_source(env, in_browser, src, sizeof src);
  /* live, recorded and simulated each look different: a recorded run was
   * measured on a real GPU, earlier, and must not pass for a model's. */
  ui_buf_rawf(b, "<div class=\"exp-source\"><span class=\"badge %s\">",
              !backend                           ? "badge-sim"
              : strcmp(backend, "cuda") == 0     ? "badge-live"
              : strcmp(backend, "pytorch") == 0  ? "badge-own"
              : strcmp(backend, "recorded") == 0 ? "badge-rec"
                                                 : "badge-sim");
  ui_buf_text(b, src);
  ui_buf_raw(b, "</span></div>");
  series_sources(b, env, in_browser);
  if (note) {
    ui_buf_raw(b, "<p class=\"exp-note\">");
    ui_buf_text(b, note);
    ui_buf_raw(b, "</p>");
  }
  for (size_t i = 0; exp && i < sizeof renderers / sizeof renderers[0]; i++)
    if (strcmp(exp, renderers[i].name) == 0) renderers[i].render(b, env);
  ui_res_findings(b, env);
  stats_line(b, env);
}
