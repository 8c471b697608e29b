/* memory: the budget terms stacked per batch size against the device's
 * usable memory (up to the first batch that does not fit), the allocator's allocated and reserved
 * bytes after each step, and an out-of-memory shown with its fixes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_get.h"
#include "result_parts.h"
#include "result_stem.h"

#define MAX_STEPS 32

#define MAX_BATCHES 24

static void budget(ui_buf *b, const cJSON *env) {
  static const char *const ids[] = {"weights", "gradients", "optimizer", "activations"};
  ui_series_xy s[4];
  const char *labels[4], *cats[MAX_BATCHES];
  char names[MAX_BATCHES][16], summary[400], limit[96], device[96], pick[48], dev[64], v1[32], v2[32];
  int parts = ui_res_series(env, ids, 4, s), shown = 0, chosen = -1;
  /* The run's limit: the lower of budget_gib and free device memory, the
   * same one the verdict, the findings and the out-of-memory box use. */
  const double gib = 1073741824.0;
  double limit_b = ui_res_metric(env, "limit_bytes");
  double usable = ui_res_metric(env, "usable_bytes") / gib;
  double capacity = isfinite(limit_b) ? limit_b / gib : usable;
  double fits = ui_res_metric(env, "fits"), by_budget = ui_res_metric(env, "limit_is_budget");
  /* Under a budget_gib cap (a real run) the GPU's own free memory stays
   * drawn above the cap, and the batches run on to where the GPU would
   * run out: the chart still answers "does it fit this GPU". */
  double reach = by_budget == 1 && isfinite(usable) && usable > capacity ? usable : capacity;
  double total = ui_res_metric(env, "total_bytes") / gib, batch = 0;
  ui_json_num(ui_json_obj(env, "params"), "batch", &batch);
  if (parts == 0) goto end;
  /* Batches up to the first one that does not fit (and at least the chosen one). */
  for (int k = 0; k < s[0].n && shown < MAX_BATCHES; k++) {
    double sum = 0;
    for (int p = 0; p < parts; p++) sum += k < s[p].n ? s[p].y[k] : 0;
    snprintf(names[shown], sizeof names[shown], "%.0f", s[0].x[k]);
    cats[shown] = names[shown];
    if (s[0].x[k] == batch) chosen = shown;
    shown++;
    if (sum > reach && s[0].x[k] >= batch) break;
  }
  for (int p = 0; p < parts; p++) labels[p] = s[p].label;
  ui_res_device_short(env, dev, sizeof dev);
  const char *which = by_budget == 1 ? "the run's memory budget" : "free on the device";
  snprintf(limit, sizeof limit, "%s: %s", which, ui_fmt_value(capacity, UI_UNIT_GIB, v1));
  snprintf(pick, sizeof pick, "batch %.0f: %s", batch, ui_fmt_value(total, UI_UNIT_GIB, v2));
  snprintf(device, sizeof device, "free on the device: %s", ui_fmt_value(usable, UI_UNIT_GIB, v1));
  ui_mark lim[2] = {{capacity, limit}, {reach, device}};
  int n_lim = !isfinite(capacity) ? 0 : reach > capacity ? 2 : 1;
  snprintf(summary, sizeof summary,
           "Memory one training step needs for each batch size, stacked by kind, against this run's limit of %s "
           "(%s, %s): at batch %.0f it needs %s, so it %s.%s%s%s",
           ui_fmt_value(capacity, UI_UNIT_GIB, v1), which, dev, batch, ui_fmt_value(total, UI_UNIT_GIB, v2),
           fits == 1 ? "fits" : "does not fit", n_lim == 2 ? " The upper line is the GPU's own memory (" : "",
           n_lim == 2 ? device : "", n_lim == 2 ? ")." : "");
  ui_column_chart c = {.summary = summary, .x_title = "batch size (sequences)",
                       .y_title = "memory (GiB, 1 GiB = 2³⁰ bytes)", .categories = cats, .n_cat = shown, .parts = s,
                       .n_parts = parts, .limits = lim, .n_limits = n_lim, .highlight = chosen,
                       .highlight_label = pick};
  /* The default run fits, then asks for more than is left on purpose: the
   * title says both, so it agrees with the out-of-memory box under it. */
  char title[200];
  int deliberate = ui_json_bool(ui_json_obj(ui_json_obj(env, "details"), "oom"), "deliberate");
  snprintf(title, sizeof title, "The memory one step needs: it %s in the %s%s", fits == 1 ? "fits" : "does not fit",
           by_budget == 1 ? "run's memory budget" : "device's free memory",
           fits == 1 && deliberate == 1 ? "; one more allocation, too big on purpose, does not (below)" : "");
  ui_res_figure_begin(b, title);
  ui_chart_columns(b, &c);
  ui_chart_legend(b, labels, parts);
  ui_res_numbers_begin(b);
  ui_table_xy(b, "Memory (GiB) one step needs, by batch size", "batch", UI_UNIT_PLAIN, UI_UNIT_PLAIN, s, parts);
  ui_res_figure_end(b);
end:
  ui_res_free(s, parts);
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
  ui_line_chart c = {.summary = summary, .x_title = "step (named in the numbers)",
                     .y_title = "memory (MiB)", .x_scale = UI_SCALE_LINEAR, .y_scale = UI_SCALE_LINEAR,
                     .x_unit = UI_UNIT_PLAIN, .y_unit = UI_UNIT_PLAIN, .y_zero = true, .x_whole = true, .series = s,
                     .n_series = n};
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
  ui_buf_rawf(b, "<div class=\"exp-oom%s\" role=\"note\"><h4 class=\"fig-title\">", deliberate == 1 ? " exp-oom-planned" : "");
  const char *limit = ui_json_str(o, "limit");
  ui_buf_raw(b, deliberate == 1                                   ? "Out of memory — on purpose, safely caught"
                : limit && strcmp(limit, "device") == 0 ? "Out of memory: this step does not fit on the device"
                                                          : "Out of memory: this step does not fit in the run's memory budget");
  ui_buf_raw(b, "</h4><p>");
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

UI_RESULT_RENDERER(memory);

UI_RESULT_RENDERER(memory) {
  budget(b, env);
  oom(b, env);
  steps(b, env);
}
