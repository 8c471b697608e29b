/* crossover: CPU against GPU time over the matrix side N, log-log, with the
 * sizes where the GPU starts to win (with and without copies) marked, under
 * a headline of who won at each size against the best CPU line
 * (details.headline, written by lab_crossover_judge with the findings). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "json_get.h"
#include "result_parts.h"
#include "result_stem.h"

UI_RESULT_RENDERER(crossover);

/* Appends "N = 16, 32 and 64" for the sizes where `who` was faster; 0 if none. */
static int sizes_where(const cJSON *sizes, const char *who, char *out, size_t cap) {
  int count = 0, total = 0;
  const cJSON *w;
  cJSON_ArrayForEach(w, sizes) total += strcmp(ui_json_str(w, "faster") ? ui_json_str(w, "faster") : "", who) == 0;
  size_t used = (size_t)snprintf(out, cap, "N = ");
  cJSON_ArrayForEach(w, sizes) {
    const char *f = ui_json_str(w, "faster");
    double n = 0;
    if (!f || strcmp(f, who) != 0 || !ui_json_num(w, "n", &n) || used >= cap) continue;
    count++;
    used += (size_t)snprintf(out + used, cap - used, "%s%.0f", count == 1 ? "" : count == total ? " and " : ", ", n);
  }
  return count;
}

/* "Who was faster at each size, against the best CPU here (LABEL): the
 * CPU at N = 16 and 32; the GPU at N = 64, 128 and 256." */
static void headline(ui_buf *b, const cJSON *env) {
  const cJSON *h = ui_json_obj(ui_json_obj(env, "details"), "headline");
  const cJSON *sizes = ui_json_arr(h, "sizes");
  char cpu[120], gpu[120];
  if (!sizes) return;
  int nc = sizes_where(sizes, "cpu", cpu, sizeof cpu), ng = sizes_where(sizes, "gpu", gpu, sizeof gpu);
  /* "provisional": the page set it while the server's CPU line is still to
   * come (experiment_run.c); that line can change the verdict. */
  bool provisional = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "provisional"));
  ui_buf_raw(b, provisional ? "<p class=\"exp-headline\" data-provisional=\"true\" data-cpu=\""
                           : "<p class=\"exp-headline\" data-cpu=\"");
  ui_buf_text(b, ui_json_str(h, "cpu") ? ui_json_str(h, "cpu") : "");
  ui_buf_raw(b, "\">");
  if (provisional) ui_buf_raw(b, "<strong>Provisional, until the server's CPU line arrives:</strong> ");
  ui_buf_raw(b, "Who was faster at each size, against the best CPU here (");
  ui_buf_text(b, ui_json_str(h, "cpu_label") ? ui_json_str(h, "cpu_label") : "CPU");
  ui_buf_raw(b, "): ");
  if (nc) ui_buf_textf(b, "the CPU at %s", cpu);
  if (nc && ng) ui_buf_raw(b, "; ");
  if (ng) ui_buf_textf(b, "the GPU at %s", gpu);
  ui_buf_raw(b, " (data on the GPU).</p>");
}

UI_RESULT_RENDERER(crossover) {
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
  if (isfinite(cross) && cross > 0 && isfinite(cross_copies) && cross_copies > 0)
    snprintf(summary, sizeof summary,
             "Matmul time against matrix side N on a log-log chart, the best CPU here against %s: the GPU wins "
             "from N = %.0f with the data on it, and from N = %.0f counting the copies.",
             dev, cross, cross_copies);
  else if (isfinite(cross) && cross > 0)
    snprintf(summary, sizeof summary,
             "Matmul time against matrix side N on a log-log chart, the best CPU here against %s: the GPU wins "
             "from N = %.0f with the data on it, and never counting the copies.",
             dev, cross);
  else
    snprintf(summary, sizeof summary,
             "Matmul time against matrix side N on a log-log chart, the best CPU here against %s: the GPU did "
             "not win at these sizes.",
             dev);
  ui_line_chart c = {.summary = summary, .x_title = "matrix side N (log scale)",
                     .y_title = "time (log scale)", .x_scale = UI_SCALE_LOG2, .y_scale = UI_SCALE_LOG10,
                     .x_unit = UI_UNIT_PLAIN, .y_unit = UI_UNIT_MS, .series = s, .n_series = n, .marks = marks,
                     .n_marks = n_marks};
  ui_res_figure_begin(b, "CPU or GPU: who is faster at each size");
  headline(b, env);
  ui_chart_lines(b, &c);
  ui_chart_legend(b, labels, n);
  ui_res_numbers_begin(b);
  ui_table_xy(b, "Median time (ms) for each matrix side N", "N", UI_UNIT_PLAIN, UI_UNIT_PLAIN, s, n);
  ui_res_figure_end(b);
  ui_res_free(s, n);
}
