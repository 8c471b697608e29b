/* crossover: CPU against GPU time over the matrix side N, log-log, with the
 * sizes where the GPU starts to win (with and without copies) marked. */
#include <math.h>
#include <stdio.h>

#include "result_parts.h"
#include "result_views.h"

UI_RESULT_VIEW(crossover);

UI_RESULT_VIEW(crossover) {
  /* cpu_server: the server's BLAS line beside an in-browser run (experiment_run.c) */
  static const char *const ids[] = {"cpu", "cpu_server", "gpu_kernel", "gpu", "gpu_copies"};
  ui_series_xy s[5];
  const char *labels[5];
  ui_mark marks[2];
  int n_marks = 0;
  char summary[400], m1[64], m2[64], dev[64];
  int n = ui_res_series(env, ids, 5, s);
  double cross = ui_res_metric(env, "crossover_n"), cross_copies = ui_res_metric(env, "crossover_copies_n");
  for (int i = 0; i < n; i++) labels[i] = s[i].label;
  if (isfinite(cross) && cross > 0) {
    snprintf(m1, sizeof m1, "GPU wins from N = %.0f", cross);
    marks[n_marks++] = (ui_mark){cross, m1};
  }
  if (isfinite(cross_copies) && cross_copies > 0) {
    snprintf(m2, sizeof m2, "with copies, from N = %.0f", cross_copies);
    marks[n_marks++] = (ui_mark){cross_copies, m2};
  }
  ui_res_device_short(env, dev, sizeof dev);
  if (isfinite(cross) && cross > 0)
    snprintf(summary, sizeof summary,
             "Matmul time against matrix side N on a log-log chart, this CPU against %s: the GPU wins from N = %.0f "
             "with the data on it, and from N = %.0f counting the copies.",
             dev, cross, cross_copies);
  else
    snprintf(summary, sizeof summary,
             "Matmul time against matrix side N on a log-log chart, this CPU against %s: the GPU did not win at "
             "these sizes.",
             dev);
  ui_line_chart c = {.summary = summary, .x_title = "matrix side N (log scale)",
                     .y_title = "time (log scale)", .x_scale = UI_SCALE_LOG2, .y_scale = UI_SCALE_LOG10,
                     .x_unit = UI_UNIT_PLAIN, .y_unit = UI_UNIT_MS, .series = s, .n_series = n, .marks = marks,
                     .n_marks = n_marks};
  ui_res_figure_begin(b, "CPU or GPU: who is faster at each size");
  ui_chart_lines(b, &c);
  ui_chart_legend(b, labels, n);
  ui_res_numbers_begin(b);
  ui_table_xy(b, "Median time (ms) for each matrix side N", "N", UI_UNIT_PLAIN, UI_UNIT_PLAIN, s, n);
  ui_res_figure_end(b);
  ui_res_free(s, n);
}
