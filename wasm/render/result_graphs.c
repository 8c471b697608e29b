/* graphs: per-kernel cost one by one against a CUDA graph, the timeline of
 * a short chain launched both ways, per-kernel time against kernel size
 * (where the graph stops helping), and the cumulative cost that shows when
 * capture + instantiate pay back. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "result_parts.h"
#include "result_stem.h"

static void per_kernel_bars(ui_buf *b, const cJSON *env) {
  double e = ui_res_metric(env, "eager_per_kernel_us"), g = ui_res_metric(env, "graph_per_kernel_us");
  double el = ui_res_metric(env, "eager_launch_per_kernel_us");
  double kernels = ui_res_metric(env, "eager_total_us") / (e > 0 ? e : 1);
  char summary[400], t1[32], t2[32], t3[32];
  if (!isfinite(e) || !isfinite(g)) return;
  ui_bar bars[3] = {{"one by one: whole chain, per kernel", e},
                    {"one by one: host time in each launch call", el},
                    {"CUDA graph: whole chain, per kernel", g}};
  snprintf(summary, sizeof summary,
           "Over a chain of %.0f kernels, each cost %s launched one by one (the host alone spent %s in each launch "
           "call) and %s replayed as one CUDA graph.",
           kernels, ui_fmt_value(e * 1e-3, UI_UNIT_MS, t1), ui_fmt_value(el * 1e-3, UI_UNIT_MS, t2),
           ui_fmt_value(g * 1e-3, UI_UNIT_MS, t3));
  ui_bar_chart c = {.summary = summary, .value_title = "time per kernel (µs)", .unit = UI_UNIT_US, .bars = bars, .n = 3};
  ui_res_figure_begin(b, "What each kernel costs, launched one by one or as a graph");
  ui_chart_bars(b, &c);
  ui_res_numbers_begin(b);
  ui_table_bars(b, "Time per kernel (medians)", "time", UI_UNIT_US, bars, 3);
  ui_res_figure_end(b);
}

static void sweep_chart(ui_buf *b, const cJSON *env) {
  static const char *const ids[] = {"sweep_eager", "sweep_graph", "sweep_body"};
  ui_series_xy s[3];
  const char *labels[3];
  char summary[400], mark_label[64], t1[32];
  int n = ui_res_series(env, ids, 3, s);
  double from = ui_res_metric(env, "no_gain_from_elements"), small = ui_res_metric(env, "sweep_small_speedup");
  ui_mark mark = {from, mark_label};
  if (n < 2) goto end;
  for (int i = 0; i < n; i++) labels[i] = s[i].label;
  snprintf(mark_label, sizeof mark_label, "gain under 10%% from %s elements", ui_fmt_value(from, UI_UNIT_PLAIN, t1));
  if (isfinite(from))
    snprintf(summary, sizeof summary,
             "Time per kernel against elements per kernel, log-log: with the smallest kernels the graph is %.1f× "
             "faster; from %.0f elements per kernel the two lines meet, because each kernel then runs longer "
             "than a launch takes.",
             small, from);
  else
    snprintf(summary, sizeof summary,
             "Time per kernel against elements per kernel, log-log: the graph is %.1f× faster with the smallest "
             "kernels and stays ahead at every swept size.",
             small);
  ui_line_chart c = {.summary = summary, .x_title = "elements per kernel (log scale)",
                     .y_title = "time per kernel (log scale)", .x_scale = UI_SCALE_LOG2, .y_scale = UI_SCALE_LOG10,
                     .x_unit = UI_UNIT_PLAIN, .y_unit = UI_UNIT_US, .series = s, .n_series = n, .marks = &mark,
                     .n_marks = isfinite(from) ? 1 : 0};
  ui_res_figure_begin(b, "When a graph stops helping: growing kernels");
  ui_chart_lines(b, &c);
  ui_chart_legend(b, labels, n);
  ui_res_numbers_begin(b);
  ui_table_xy(b, "Time per kernel (µs) for each kernel size", "elements per kernel", UI_UNIT_PLAIN, UI_UNIT_PLAIN, s,
              n);
  ui_res_figure_end(b);
end:
  ui_res_free(s, n);
}

static void payback_chart(ui_buf *b, const cJSON *env) {
  static const char *const ids[] = {"cost_eager", "cost_graph"};
  ui_series_xy s[2];
  const char *labels[2];
  char summary[400], mark_label[64], t1[32];
  int n = ui_res_series(env, ids, 2, s);
  double r = ui_res_metric(env, "payback_replays"), one_off = ui_res_metric(env, "one_off_us");
  ui_mark mark = {r, mark_label};
  if (n < 2) goto end;
  for (int i = 0; i < n; i++) labels[i] = s[i].label;
  snprintf(mark_label, sizeof mark_label, "paid back after %.0f runs", r);
  if (isfinite(r))
    snprintf(summary, sizeof summary,
             "Total time of r runs of the chain: the graph starts %s behind (capture + instantiate) and is ahead "
             "from %.0f replays on.",
             ui_fmt_value(one_off * 1e-3, UI_UNIT_MS, t1), r);
  else
    snprintf(summary, sizeof summary,
             "Total time of r runs of the chain: the graph starts %s behind (capture + instantiate) and never "
             "catches up, since a replay saved nothing.",
             ui_fmt_value(one_off * 1e-3, UI_UNIT_MS, t1));
  ui_line_chart c = {.summary = summary, .x_title = "runs of the chain (log scale)",
                     .y_title = "total time (log scale)", .x_scale = UI_SCALE_LOG10, .y_scale = UI_SCALE_LOG10,
                     .x_unit = UI_UNIT_PLAIN, .y_unit = UI_UNIT_MS, .series = s, .n_series = n, .marks = &mark,
                     .n_marks = isfinite(r) ? 1 : 0};
  ui_res_figure_begin(b, "When capturing pays back");
  ui_chart_lines(b, &c);
  ui_chart_legend(b, labels, n);
  ui_res_numbers_begin(b);
  ui_table_xy(b, "Total time (ms) after r runs", "runs", UI_UNIT_PLAIN, UI_UNIT_PLAIN, s, n);
  ui_res_figure_end(b);
end:
  ui_res_free(s, n);
}

UI_RESULT_RENDERER(graphs);

UI_RESULT_RENDERER(graphs) {
  char summary[400], t1[32], t2[32];
  per_kernel_bars(b, env);
  /* the drawn timeline ends with its last event */
  const cJSON *tl = cJSON_GetObjectItemCaseSensitive(env, "timeline"), *ev;
  double last = 0, glaunch = 0, gstart = NAN;
  cJSON_ArrayForEach(ev, tl) {
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(ev, "end_us"), *st = cJSON_GetObjectItemCaseSensitive(ev, "start_us");
    const cJSON *label = cJSON_GetObjectItemCaseSensitive(ev, "label");
    if (!cJSON_IsNumber(e) || !cJSON_IsNumber(st)) continue;
    if (e->valuedouble > last) last = e->valuedouble;
    if (cJSON_IsString(label) && strncmp(label->valuestring, "cudaGraphLaunch", 15) == 0) {
      glaunch = e->valuedouble - st->valuedouble;
      gstart = st->valuedouble;
    }
  }
  snprintf(summary, sizeof summary,
           "Timeline of a short chain: launched one by one, the CPU pays one launch per kernel and the GPU waits "
           "between kernels; as a graph, one call (%s) sends them all and they run back to back. Everything ends "
           "at %s.",
           ui_fmt_value(glaunch * 1e-3, UI_UNIT_MS, t1), ui_fmt_value(last * 1e-3, UI_UNIT_MS, t2));
  /* The two phases, named on the chart where each begins. */
  ui_mark phases[2] = {{0, "phase 1: one launch per kernel"}, {gstart, "phase 2: one graph launch"}};
  ui_result_timeline_part(b, env, "One by one, then one graph launch", summary, INFINITY, phases, isfinite(gstart) ? 2 : 1);
  sweep_chart(b, env);
  payback_chart(b, env);
}
