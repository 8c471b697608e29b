/* timing: a CPU lane and a GPU lane with the synchronize marked, the three
 * clocks side by side, and the cold first run against a warm one, the
 * cold bar in its parts (details.first_call: starting CUDA, loading cuBLAS
 * and its kernels, the matrix multiplies) where the result names them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_get.h"
#include "result_parts.h"
#include "result_stem.h"

UI_RESULT_RENDERER(timing);

#define MAX_PARTS 3

/* The cold bar stacked by its parts beside a warm run (the warm run is the
 * last part alone), with a legend; the parts into rows, how many; 0 when
 * the result names no parts (an older result: the plain two bars instead). */
static int cold_parts(ui_buf *b, const cJSON *env, double warm, ui_bar rows[MAX_PARTS]) {
  const cJSON *arr = ui_json_arr(ui_json_obj(env, "details"), "first_call"), *it;
  static const char *const cats[2] = {"first run (cold)", "a warm run"};
  const char *labels[MAX_PARTS];
  double ys[MAX_PARTS][2], xs[2] = {0, 1}, total = 0;
  ui_series_xy parts[MAX_PARTS];
  int n = 0;
  cJSON_ArrayForEach(it, arr) {
    const char *label = ui_json_str(it, "part");
    double ms = 0;
    if (n == MAX_PARTS || !label || !ui_json_num(it, "ms", &ms) || !(ms >= 0)) continue;
    labels[n] = label;
    ys[n][0] = ms;
    ys[n][1] = 0;
    rows[n] = (ui_bar){label, ms};
    total += ms;
    n++;
  }
  if (n < 2) return 0;
  ys[n - 1][1] = warm; /* the last part is the work itself, all a warm run does */
  for (int i = 0; i < n; i++) parts[i] = (ui_series_xy){labels[i], 2, xs, ys[i]};
  char summary[400], t1[32], t2[32], t3[32];
  snprintf(summary, sizeof summary, "The first, cold run took %s in all, of which %s was %s; a warm run took %s.",
           ui_fmt_value(total, UI_UNIT_MS, t1), ui_fmt_value(ys[0][0], UI_UNIT_MS, t2), labels[0],
           ui_fmt_value(warm, UI_UNIT_MS, t3));
  ui_column_chart c = {.summary = summary, .x_title = "run", .y_title = "time (ms)", .categories = cats, .n_cat = 2,
                       .parts = parts, .n_parts = n, .highlight = -1};
  ui_chart_columns(b, &c);
  ui_chart_legend(b, labels, n);
  return n;
}

UI_RESULT_RENDERER(timing) {
  char summary[400], t1[32], t2[32], t3[32];
  double nosync = ui_res_metric(env, "host_nosync_ms"), sync = ui_res_metric(env, "host_sync_ms");
  double events = ui_res_metric(env, "events_ms"), cold = ui_res_metric(env, "cold_ms");
  double warm = ui_res_metric(env, "warm_ms");
  snprintf(summary, sizeof summary,
           "Timeline of one timed batch: the CPU queues every launch within %s and then waits at synchronize; "
           "the GPU works until %s.",
           ui_fmt_value(nosync, UI_UNIT_MS, t1), ui_fmt_value(sync, UI_UNIT_MS, t2));
  ui_result_timeline(b, env, "The CPU queues the work, the GPU does it later", summary);

  ui_bar clocks[3] = {{"host clock, no synchronize", nosync},
                      {"host clock after synchronize", sync},
                      {"CUDA events", events}};
  snprintf(summary, sizeof summary,
           "The host clock without synchronize read %s, with synchronize %s, and CUDA events %s.",
           ui_fmt_value(nosync, UI_UNIT_MS, t1), ui_fmt_value(sync, UI_UNIT_MS, t2),
           ui_fmt_value(events, UI_UNIT_MS, t3));
  ui_bar_chart bc = {.summary = summary, .value_title = "measured time (ms)", .unit = UI_UNIT_MS, .bars = clocks,
                     .n = 3};
  ui_res_figure_begin(b, "Three clocks, one batch of work");
  ui_chart_bars(b, &bc);
  ui_res_numbers_begin(b);
  ui_table_bars(b, "What each clock measured (medians)", "time", UI_UNIT_MS, clocks, 3);
  ui_res_figure_end(b);

  if (!isfinite(cold) || !isfinite(warm)) return;
  static const char *const ids[] = {"runs"};
  ui_series_xy runs[1];
  int nr = ui_res_series(env, ids, 1, runs);
  ui_bar rows[MAX_PARTS];
  ui_res_figure_begin(b, "The cold first run");
  int np = cold_parts(b, env, warm, rows);
  ui_bar cw[2] = {{"first run (cold)", cold}, {"a warm run", warm}};
  if (!np) {
    snprintf(summary, sizeof summary, "The first, cold run took %s; a warm run %s.",
             ui_fmt_value(cold, UI_UNIT_MS, t1), ui_fmt_value(warm, UI_UNIT_MS, t2));
    ui_bar_chart cc = {.summary = summary, .value_title = "time of one batch (ms)", .unit = UI_UNIT_MS, .bars = cw,
                       .n = 2};
    ui_chart_bars(b, &cc);
  }
  ui_res_numbers_begin(b);
  if (np) ui_table_bars(b, "The first run's parts", "time", UI_UNIT_MS, rows, np);
  if (nr) ui_table_xy(b, "Every batch in order (run 1 is cold), in ms", "run", UI_UNIT_PLAIN, UI_UNIT_PLAIN, runs, nr);
  else if (!np) ui_table_bars(b, "Cold and warm", "time", UI_UNIT_MS, cw, 2);
  ui_res_figure_end(b);
  ui_res_free(runs, nr);
}
