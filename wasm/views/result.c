/* The frame around every result (source label, method, statistics,
 * findings) and the dispatch to one renderer per experiment. */
#include "result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "json_get.h"
#include "profiles.h"
#include "result_parts.h"

int ui_res_series(const cJSON *env, const char *const *ids, int n, ui_series_xy *out) {
  int got = 0;
  for (int i = 0; i < n; i++) {
    const cJSON *s;
    cJSON_ArrayForEach(s, ui_json_arr(env, "series")) {
      const char *id = ui_json_str(s, "id");
      const cJSON *pts = ui_json_arr(s, "points"), *p;
      if (!id || strcmp(id, ids[i]) != 0 || !pts) continue;
      int np = cJSON_GetArraySize(pts), k = 0;
      double *mem = malloc(sizeof(double) * 2 * (size_t)(np > 0 ? np : 1));
      if (!mem) break;
      cJSON_ArrayForEach(p, pts) {
        const cJSON *x = cJSON_GetArrayItem(p, 0), *y = cJSON_GetArrayItem(p, 1);
        if (!cJSON_IsNumber(x) || !cJSON_IsNumber(y)) continue;
        mem[k] = x->valuedouble;
        mem[np + k] = y->valuedouble;
        k++;
      }
      out[got].label = ui_json_str(s, "label") ? ui_json_str(s, "label") : id;
      out[got].n = k;
      out[got].x = mem;
      out[got].y = mem + np;
      got++;
      break;
    }
  }
  return got;
}

void ui_res_free(ui_series_xy *s, int n) {
  for (int i = 0; i < n; i++) free((void *)s[i].x);
}

double ui_res_metric(const cJSON *env, const char *key) {
  double v;
  return ui_json_num(ui_json_obj(env, "metrics"), key, &v) ? v : NAN;
}

void ui_res_figure_begin(ui_buf *b, const char *title) {
  ui_buf_raw(b, "<figure class=\"exp-figure\"><h5 class=\"fig-title\">");
  ui_buf_text(b, title);
  ui_buf_raw(b, "</h5>");
}

void ui_res_numbers_begin(ui_buf *b) { ui_buf_raw(b, "<details class=\"exp-numbers\"><summary>Show the numbers</summary>"); }

void ui_res_figure_end(ui_buf *b) { ui_buf_raw(b, "</details></figure>"); }

const char *ui_res_device_short(const cJSON *env, char *buf, int n) {
  const cJSON *dev = ui_json_obj(env, "device");
  const char *profile = ui_json_str(dev, "profile"), *name = ui_json_str(dev, "name");
  const lab_profile *p = profile ? lab_profile_find(profile) : NULL;
  if (p) return ui_profile_short_label(p->label, buf, n);
  snprintf(buf, (size_t)n, "%s", profile ? profile : name ? name : "an unnamed device");
  return buf;
}

const char *ui_result_source(const cJSON *env, bool in_browser, char *buf, size_t n) {
  const char *backend = ui_json_str(env, "backend");
  const char *name = ui_json_str(ui_json_obj(env, "device"), "name");
  char shortname[64];
  if (backend && strcmp(backend, "cuda") == 0) {
    snprintf(buf, n, "live on %s", name ? name : "this machine's GPU");
  } else if (backend && strcmp(backend, "recorded") == 0) {
    const cJSON *rec = ui_json_obj(env, "recorded");
    const char *rdev = ui_json_str(rec, "device"), *date = ui_json_str(rec, "date");
    snprintf(buf, n, "recorded on %s, %s", rdev ? rdev : name ? name : "a GPU", date ? date : "date unknown");
  } else {
    snprintf(buf, n, "simulated — profile %s (%s)", ui_res_device_short(env, shortname, sizeof shortname),
             in_browser ? "in your browser" : "on the server");
  }
  return buf;
}

static void stats_line(ui_buf *b, const cJSON *env) {
  const cJSON *st = ui_json_obj(env, "stats");
  const char *method = ui_json_str(st, "method"), *median_of = ui_json_str(st, "median_of");
  double samples = 0, warmup = 0, iqr = 0, median;
  char t[32];
  if (method) {
    ui_buf_raw(b, "<p class=\"exp-method\"><strong>How it was measured:</strong> ");
    ui_buf_text(b, method);
    ui_buf_raw(b, "</p>");
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
  if (ui_json_num(st, "iqr_pct", &iqr)) ui_buf_textf(b, " · spread (IQR) %.2g %% of the median", iqr);
  int valid = ui_json_bool(env, "validated");
  if (valid == 1) ui_buf_raw(b, " · checked against the CPU reference");
  else if (valid == 0) ui_buf_raw(b, " · <strong>did not match the CPU reference</strong>");
  ui_buf_raw(b, "</p>");
}

static void findings(ui_buf *b, const cJSON *env) {
  const cJSON *f;
  if (cJSON_GetArraySize(ui_json_arr(env, "findings")) == 0) return;
  ui_buf_raw(b, "<h5 class=\"fig-title\">What this run shows</h5><ul class=\"findings\">");
  cJSON_ArrayForEach(f, ui_json_arr(env, "findings")) {
    if (!cJSON_IsString(f)) continue;
    ui_buf_raw(b, "<li>");
    ui_buf_text(b, f->valuestring);
    ui_buf_raw(b, "</li>");
  }
  ui_buf_raw(b, "</ul>");
}

void ui_view_result(ui_buf *b, const cJSON *env, bool in_browser, const char *note) {
  const char *exp = ui_json_str(env, "experiment"), *backend = ui_json_str(env, "backend");
  char src[200];
  ui_result_source(env, in_browser, src, sizeof src);
  ui_buf_rawf(b, "<div class=\"exp-source\"><span class=\"badge %s\">",
              backend && strcmp(backend, "cuda") == 0 ? "badge-live" : "badge-sim");
  ui_buf_text(b, src);
  ui_buf_raw(b, "</span></div>");
  if (note) {
    ui_buf_raw(b, "<p class=\"exp-note\">");
    ui_buf_text(b, note);
    ui_buf_raw(b, "</p>");
  }
  if (!exp) exp = "";
  if (strcmp(exp, "transfer") == 0) ui_result_transfer(b, env);
  else if (strcmp(exp, "timing") == 0) ui_result_timing(b, env);
  else if (strcmp(exp, "precision") == 0) ui_result_precision(b, env);
  else if (strcmp(exp, "crossover") == 0) ui_result_crossover(b, env);
  else if (strcmp(exp, "memory") == 0) ui_result_memory(b, env);
  else if (strcmp(exp, "train_step") == 0) ui_result_train_step(b, env);
  else if (strcmp(exp, "placement") == 0) ui_result_placement(b, env);
  else if (strcmp(exp, "graphs") == 0) ui_result_graphs(b, env);
  else if (strcmp(exp, "allocator") == 0) ui_result_allocator(b, env);
  else if (strcmp(exp, "streams") == 0) ui_result_streams(b, env);
  else if (strcmp(exp, "profile") == 0) ui_result_profile(b, env);
  if (strcmp(exp, "device") == 0) {
    ui_result_device(b, env, in_browser); /* the panel lists its own findings */
  } else {
    findings(b, env);
  }
  stats_line(b, env);
}
