/* precision: TFLOPS against N per precision (log-log), the error of each
 * against the FP64 reference (log y), and the training run's loss curves
 * with the share of gradients flushed to zero. */
#include <math.h>
#include <stdio.h>

#include "result_parts.h"
#include "result_stem.h"

static void lines(ui_buf *b, const cJSON *env, const char *title, const char *const *ids, int n_ids,
                  const char *summary, const char *x_title, const char *y_title, ui_scale xs, ui_scale ys,
                  const char *caption) {
  ui_series_xy s[4];
  const char *labels[4];
  int n = ui_res_series(env, ids, n_ids, s);
  if (n == 0) return;
  for (int i = 0; i < n; i++) labels[i] = s[i].label;
  ui_line_chart c = {.summary = summary, .x_title = x_title, .y_title = y_title, .x_scale = xs, .y_scale = ys,
                     .x_unit = UI_UNIT_PLAIN, .y_unit = UI_UNIT_PLAIN, .series = s, .n_series = n};
  ui_res_figure_begin(b, title);
  ui_chart_lines(b, &c);
  ui_chart_legend(b, labels, n);
  ui_res_numbers_begin(b);
  ui_table_xy(b, caption, x_title, UI_UNIT_PLAIN, UI_UNIT_PLAIN, s, n);
  ui_res_figure_end(b);
  ui_res_free(s, n);
}

UI_RESULT_RENDERER(precision);

UI_RESULT_RENDERER(precision) {
  static const char *const tf[] = {"tflops_fp32", "tflops_tf32", "tflops_bf16", "tflops_fp16"};
  static const char *const er[] = {"err_fp32", "err_tf32", "err_bf16", "err_fp16"};
  static const char *const lo[] = {"loss_fp32", "loss_bf16", "loss_fp16"};
  static const char *const fl[] = {"flushed_bf16", "flushed_fp16"};
  char summary[400], dev[64], v[4][32]; /* figures as ui_fmt_value writes them: never "1.8e-06" */
  double n = ui_res_metric(env, "size_max");
  ui_res_device_short(env, dev, sizeof dev);
#define FIG(i, metric) ui_fmt_value(ui_res_metric(env, metric), UI_UNIT_PLAIN, v[i])
  snprintf(summary, sizeof summary,
           "Matmul throughput against matrix side N on %s: at N = %.0f FP32 reached %s TFLOPS, TF32 %s, "
           "BF16 %s and FP16 %s.",
           dev, n, FIG(0, "fp32_tflops"), FIG(1, "tf32_tflops"), FIG(2, "bf16_tflops"), FIG(3, "fp16_tflops"));
  lines(b, env, "Throughput by size and precision", tf, 4, summary, "matrix side N (log scale)",
        "TFLOPS (log scale)", UI_SCALE_LOG2, UI_SCALE_LOG10, "Median TFLOPS for each matrix side N");
  snprintf(summary, sizeof summary,
           "Largest error against an FP64 reference, relative to a typical entry, at N = %.0f: FP32 %s, TF32 "
           "%s, BF16 %s, FP16 %s.",
           n, FIG(0, "fp32_max_rel_err"), FIG(1, "tf32_max_rel_err"), FIG(2, "bf16_max_rel_err"),
           FIG(3, "fp16_max_rel_err"));
  lines(b, env, "What each precision costs in accuracy", er, 4, summary, "matrix side N (log scale)",
        "max relative error (log scale)", UI_SCALE_LOG2, UI_SCALE_LOG10,
        "Max relative error on 256 sampled entries for each N");
  snprintf(summary, sizeof summary, "Training loss per step: it ended at %s in FP32, %s in BF16 and %s in FP16.",
           FIG(0, "train_fp32_final_loss"), FIG(1, "train_bf16_final_loss"), FIG(2, "train_fp16_final_loss"));
  lines(b, env, "A small training run in each precision", lo, 3, summary, "step", "loss (log scale)",
        UI_SCALE_LINEAR, UI_SCALE_LOG10, "Loss at each step");
  snprintf(summary, sizeof summary,
           "Share of gradient values flushed to zero per step: %s %% over the run in FP16, %s %% in BF16.",
           FIG(0, "train_fp16_flushed_pct"), FIG(1, "train_bf16_flushed_pct"));
#undef FIG
  lines(b, env, "Gradients lost to underflow", fl, 2, summary, "step", "% of gradients flushed to 0",
        UI_SCALE_LINEAR, UI_SCALE_LINEAR, "% flushed at each step");
}
