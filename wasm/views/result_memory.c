/* memory: the budget terms as one stacked bar against the device's usable
 * memory and the allocator budget, the allocator's allocated and reserved
 * bytes after each step, and an out-of-memory shown with its fixes. */
#include <math.h>
#include <stdio.h>

#include "json_get.h"
#include "result_parts.h"

#define MAX_TERMS 6
#define MAX_STEPS 32

static void budget(ui_buf *b, const cJSON *env) {
  const cJSON *t;
  ui_bar parts[MAX_TERMS];
  const char *labels[MAX_TERMS];
  int n = 0;
  char summary[400], bar_label[96], l1[96], l2[96], dev[64], v1[32], v2[32];
  cJSON_ArrayForEach(t, ui_json_arr(ui_json_obj(env, "details"), "terms")) {
    double bytes;
    const char *label = ui_json_str(t, "label");
    if (n == MAX_TERMS || !label || !ui_json_num(t, "bytes", &bytes)) continue;
    parts[n] = (ui_bar){label, bytes / 1e9};
    labels[n] = label;
    n++;
  }
  if (n == 0) return;
  double total = ui_res_metric(env, "total_bytes") / 1e9, usable = ui_res_metric(env, "usable_bytes") / 1e9;
  double budget_gb = ui_res_metric(env, "budget_bytes") / 1e9, fits = ui_res_metric(env, "fits");
  const cJSON *p = ui_json_obj(env, "params");
  double batch = 0, seq = 0;
  ui_json_num(p, "batch", &batch);
  ui_json_num(p, "seq_len", &seq);
  ui_res_device_short(env, dev, sizeof dev);
  snprintf(bar_label, sizeof bar_label, "one step at batch %.0f × %.0f tokens", batch, seq);
  snprintf(l1, sizeof l1, "usable on %s: %s", dev, ui_fmt_value(usable, UI_UNIT_GB, v1));
  snprintf(l2, sizeof l2, "allocator budget of this run: %s", ui_fmt_value(budget_gb, UI_UNIT_GB, v2));
  ui_mark limits[2] = {{usable, l1}, {budget_gb, l2}};
  snprintf(summary, sizeof summary, "One training step needs %s against %s of usable memory on %s: it %s.",
           ui_fmt_value(total, UI_UNIT_GB, v1), ui_fmt_value(usable, UI_UNIT_GB, v2), dev,
           fits == 1 ? "fits" : "does not fit");
  ui_stack_chart c = {.summary = summary, .value_title = "memory (GB, 1 GB = 10⁹ bytes)", .unit = UI_UNIT_GB,
                      .bar_label = bar_label, .parts = parts, .n_parts = n, .limits = limits,
                      .n_limits = isfinite(budget_gb) && budget_gb > 0 ? 2 : 1};
  ui_res_figure_begin(b, fits == 1 ? "The memory budget of one step: it fits" : "The memory budget of one step: it does not fit");
  ui_chart_stack(b, &c);
  ui_chart_legend(b, labels, n);
  ui_res_numbers_begin(b);
  ui_table_bars(b, "What one training step keeps on the GPU", "memory", UI_UNIT_GB, parts, n);
  ui_res_figure_end(b);
}

static void steps(ui_buf *b, const cJSON *env) {
  static const char *const ids[] = {"allocated", "reserved", "device_used"};
  ui_series_xy s[3];
  const char *labels[3];
  char summary[400], v1[32], v2[32];
  int n = ui_res_series(env, ids, 3, s);
  if (n == 0) return;
  for (int i = 0; i < n; i++) labels[i] = s[i].label;
  double alloc = ui_res_metric(env, "peak_allocated_bytes"), reserved = ui_res_metric(env, "peak_reserved_bytes");
  snprintf(summary, sizeof summary,
           "Allocated and reserved memory after each step of the run: at the peak %s were allocated and %s "
           "reserved; reserved memory stays after tensors are freed, until empty_cache().",
           ui_fmt_value(alloc, UI_UNIT_BYTES, v1), ui_fmt_value(reserved, UI_UNIT_BYTES, v2));
  ui_line_chart c = {.summary = summary, .x_title = "step of the run (listed in the numbers)",
                     .y_title = "memory (MiB)", .x_scale = UI_SCALE_LINEAR, .y_scale = UI_SCALE_LINEAR,
                     .x_unit = UI_UNIT_PLAIN, .y_unit = UI_UNIT_PLAIN, .y_zero = true, .series = s, .n_series = n};
  ui_res_figure_begin(b, "What the allocator holds, step by step");
  ui_chart_lines(b, &c);
  ui_chart_legend(b, labels, n);
  ui_res_numbers_begin(b);
  /* The steps have names ("forward: activations"), so this table lists them. */
  ui_buf_raw(b, "<div class=\"table-wrap\"><table class=\"numbers\"><caption>Allocator state after each step (MiB)"
                "</caption><thead><tr><th scope=\"col\">step</th><th scope=\"col\">what happened</th>");
  for (int i = 0; i < n; i++) {
    ui_buf_raw(b, "<th scope=\"col\">");
    ui_buf_text(b, s[i].label);
    ui_buf_raw(b, "</th>");
  }
  ui_buf_raw(b, "</tr></thead><tbody>");
  const cJSON *st = ui_json_arr(ui_json_obj(env, "details"), "steps");
  for (int k = 0; k < s[0].n; k++) {
    const char *what = ui_json_str(cJSON_GetArrayItem(st, k), "label");
    ui_buf_rawf(b, "<tr><th scope=\"row\">%d</th><td>", k);
    ui_buf_text(b, what ? what : "");
    ui_buf_raw(b, "</td>");
    for (int i = 0; i < n; i++) {
      ui_buf_raw(b, "<td>");
      ui_buf_text(b, k < s[i].n ? ui_fmt_value(s[i].y[k], UI_UNIT_PLAIN, v1) : "—");
      ui_buf_raw(b, "</td>");
    }
    ui_buf_raw(b, "</tr>");
  }
  ui_buf_raw(b, "</tbody></table></div>");
  ui_res_figure_end(b);
  ui_res_free(s, n);
}

static void oom(ui_buf *b, const cJSON *env) {
  const cJSON *o = ui_json_obj(ui_json_obj(env, "details"), "oom"), *f;
  const char *msg = ui_json_str(o, "message"), *step = ui_json_str(o, "step");
  if (!o || !msg) return;
  int deliberate = ui_json_bool(o, "deliberate");
  ui_buf_rawf(b, "<div class=\"exp-oom%s\" role=\"note\"><h5 class=\"fig-title\">", deliberate == 1 ? " exp-oom-planned" : "");
  ui_buf_raw(b, deliberate == 1 ? "Out of memory — on purpose, safely caught" : "Out of memory: this model does not fit");
  ui_buf_raw(b, "</h5><p>");
  if (step) {
    ui_buf_raw(b, "At <strong>");
    ui_buf_text(b, step);
    ui_buf_raw(b, "</strong>: ");
  }
  ui_buf_text(b, msg);
  ui_buf_raw(b, "</p>");
  if (cJSON_GetArraySize(ui_json_arr(o, "fixes")) > 0) {
    ui_buf_raw(b, "<p><strong>How to fix it:</strong></p><ul class=\"fixes\">");
    cJSON_ArrayForEach(f, ui_json_arr(o, "fixes")) {
      if (!cJSON_IsString(f)) continue;
      ui_buf_raw(b, "<li>");
      ui_buf_text(b, f->valuestring);
      ui_buf_raw(b, "</li>");
    }
    ui_buf_raw(b, "</ul>");
  }
  ui_buf_raw(b, "</div>");
}

void ui_result_memory(ui_buf *b, const cJSON *env) {
  budget(b, env);
  oom(b, env);
  steps(b, env);
}
