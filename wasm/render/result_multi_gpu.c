/* multi_gpu: the step split over two GPUs (PyTorch's error and its fix),
 * which physical GPU each cuda:N is, then step time and GPU 0's memory
 * against the GPU count, DataParallel beside DDP. */
#include <stdio.h>

#include "json_get.h"
#include "result_parts.h"
#include "result_stem.h"

static void cross_device(ui_buf *b, const cJSON *d) {
  const char *error = ui_json_str(d, "error"), *fix = ui_json_str(d, "fix");
  ui_buf_raw(b, "<p class=\"exp-output\">Model on <code>cuda:0</code>, batch on <code>");
  ui_buf_text(b, ui_json_str(d, "batch") ? ui_json_str(d, "batch") : "?");
  ui_buf_raw(b, "</code>: ");
  if (!error) {
    ui_buf_raw(b, "one device, so the step runs.</p>");
    return;
  }
  ui_buf_raw(b, "the step stops.</p><p class=\"exp-preflight\" role=\"note\"><code>");
  ui_buf_text(b, error);
  ui_buf_raw(b, "</code><br>Fix: <code>");
  ui_buf_text(b, fix ? fix : "");
  ui_buf_raw(b, "</code></p>");
}

static void visible(ui_buf *b, const cJSON *v) {
  const char *env = ui_json_str(v, "CUDA_VISIBLE_DEVICES");
  const cJSON *devs = ui_json_arr(v, "devices"), *d;
  ui_buf_raw(b, "<div class=\"table-wrap\"><table class=\"numbers\"><caption>");
  if (env && *env)
    ui_buf_textf(b, "With CUDA_VISIBLE_DEVICES=%s", env);
  else
    ui_buf_raw(b, "With CUDA_VISIBLE_DEVICES unset");
  ui_buf_raw(b, "</caption><thead><tr><th scope=\"col\">in PyTorch</th><th scope=\"col\">the machine's GPU</th>"
                "</tr></thead><tbody>");
  int n = 0;
  cJSON_ArrayForEach(d, devs) {
    double phys = 0;
    ui_json_num(d, "physical", &phys);
    ui_buf_raw(b, "<tr><th scope=\"row\"><code>");
    ui_buf_text(b, ui_json_str(d, "device"));
    ui_buf_rawf(b, "</code></th><td>GPU %.0f</td></tr>", phys);
    n++;
  }
  if (!n) ui_buf_raw(b, "<tr><th scope=\"row\">none</th><td>no GPU is visible</td></tr>");
  ui_buf_raw(b, "</tbody></table></div>");
}

/* One line chart against the GPU count, two series, with its table. */
static void per_gpus(ui_buf *b, const cJSON *env, const char *const ids[2], const char *title, const char *summary,
                     const char *y_title, ui_unit unit, const char *caption) {
  ui_series_xy s[2];
  const char *labels[2];
  int n = ui_res_series(env, ids, 2, s);
  for (int i = 0; i < n; i++) labels[i] = s[i].label;
  ui_line_chart c = {.summary = summary, .x_title = "GPUs", .y_title = y_title, .x_scale = UI_SCALE_LINEAR,
                     .y_scale = UI_SCALE_LINEAR, .x_unit = UI_UNIT_PLAIN, .y_unit = unit, .y_zero = true,
                     .x_whole = true, .series = s, .n_series = n};
  ui_res_figure_begin(b, title);
  ui_chart_lines(b, &c);
  ui_chart_legend(b, labels, n);
  ui_res_numbers_begin(b);
  ui_table_xy(b, caption, "GPUs", UI_UNIT_PLAIN, unit, s, n);
  ui_res_figure_end(b);
  ui_res_free(s, n);
}

UI_RESULT_RENDERER(multi_gpu);

UI_RESULT_RENDERER(multi_gpu) {
  const cJSON *d = ui_json_obj(env, "details");
  char summary[400], t1[32], t2[32], t3[32];
  cross_device(b, ui_json_obj(d, "cross_device"));
  visible(b, ui_json_obj(d, "visible"));
  double n = ui_res_metric(env, "gpus");
  snprintf(summary, sizeof summary, "On %.0f GPUs one step takes %s with DataParallel and %s with DDP; %s on one GPU.",
           n, ui_fmt_value(ui_res_metric(env, "dp_step_ms"), UI_UNIT_MS, t1),
           ui_fmt_value(ui_res_metric(env, "ddp_step_ms"), UI_UNIT_MS, t2),
           ui_fmt_value(ui_res_metric(env, "one_gpu_step_ms"), UI_UNIT_MS, t3));
  static const char *const steps[2] = {"dp_step", "ddp_step"}, *const mem[2] = {"dp_gpu0", "ddp_gpu0"};
  per_gpus(b, env, steps, "One training step on more GPUs", summary, "step time (ms)", UI_UNIT_MS,
           "Step time for each GPU count");
  snprintf(summary, sizeof summary, "On %.0f GPUs GPU 0 holds %s with DataParallel and %s with DDP; it has %s.", n,
           ui_fmt_value(ui_res_metric(env, "dp_gpu0_bytes"), UI_UNIT_BYTES, t1),
           ui_fmt_value(ui_res_metric(env, "ddp_gpu0_bytes"), UI_UNIT_BYTES, t2),
           ui_fmt_value(ui_res_metric(env, "gpu_memory_bytes"), UI_UNIT_BYTES, t3));
  per_gpus(b, env, mem, "GPU 0's memory", summary, "GPU 0's memory", UI_UNIT_BYTES, "GPU 0's memory for each GPU count");
}
