/* The pieces every result renderer (result_*.c) builds on: series loaded from
 * an envelope, figure frames with their numbers, the findings list, the
 * device's short name, and the lane chart of an envelope's timeline. */
#include "result_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_panel.h"
#include "json_get.h"
#include "profiles.h"

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
  ui_buf_raw(b, "<figure class=\"exp-figure\"><h4 class=\"fig-title\">");
  ui_buf_text(b, title);
  ui_buf_raw(b, "</h4>");
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

void ui_res_findings(ui_buf *b, const cJSON *env) {
  const cJSON *f;
  if (cJSON_GetArraySize(ui_json_arr(env, "findings")) == 0) return;
  ui_buf_raw(b, "<h4 class=\"fig-title\">What this run shows</h4><ul class=\"findings\">");
  cJSON_ArrayForEach(f, ui_json_arr(env, "findings")) {
    if (!cJSON_IsString(f)) continue;
    ui_buf_raw(b, "<li>");
    ui_buf_text(b, f->valuestring);
    ui_buf_raw(b, "</li>");
  }
  ui_buf_raw(b, "</ul>");
}

/* "CPU (host)" for "cpu", "GPU 0, stream 0" for "gpu:0/stream0"; the
 * doctor's "cpu:op", the host operator its finding names. */
static const char *lane_name(const char *lane, char *buf, size_t n) {
  int dev, stream;
  if (strcmp(lane, "cpu") == 0) return "CPU (host)";
  if (strcmp(lane, "cpu:op") == 0) return "CPU operator named";
  if (sscanf(lane, "gpu:%d/stream%d", &dev, &stream) == 2) {
    snprintf(buf, n, "GPU %d, stream %d", dev, stream);
    return buf;
  }
  return lane;
}

/* Every span an answer sends is drawn: the doctor caps its timeline at 2000 spans itself
 * (DR_MAX_TIMELINE_SPANS, lab/doctor/doctor_int.h), the experiments send far fewer. */
#define MAX_SPANS 2048

/* A span the host spends waiting for the GPU: drawn hatched and marked. */
static bool is_wait(const char *label) { return strstr(label, "synchronize") || strstr(label, "wait"); }

void ui_result_timeline_part(ui_buf *b, const cJSON *env, const char *title, const char *summary, double until_us,
                             const ui_mark *phase, int n_phase) {
  const cJSON *ev;
  int n = 0, n_marks = 0;
  ui_span *spans = calloc(MAX_SPANS, sizeof *spans);
  char (*names)[32] = calloc(MAX_SPANS, sizeof *names);
  ui_mark marks[4];
  if (!spans || !names) {
    b->failed = true;
    goto end;
  }
  for (int i = 0; i < n_phase && i < 4; i++) marks[n_marks++] = phase[i];
  cJSON_ArrayForEach(ev, ui_json_arr(env, "timeline")) {
    const char *lane = ui_json_str(ev, "lane"), *label = ui_json_str(ev, "label");
    double s, e;
    if (n == MAX_SPANS || !lane || !label || !ui_json_num(ev, "start_us", &s) || !ui_json_num(ev, "end_us", &e) ||
        s >= until_us)
      continue;
    spans[n] = (ui_span){lane_name(lane, names[n], sizeof names[n]), label, s, e, is_wait(label)};
    if (n_phase == 0 && n_marks == 0 && is_wait(label)) {
      bool item = strstr(label, ".item()") && !strstr(label, "synchronize");
      marks[n_marks++] = (ui_mark){s, item ? "loss.item() called: the CPU waits" : "synchronize() called: the host waits"};
      marks[n_marks++] = (ui_mark){e, "the GPU is done: the host goes on"};
    }
    n++;
  }
  if (n == 0) goto end;
  /* a doctor's answer says which part of the learner's trace it draws: its times start there, not at a launch */
  const cJSON *of = ui_json_obj(env, "timeline_of");
  /* and the gap its finding is about, marked where it begins and ends (facts in ms from the trace's start) */
  const cJSON *f;
  double from_ms, gap_ms, len_ms;
  if (of && n_marks == 0 && ui_json_num(of, "start_ms", &from_ms))
    cJSON_ArrayForEach(f, ui_json_arr(env, "findings")) {
      const cJSON *facts = ui_json_obj(f, "facts");
      if (!facts || !ui_json_num(facts, "gap_start_ms", &gap_ms) || !ui_json_num(facts, "largest_gap_ms", &len_ms)) continue;
      double g0 = (gap_ms - from_ms) * 1000;
      marks[n_marks++] = (ui_mark){g0, "the gap the finding is about begins"};
      marks[n_marks++] = (ui_mark){g0 + len_ms * 1000, "the gap ends"};
      break;
    }
  const char *x_title = !of ? NULL : ui_json_str(of, "step") ? "time since the step began" : "time since the trace began";
  ui_timeline_chart c = {.summary = summary, .spans = spans, .n = n, .marks = marks, .n_marks = n_marks, .x_title = x_title};
  ui_res_figure_begin(b, title);
  ui_chart_timeline(b, &c);
  ui_res_numbers_begin(b);
  ui_table_spans(b, "Every span of the timeline", spans, n);
  ui_res_figure_end(b);
end:
  free(spans);
  free(names);
}

void ui_result_timeline(ui_buf *b, const cJSON *env, const char *title, const char *summary) {
  ui_result_timeline_part(b, env, title, summary, INFINITY, NULL, 0);
}
