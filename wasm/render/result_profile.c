/* profile: the profiler table (phase, calls, host ms, GPU ms, % of step) as
 * a bar chart of host time per phase with the table as its numbers, the
 * GPU's busy and idle time per step, and one step on the CPU and GPU lanes. */
#include <math.h>
#include <stdio.h>

#include "json_get.h"
#include "result_parts.h"
#include "result_stem.h"

#define MAX_PHASES 8

typedef struct row {
  const char *phase;
  double calls, host_ms, gpu_ms, pct;
} row;

/* Rows of details.table; returns how many were read. */
static int read_table(const cJSON *env, row *rows) {
  const cJSON *r;
  int n = 0;
  cJSON_ArrayForEach(r, ui_json_arr(ui_json_obj(env, "details"), "table")) {
    if (n == MAX_PHASES) break;
    row x = {ui_json_str(r, "phase"), 0, 0, 0, 0};
    if (!x.phase || !ui_json_num(r, "calls", &x.calls) || !ui_json_num(r, "host_ms", &x.host_ms) ||
        !ui_json_num(r, "gpu_ms", &x.gpu_ms) || !ui_json_num(r, "pct_of_step", &x.pct))
      continue;
    rows[n++] = x;
  }
  return n;
}

/* The text alternative, laid out as a profiler's summary table. */
static void profiler_table(ui_buf *b, const row *rows, int n) {
  char t[32];
  ui_buf_raw(b, "<div class=\"table-wrap\"><table class=\"numbers\"><caption>");
  ui_buf_text(b, "Profiler table: every phase over all steps (host clock inside the NVTX range; GPU busy time "
                 "from events)");
  ui_buf_raw(b, "</caption><thead><tr><th scope=\"col\">phase</th><th scope=\"col\">calls</th>"
                "<th scope=\"col\">host ms</th><th scope=\"col\">GPU ms</th><th scope=\"col\">% of step</th>"
                "</tr></thead><tbody>");
  for (int i = 0; i < n; i++) {
    ui_buf_raw(b, "<tr><th scope=\"row\">");
    ui_buf_text(b, rows[i].phase);
    ui_buf_rawf(b, "</th><td>%.0f</td><td>", rows[i].calls);
    ui_buf_text(b, ui_fmt_value(rows[i].host_ms, UI_UNIT_PLAIN, t));
    ui_buf_raw(b, "</td><td>");
    ui_buf_text(b, ui_fmt_value(rows[i].gpu_ms, UI_UNIT_PLAIN, t));
    ui_buf_rawf(b, "</td><td>%.1f</td></tr>", rows[i].pct);
  }
  ui_buf_raw(b, "</tbody></table></div>");
}

UI_RESULT_RENDERER(profile);

UI_RESULT_RENDERER(profile) {
  row rows[MAX_PHASES];
  ui_bar bars[MAX_PHASES];
  char summary[400], v1[32], v2[32], v3[32];
  int n = read_table(env, rows), big = 0;
  double steps = 0, step_ms = ui_res_metric(env, "step_ms"), busy = ui_res_metric(env, "gpu_step_ms");
  double idle_pct = ui_res_metric(env, "gpu_idle_pct");
  ui_json_num(ui_json_obj(env, "params"), "steps", &steps);
  if (steps < 1) steps = 1;
  for (int i = 0; i < n; i++) {
    bars[i] = (ui_bar){rows[i].phase, rows[i].host_ms / steps};
    if (rows[i].host_ms > rows[big].host_ms) big = i;
  }
  if (n > 0) {
    snprintf(summary, sizeof summary,
             "Host time per step in each phase: %s is the biggest with %s a step (%.0f %% of the step).",
             rows[big].phase, ui_fmt_value(rows[big].host_ms / steps, UI_UNIT_MS, v1), rows[big].pct);
    ui_bar_chart bc = {.summary = summary, .value_title = "host time per step (ms)", .unit = UI_UNIT_MS,
                       .bars = bars, .n = n};
    ui_res_figure_begin(b, "Where a step's time goes (the profiler's view)");
    ui_chart_bars(b, &bc);
    ui_res_numbers_begin(b);
    profiler_table(b, rows, n);
    ui_res_figure_end(b);
  }
  if (isfinite(step_ms) && isfinite(busy)) {
    double idle = step_ms - busy > 0 ? step_ms - busy : 0;
    ui_bar gb[2] = {{"GPU busy", busy}, {"GPU idle", idle}};
    snprintf(summary, sizeof summary, "Of each %s step the GPU was busy %s and idle %s (%.0f %%).",
             ui_fmt_value(step_ms, UI_UNIT_MS, v1), ui_fmt_value(busy, UI_UNIT_MS, v2),
             ui_fmt_value(idle, UI_UNIT_MS, v3), isfinite(idle_pct) ? idle_pct : 0);
    ui_bar_chart bc = {.summary = summary, .value_title = "time per step (ms)", .unit = UI_UNIT_MS, .bars = gb,
                       .n = 2};
    ui_res_figure_begin(b, "Is the GPU kept busy?");
    ui_chart_bars(b, &bc);
    ui_res_numbers_begin(b);
    ui_table_bars(b, "GPU busy and idle time per step", "time", UI_UNIT_MS, gb, 2);
    ui_res_figure_end(b);
  }
  snprintf(summary, sizeof summary,
           "Timeline of the last step: the CPU lane shows each phase's NVTX range as the host saw it, the GPU lane "
           "each copy and kernel; gaps on the GPU lane are idle time, the hatched logging range is the host waiting "
           "for .item().");
  ui_result_timeline(b, env, "One step: NVTX ranges on the CPU, kernels on the GPU", summary);
}
