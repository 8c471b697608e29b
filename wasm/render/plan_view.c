/* The planner's answer as markup (plan_view.h). */
#include "plan_view.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chart.h"
#include "json_get.h"
#include "result_parts.h"
#include "units.h"

#define SWEEP_MAX 16
#define KINDS 6

static double num(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static double band_at(const cJSON *mem, const char *k, int i) {
  const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(mem, k), i);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void bytes_cell(ui_buf *b, double v) {
  ui_buf_raw(b, "<td>");
  ui_buf_text(b, isfinite(v) ? LAB_IEC(v) : "—");
  ui_buf_raw(b, "</td>");
}

/* One counter's row: the point figure, its band, and what the error said. */
static void counter(ui_buf *b, const char *label, const cJSON *mem, const char *key, const char *band, double said) {
  ui_buf_raw(b, "<tr><th scope=\"row\"><code>");
  ui_buf_text(b, label);
  ui_buf_raw(b, "</code></th>");
  bytes_cell(b, num(mem, key));
  ui_buf_raw(b, "<td>");
  ui_buf_text(b, LAB_IEC(band_at(mem, band, 0)));
  ui_buf_raw(b, " to ");
  ui_buf_text(b, LAB_IEC(band_at(mem, band, 1)));
  ui_buf_raw(b, "</td>");
  if (said >= 0) bytes_cell(b, said > 0 ? said : NAN);
  ui_buf_raw(b, "</tr>");
}

static void counters(ui_buf *b, const cJSON *mem, const ui_plan_oom *oom) {
  bool said = oom && (oom->allocated > 0 || oom->reserved > 0 || oom->total > 0);
  ui_buf_raw(b, "<div class=\"table-scroll\" tabindex=\"0\" role=\"group\" aria-label=\"The counters (scrolls)\"><table class=\"plan-counters\"><caption>What each counter would read at the "
                "step's peak</caption><thead><tr><th scope=\"col\">counter</th><th scope=\"col\">planned</th>"
                "<th scope=\"col\">band</th>");
  if (said) ui_buf_raw(b, "<th scope=\"col\">your error said</th>");
  ui_buf_raw(b, "</tr></thead><tbody>");
  counter(b, "max_memory_allocated()", mem, "allocated_bytes", "allocated_band", said ? oom->allocated : -1);
  counter(b, "max_memory_reserved()", mem, "reserved_bytes", "reserved_band", said ? oom->reserved : -1);
  counter(b, "nvidia-smi", mem, "device_bytes", "device_band", said ? oom->total : -1);
  ui_buf_raw(b, "</tbody></table></div>");
  if (said)
    ui_buf_raw(b, "<p class=\"muted plan-said\">The last column is your error's own figures (for nvidia-smi: the "
                  "card's total capacity it named). Set the model and micro-batch you ran to compare.</p>");
}

static void components(ui_buf *b, const cJSON *mem) {
  const cJSON *c, *x;
  ui_buf_raw(b, "<details class=\"plan-components\"><summary>What the memory is made of</summary><ul>");
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(mem, "components")) {
    ui_buf_raw(b, "<li><strong>");
    ui_buf_text(b, LAB_IEC(num(c, "bytes")));
    ui_buf_raw(b, "</strong> ");
    ui_buf_text(b, ui_json_text(c, "label"));
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(c, "sources");
    if (cJSON_GetArraySize(src) > 0) {
      ui_buf_raw(b, "<ul>");
      cJSON_ArrayForEach(x, src) {
        ui_buf_raw(b, "<li>");
        ui_buf_text(b, LAB_IEC(num(x, "bytes")));
        ui_buf_raw(b, " ");
        ui_buf_text(b, ui_json_text(x, "label"));
        ui_buf_raw(b, "</li>");
      }
      ui_buf_raw(b, "</ul>");
    }
    ui_buf_raw(b, "</li>");
  }
  ui_buf_raw(b, "</ul></details>");
}

static void levers(ui_buf *b, const cJSON *a) {
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(a, "levers"), *l;
  if (cJSON_GetArraySize(list) == 0) return;
  ui_buf_raw(b, "<h2>What each lever would change</h2><ul class=\"plan-levers\">");
  cJSON_ArrayForEach(l, list) {
    bool fits = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "fits"));
    ui_buf_rawf(b, "<li class=\"%s\"><strong>", fits ? "plan-lever-fits" : "plan-lever");
    ui_buf_text(b, ui_json_text(l, "label"));
    ui_buf_raw(b, "</strong>: ");
    ui_buf_text(b, ui_json_text(l, "text"));
    if (fits) ui_buf_raw(b, " <span class=\"plan-fits\">(fits)</span>");
    ui_buf_raw(b, "</li>");
  }
  ui_buf_raw(b, "</ul>");
}

/* The sweep: one stacked column per micro-batch against the card. */
static void sweep(ui_buf *b, const cJSON *a) {
  /* six kinds, one tone each (UI_CHART_TONES): buffers and workspaces together */
  static const char *const ids[KINDS] = {"weights", "gradients", "optimizer_state", "activations", "buffers",
                                         "allocator_context"};
  static const char *const labels[KINDS] = {"weights", "gradients", "optimizer state", "activations",
                                            "buffers and workspaces", "allocator cache and CUDA context"};
  const cJSON *sw = cJSON_GetObjectItemCaseSensitive(a, "sweep"), *p;
  int n = 0, chosen = -1;
  double y[KINDS][SWEEP_MAX], x[SWEEP_MAX];
  char names[SWEEP_MAX][12], summary[400], lim[64], pick[64], v1[32], v2[32];
  const char *cats[SWEEP_MAX];
  double batch = num(cJSON_GetObjectItemCaseSensitive(a, "settings"), "batch");
  cJSON_ArrayForEach(p, sw) {
    if (n == SWEEP_MAX) break;
    x[n] = num(p, "batch");
    for (int k = 0; k < KINDS; k++) y[k][n] = num(p, ids[k]) / 1073741824.0;
    y[4][n] += num(p, "workspace") / 1073741824.0;
    snprintf(names[n], sizeof names[n], "%.0f", x[n]);
    cats[n] = names[n];
    if (x[n] == batch) chosen = n;
    n++;
  }
  if (n == 0) return;
  ui_series_xy s[KINDS];
  for (int k = 0; k < KINDS; k++) s[k] = (ui_series_xy){labels[k], n, x, y[k]};
  const cJSON *mem = cJSON_GetObjectItemCaseSensitive(a, "memory");
  double cap = num(mem, "capacity_bytes") / 1073741824.0, best = num(a, "max_batch");
  snprintf(lim, sizeof lim, "the card: %s", ui_fmt_value(cap, UI_UNIT_GIB, v1));
  snprintf(pick, sizeof pick, "micro-batch %.0f", batch);
  snprintf(summary, sizeof summary,
           "The memory nvidia-smi would show at the step's peak for micro-batches %s to %s, stacked by kind, against "
           "the card's %s: the largest micro-batch that fits is %.0f.",
           names[0], names[n - 1], ui_fmt_value(cap, UI_UNIT_GIB, v2), isfinite(best) ? best : 0);
  ui_mark limit = {cap, lim};
  ui_column_chart c = {.summary = summary, .x_title = "micro-batch (sequences)", .y_title = "memory (GiB, 1 GiB = 2³⁰ bytes)",
                       .categories = cats, .n_cat = n, .parts = s, .n_parts = KINDS, .limits = &limit,
                       .n_limits = isfinite(cap) ? 1 : 0, .highlight = chosen, .highlight_label = pick};
  ui_res_figure_begin(b, "The step's memory for each micro-batch");
  ui_chart_columns(b, &c);
  ui_chart_legend(b, labels, KINDS);
  ui_res_numbers_begin(b);
  ui_table_xy(b, "Memory by kind (GiB) for each micro-batch", "micro-batch", UI_UNIT_PLAIN, UI_UNIT_GIB, s, KINDS);
  ui_res_figure_end(b);
}

void ui_render_plan(ui_buf *b, const cJSON *a, const ui_plan_oom *oom) {
  const cJSON *err = cJSON_GetObjectItemCaseSensitive(a, "error");
  if (err || !a) {
    ui_buf_raw(b, "<p class=\"exp-failure\" role=\"alert\">");
    ui_buf_text(b, err ? ui_json_text(err, "message") : "The planner gave no answer.");
    ui_buf_raw(b, "</p>");
    return;
  }
  const cJSON *model = cJSON_GetObjectItemCaseSensitive(a, "model"), *mem = cJSON_GetObjectItemCaseSensitive(a, "memory");
  const cJSON *fits = cJSON_GetObjectItemCaseSensitive(a, "fits");
  ui_buf_rawf(b, "<p class=\"plan-verdict %s\" id=\"plan-verdict\">",
              cJSON_IsTrue(fits) ? "plan-fits" : cJSON_IsFalse(fits) ? "plan-over" : "");
  ui_buf_text(b, ui_json_text(a, "verdict"));
  ui_buf_raw(b, "</p><p>");
  ui_buf_textf(b, "%s: %.1f M parameters (%.1f M trainable).", ui_json_text(model, "name"), num(model, "params") / 1e6,
               num(model, "trainable_params") / 1e6);
  if (isfinite(num(a, "max_batch")))
    ui_buf_textf(b, " The largest micro-batch that fits: %.0f.", num(a, "max_batch"));
  ui_buf_raw(b, "</p>");
  if (oom && oom->tried > 0) {
    ui_buf_raw(b, "<p class=\"plan-said\">Your error tried to allocate ");
    ui_buf_text(b, LAB_IEC(oom->tried));
    ui_buf_raw(b, " more when it failed.</p>");
  }
  counters(b, mem, oom);
  components(b, mem);
  double ms = num(a, "step_ms");
  ui_buf_raw(b, "<p class=\"plan-time\">");
  ui_buf_textf(b, "A step (every micro-batch and the optimizer): about %.0f ms (%.0f to %.0f ms), %.0f tokens/s.", ms,
               band_at(a, "step_ms_band", 0), band_at(a, "step_ms_band", 1), num(a, "tokens_per_s"));
  ui_buf_raw(b, "</p>");
  levers(b, a);
  sweep(b, a);
  ui_buf_raw(b, "<p class=\"muted\">");
  ui_buf_text(b, ui_json_text(a, "method"));
  ui_buf_raw(b, "</p>");
}

void ui_render_plan_presets(ui_buf *b, const cJSON *a, const char *chosen) {
  const cJSON *p;
  cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(a, "presets")) {
    ui_buf_raw(b, "<option value=\"");
    ui_buf_text(b, ui_json_text(p, "name"));
    ui_buf_raw(b, strcmp(ui_json_text(p, "name"), chosen) ? "\">" : "\" selected>");
    ui_buf_text(b, ui_json_text(p, "name"));
    ui_buf_raw(b, "</option>");
  }
}
