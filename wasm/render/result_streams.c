/* streams: the four pipelines' totals side by side, then the run asked for
 * as a timeline with one lane per stream and per engine (bars coloured by
 * stage, so overlap shows as colours stacked in time), its one-stream twin
 * on the same time axis, and the race between a copy and a compute stream. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_draw.h"
#include "json_get.h"
#include "result_parts.h"
#include "result_stem.h"

#define MAX_SPANS 320
#define MAX_LANES 12
#define LANE_W 420.0

/* "stream 2", "H2D copy engine" … from the envelope's lane after its prefix. */
static const char *lane_title(const char *lane, char *buf, size_t n) {
  int s;
  if (sscanf(lane, "gpu:0/stream%d", &s) == 1) snprintf(buf, n, "stream %d", s);
  else if (!strcmp(lane, "gpu:0/engine/h2d")) snprintf(buf, n, "H2D engine");
  else if (!strcmp(lane, "gpu:0/engine/compute")) snprintf(buf, n, "compute");
  else if (!strcmp(lane, "gpu:0/engine/d2h")) snprintf(buf, n, "D2H engine");
  else snprintf(buf, n, "%s", lane);
  return buf;
}

static int tone_of(const char *label) {
  if (strstr(label, "stale")) return 3;
  if (!strncmp(label, "H2D", 3)) return 0;
  if (!strncmp(label, "kernel", 6)) return 1;
  return 2;
}

/* The spans whose lane starts with `prefix` (and not with another group's). */
static int collect(const cJSON *env, const char *prefix, ui_span *spans, char (*names)[32]) {
  const cJSON *ev;
  int n = 0;
  size_t pl = strlen(prefix);
  cJSON_ArrayForEach(ev, ui_json_arr(env, "timeline")) {
    const char *lane = ui_json_str(ev, "lane"), *label = ui_json_str(ev, "label");
    double s, e;
    if (n == MAX_SPANS || !lane || !label || strncmp(lane, prefix, pl) || !ui_json_num(ev, "start_us", &s) ||
        !ui_json_num(ev, "end_us", &e))
      continue;
    if (!pl && strncmp(lane, "gpu:", 4)) continue; /* the run asked for has no prefix */
    spans[n] = (ui_span){lane_title(lane + pl, names[n], sizeof names[n]), label, s, e, false};
    n++;
  }
  return n;
}

/* Lanes top to bottom in first-seen order, bars coloured by stage. */
static void lanes_chart(ui_buf *b, const ui_span *sp, int n, double x_max, const char *summary) {
  const char *lanes[MAX_LANES];
  int n_lanes = 0;
  ui_axis ax;
  char t[32], t2[32];
  for (int i = 0; i < n; i++) {
    int l = 0;
    while (l < n_lanes && strcmp(lanes[l], sp[i].lane)) l++;
    if (l == n_lanes && n_lanes < MAX_LANES) lanes[n_lanes++] = sp[i].lane;
  }
  /* The label column is as wide as its longest lane name, so no name runs
   * under the bars ("H2D engine" at a phone's font size). */
  double label_w = 0;
  for (int l = 0; l < n_lanes; l++)
    if (ui_label_w(lanes[l], UI_FS_LABEL) > label_w) label_w = ui_label_w(lanes[l], UI_FS_LABEL);
  double h = 30 + n_lanes * 26 + 52;
  ui_box bx = {label_w + 16 > 92 ? label_w + 16 : 92, 14, LANE_W - 14, h - 52};
  ui_svg_begin(b, "chart-timeline", LANE_W, h, summary);
  ui_axis_fit(&ax, UI_SCALE_LINEAR, 0, x_max > 0 ? x_max : 1, 6, true);
  ui_axis_x(b, &bx, &ax, UI_UNIT_US, "time since the start event");
  for (int l = 0; l < n_lanes; l++) {
    double y = bx.y0 + 6 + l * 26;
    ui_buf_rawf(b, "<text class=\"lane-label\" x=\"8\" y=\"%.1f\">", y + 15);
    ui_buf_text(b, lanes[l]);
    ui_buf_raw(b, "</text>");
    for (int i = 0; i < n; i++) {
      if (strcmp(sp[i].lane, lanes[l])) continue;
      double x0 = ui_box_x(&bx, &ax, sp[i].start_us), x1 = ui_box_x(&bx, &ax, sp[i].end_us);
      if (!isfinite(x0) || !isfinite(x1)) continue;
      ui_buf_rawf(b, "<rect class=\"bar c%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"20\"><title>",
                  tone_of(sp[i].label), x0, y, x1 - x0 > 1 ? x1 - x0 : 1);
      ui_buf_text(b, sp[i].label);
      ui_buf_raw(b, ": ");
      ui_buf_text(b, ui_fmt_value(sp[i].start_us, UI_UNIT_US, t));
      ui_buf_raw(b, " to ");
      ui_buf_text(b, ui_fmt_value(sp[i].end_us, UI_UNIT_US, t2));
      ui_buf_raw(b, "</title></rect>");
    }
  }
  ui_svg_end(b);
}

static void timeline_figure(ui_buf *b, const cJSON *env, const char *prefix, double x_max, const char *title,
                            const char *summary, const char *caption) {
  ui_span *spans = calloc(MAX_SPANS, sizeof *spans);
  char (*names)[32] = calloc(MAX_SPANS, sizeof *names);
  static const char *const legend[] = {"H2D copy", "kernel", "D2H copy", "kernel that read stale data"};
  if (!spans || !names) {
    b->failed = true;
  } else {
    int n = collect(env, prefix, spans, names);
    if (n > 0) {
      ui_res_figure_begin(b, title);
      ui_chart_legend(b, legend, strcmp(prefix, "race:") ? 3 : 4);
      lanes_chart(b, spans, n, x_max, summary);
      ui_res_numbers_begin(b);
      /* The engine lanes repeat the streams' ops at the same times: the
       * table lists each op once, from its stream's lane. */
      int rows = 0;
      for (int i = 0; i < n; i++)
        if (!strncmp(spans[i].lane, "stream ", 7)) spans[rows++] = spans[i];
      ui_table_spans(b, caption, spans, rows ? rows : n);
      ui_res_figure_end(b);
    }
  }
  free(spans);
  free(names);
}

/* The latest end among the timeline's spans with this lane prefix. */
static double run_end(const cJSON *env, const char *prefix) {
  const cJSON *ev;
  double end = 0, e;
  cJSON_ArrayForEach(ev, ui_json_arr(env, "timeline")) {
    const char *lane = ui_json_str(ev, "lane");
    if (lane && !strncmp(lane, prefix, strlen(prefix)) && ui_json_num(ev, "end_us", &e) && e > end) end = e;
  }
  return end;
}

UI_RESULT_RENDERER(streams);

UI_RESULT_RENDERER(streams) {
  static const char *const ids[] = {"one_stream_pinned", "streams_pinned", "one_stream_pageable", "streams_pageable"};
  static const char *const keys[] = {"one_stream_pinned_ms", "streams_pinned_ms", "one_stream_pageable_ms",
                                     "streams_pageable_ms"};
  char summary[480], t1[32];
  const cJSON *params = ui_json_obj(env, "params");
  double k = 1, chunks = 0, stale = ui_res_metric(env, "stale_chunks");
  ui_json_num(params, "streams", &k);
  ui_json_num(params, "chunks", &chunks);

  ui_series_xy s[4];
  int ns = ui_res_series(env, ids, 4, s);
  ui_bar bars[4];
  int nb = 0;
  /* With one stream, "several streams" is the same pipeline: show it once. */
  for (int i = 0; i < 4; i++) {
    if (k == 1 && (i == 1 || i == 3)) continue;
    bars[nb++] = (ui_bar){i < ns ? s[i].label : ids[i], ui_res_metric(env, keys[i])};
  }
  ui_bars_sentence(summary, sizeof summary, "Total time of the pipeline", bars, nb, UI_UNIT_MS);
  ui_bar_chart bc = {.summary = summary, .value_title = "total time (ms)", .unit = UI_UNIT_MS, .bars = bars, .n = nb};
  ui_res_figure_begin(b, k == 1 ? "Pinned or pageable, on one stream" : "One stream or several, pinned or pageable");
  ui_chart_bars(b, &bc);
  ui_res_numbers_begin(b);
  ui_table_bars(b, "Median total time of each pipeline", "time", UI_UNIT_MS, bars, nb);
  if (ns) ui_table_xy(b, "Every sample's total time, in ms", "sample", UI_UNIT_PLAIN, UI_UNIT_PLAIN, s, ns);
  ui_res_figure_end(b);
  ui_res_free(s, ns);

  double end_many = run_end(env, "gpu:"), end_one = run_end(env, "baseline:");
  double x_max = end_one > end_many ? end_one : end_many;
  snprintf(summary, sizeof summary,
           "The run asked for on %.0f stream%s: it ends at %s; lanes per stream and per engine show copies and "
           "kernels of different chunks at the same time.",
           k, k == 1 ? "" : "s", ui_fmt_value(end_many, UI_UNIT_US, t1));
  timeline_figure(b, env, "", x_max, "The run asked for: one lane per stream and per engine", summary,
                  "Every op of the run");
  if (end_one > 0) {
    snprintf(summary, sizeof summary, "The same chunks on one stream, on the same time axis: it ends at %s.",
             ui_fmt_value(end_one, UI_UNIT_US, t1));
    timeline_figure(b, env, "baseline:", x_max, "The same chunks on one stream", summary, "Every op on one stream");
  }
  snprintf(summary, sizeof summary,
           "The race: stream 0 copies each chunk in, stream 1 runs the kernel and copies it back; %.0f of %.0f "
           "kernels read stale data.",
           isfinite(stale) ? stale : 0, chunks);
  timeline_figure(b, env, "race:", run_end(env, "race:"), "The race between a copy stream and a compute stream",
                  summary, "Every op of the race (stream 0 copies, stream 1 computes)");
}
