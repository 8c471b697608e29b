/* transfer: bandwidth against copy size on a log axis (pinned and pageable,
 * both directions), and many small copies against one batched copy. */
#include <math.h>
#include <stdio.h>

#include "json_get.h"
#include "result_parts.h"
#include "result_stem.h"

UI_RESULT_RENDERER(transfer);

UI_RESULT_RENDERER(transfer) {
  static const char *const ids[] = {"h2d_pinned", "h2d_pageable", "d2h_pinned", "d2h_pageable"};
  ui_series_xy s[4];
  const char *labels[4];
  char summary[400], dev[64], t1[32], t2[32], t3[32];
  int n = ui_res_series(env, ids, 4, s);
  double pinned = ui_res_metric(env, "h2d_pinned_gbps"), pageable = ui_res_metric(env, "h2d_pageable_gbps");
  double largest = ui_res_metric(env, "largest_bytes"), half = ui_res_metric(env, "half_peak_bytes");
  ui_res_device_short(env, dev, sizeof dev);
  snprintf(summary, sizeof summary,
           "Copy bandwidth against copy size on %s: at %s, pinned host-to-device copies reached %s GB/s and "
           "pageable ones %s GB/s; small copies reach only a fraction of that.",
           dev, ui_fmt_value(largest, UI_UNIT_BYTES, t1), ui_fmt_value(pinned, UI_UNIT_PLAIN, t2),
           ui_fmt_value(pageable, UI_UNIT_PLAIN, t3));
  for (int i = 0; i < n; i++) labels[i] = s[i].label;
  ui_mark mark = {half, "half of the top bandwidth"};
  ui_line_chart c = {.summary = summary, .x_title = "copy size (log scale)", .y_title = "bandwidth (GB/s)",
                     .x_scale = UI_SCALE_LOG2, .y_scale = UI_SCALE_LINEAR, .x_unit = UI_UNIT_BYTES,
                     .y_unit = UI_UNIT_PLAIN, .y_zero = true, .series = s, .n_series = n,
                     .marks = &mark, .n_marks = isfinite(half) && half > 0 ? 1 : 0};
  ui_res_figure_begin(b, "Bandwidth grows with the copy size");
  ui_chart_lines(b, &c);
  ui_chart_legend(b, labels, n);
  ui_res_numbers_begin(b);
  ui_table_xy(b, "Bandwidth (GB/s, 1 GB = 10⁹ bytes) for each copy size", "copy size", UI_UNIT_BYTES, UI_UNIT_PLAIN,
              s, n);
  ui_res_figure_end(b);
  ui_res_free(s, n);

  double small_ms = ui_res_metric(env, "small_copies_ms"), batched_ms = ui_res_metric(env, "batched_copy_ms");
  const cJSON *p = ui_json_obj(env, "params");
  double count = 0, each = 0;
  if (!isfinite(small_ms) || !isfinite(batched_ms) || !ui_json_num(p, "small_copies", &count) ||
      !ui_json_num(p, "small_bytes", &each))
    return;
  char l1[96], l2[96];
  snprintf(l1, sizeof l1, "%.0f copies of %s", count, ui_fmt_value(each, UI_UNIT_BYTES, t1));
  snprintf(l2, sizeof l2, "1 copy of the same %s", ui_fmt_value(count * each, UI_UNIT_BYTES, t2));
  ui_bar bars[2] = {{l1, small_ms}, {l2, batched_ms}};
  snprintf(summary, sizeof summary, "%s took %s; %s took %s.", l1, ui_fmt_value(small_ms, UI_UNIT_MS, t1), l2,
           ui_fmt_value(batched_ms, UI_UNIT_MS, t3));
  ui_bar_chart bc = {.summary = summary, .value_title = "time (ms)", .unit = UI_UNIT_MS, .bars = bars, .n = 2};
  ui_res_figure_begin(b, "Many small copies against one batched copy");
  ui_chart_bars(b, &bc);
  ui_res_numbers_begin(b);
  ui_table_bars(b, "Time for the same bytes, copied in pieces or at once", "time", UI_UNIT_MS, bars, 2);
  ui_res_figure_end(b);
}
