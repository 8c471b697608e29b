/* timing: a CPU lane and a GPU lane with the synchronize marked, the three
 * clocks side by side, and the cold first run against a warm one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_get.h"
#include "result_parts.h"
#include "result_stem.h"

UI_RESULT_RENDERER(timing);

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
  ui_bar cw[2] = {{"first run (cold)", cold}, {"a warm run", warm}};
  snprintf(summary, sizeof summary, "The first, cold run took %s; a warm run %s.", ui_fmt_value(cold, UI_UNIT_MS, t1),
           ui_fmt_value(warm, UI_UNIT_MS, t2));
  ui_bar_chart cc = {.summary = summary, .value_title = "time of one batch (ms)", .unit = UI_UNIT_MS, .bars = cw,
                     .n = 2};
  ui_res_figure_begin(b, "The cold first run");
  ui_chart_bars(b, &cc);
  ui_res_numbers_begin(b);
  if (nr) ui_table_xy(b, "Every batch in order (run 1 is cold), in ms", "run", UI_UNIT_PLAIN, UI_UNIT_PLAIN, runs, nr);
  else ui_table_bars(b, "Cold and warm", "time", UI_UNIT_MS, cw, 2);
  ui_res_figure_end(b);
  ui_res_free(runs, nr);
}
