/* allocator: the memory timeline (allocated, reserved and the driver's view
 * after every allocation and free, empty_cache() marked), the per-call cost
 * of cudaMalloc/cudaFree against a cached block, and the fragmentation
 * example's numbers. Every chart has its table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_get.h"
#include "result_parts.h"
#include "result_stem.h"

#define MIB (1024.0 * 1024.0)

/* The events table: one row per point, with what happened there. */
static void events_table(ui_buf *b, const cJSON *env, const ui_series_xy *s, int n) {
  char v[32];
  const cJSON *ev = ui_json_arr(ui_json_obj(env, "details"), "events");
  ui_buf_raw(b, "<div class=\"table-wrap\"><table class=\"numbers\"><caption>Memory after each event (MiB) and "
                "cudaMalloc calls so far</caption><thead><tr><th scope=\"col\">event</th>"
                "<th scope=\"col\">what happened</th>");
  for (int i = 0; i < n; i++) {
    ui_buf_raw(b, "<th scope=\"col\">");
    ui_buf_text(b, s[i].label);
    ui_buf_raw(b, "</th>");
  }
  ui_buf_raw(b, "<th scope=\"col\">cudaMalloc calls</th></tr></thead><tbody>");
  for (int k = 0; k < s[0].n; k++) {
    const cJSON *e = cJSON_GetArrayItem(ev, k);
    const char *what = ui_json_str(e, "label");
    double calls = NAN;
    ui_json_num(e, "cuda_malloc_calls", &calls);
    ui_buf_rawf(b, "<tr><th scope=\"row\">%d</th><td>", k);
    ui_buf_text(b, what ? what : "");
    ui_buf_raw(b, "</td>");
    for (int i = 0; i < n; i++) {
      ui_buf_raw(b, "<td>");
      ui_buf_text(b, k < s[i].n ? ui_fmt_value(s[i].y[k], UI_UNIT_PLAIN, v) : "—");
      ui_buf_raw(b, "</td>");
    }
    ui_buf_raw(b, "<td>");
    ui_buf_text(b, isfinite(calls) ? ui_fmt_value(calls, UI_UNIT_PLAIN, v) : "—");
    ui_buf_raw(b, "</td></tr>");
  }
  ui_buf_raw(b, "</tbody></table></div>");
}

static void timeline(ui_buf *b, const cJSON *env) {
  static const char *const ids[] = {"allocated", "reserved", "device_used"};
  ui_series_xy s[3];
  const char *labels[3];
  char summary[480], v1[32], v2[32], v3[32], v4[32];
  int n = ui_res_series(env, ids, 3, s), n_marks = 0;
  if (n == 0) return;
  for (int i = 0; i < n; i++) labels[i] = s[i].label;
  ui_mark marks[1];
  const cJSON *e;
  int k = 0;
  cJSON_ArrayForEach(e, ui_json_arr(ui_json_obj(env, "details"), "events")) {
    const char *what = ui_json_str(e, "label");
    if (what && strcmp(what, "empty_cache()") == 0 && n_marks == 0) marks[n_marks++] = (ui_mark){k, "empty_cache()"};
    k++;
  }
  double pa = ui_res_metric(env, "peak_allocated_bytes"), pr = ui_res_metric(env, "peak_reserved_bytes");
  double ar = ui_res_metric(env, "after_empty_reserved_bytes"), aa = ui_res_metric(env, "after_empty_allocated_bytes");
  snprintf(summary, sizeof summary,
           "Memory after every allocation and free of the training steps: allocated rises in forward and falls in "
           "backward, peaking at %s, while reserved climbs to %s and stays; after empty_cache() reserved is %s "
           "for %s still allocated.",
           ui_fmt_value(pa, UI_UNIT_BYTES, v1), ui_fmt_value(pr, UI_UNIT_BYTES, v2),
           ui_fmt_value(ar, UI_UNIT_BYTES, v3), ui_fmt_value(aa, UI_UNIT_BYTES, v4));
  ui_line_chart c = {.summary = summary, .x_title = "event (listed in the numbers)",
                     .y_title = "memory (MiB)", .x_scale = UI_SCALE_LINEAR, .y_scale = UI_SCALE_LINEAR,
                     .x_unit = UI_UNIT_PLAIN, .y_unit = UI_UNIT_PLAIN, .y_zero = true, .x_whole = true, .series = s,
                     .n_series = n, .marks = marks, .n_marks = n_marks};
  ui_res_figure_begin(b, "Allocated vs reserved over training steps");
  ui_chart_lines(b, &c);
  ui_chart_legend(b, labels, n);
  ui_res_numbers_begin(b);
  events_table(b, env, s, n);
  ui_res_figure_end(b);
  ui_res_free(s, n);
}

static void costs(ui_buf *b, const cJSON *env) {
  char summary[400], title[96], v1[32], v2[32], v3[32], v4[32];
  double ma = ui_res_metric(env, "cuda_malloc_us"), fr = ui_res_metric(env, "cuda_free_us");
  double busy = ui_res_metric(env, "cuda_free_busy_us"), cache = ui_res_metric(env, "cache_alloc_free_us");
  double block = ui_res_metric(env, "block_bytes");
  if (!isfinite(ma) || !isfinite(cache)) return;
  ui_bar bars[4] = {{"cudaMalloc", ma},
                    {"cudaFree, device idle", fr},
                    {"cudaFree, a kernel still running", busy},
                    {"cache: allocate + free", cache}};
  snprintf(summary, sizeof summary,
           "Median cost per call for a %s block: cudaMalloc %s µs, cudaFree %s µs (and %s µs while a kernel runs, "
           "because it synchronizes), a cached allocate + free %s µs.",
           ui_fmt_value(block, UI_UNIT_BYTES, title), ui_fmt_value(ma, UI_UNIT_PLAIN, v1),
           ui_fmt_value(fr, UI_UNIT_PLAIN, v2), ui_fmt_value(busy, UI_UNIT_PLAIN, v3),
           ui_fmt_value(cache, UI_UNIT_PLAIN, v4));
  ui_bar_chart c = {.summary = summary, .value_title = "host time per call (µs)", .unit = UI_UNIT_US, .bars = bars,
                    .n = 4};
  ui_res_figure_begin(b, "What one allocation costs: the driver vs the cache");
  ui_chart_bars(b, &c);
  ui_res_numbers_begin(b);
  ui_table_bars(b, "Median host time per call", "time", UI_UNIT_US, bars, 4);
  ui_res_figure_end(b);
}

static void fragmentation(ui_buf *b, const cJSON *env) {
  char summary[400], v1[32], v2[32], v3[32], v4[32];
  double free_b = ui_res_metric(env, "frag_free_in_cache_bytes"), largest = ui_res_metric(env, "frag_largest_free_bytes");
  double req = ui_res_metric(env, "frag_request_bytes"), before = ui_res_metric(env, "frag_reserved_before_bytes");
  double after = ui_res_metric(env, "frag_reserved_after_bytes");
  double kept = ui_res_metric(env, "frag_reserved_after_empty_bytes");
  if (!isfinite(free_b) || !isfinite(req)) return;
  ui_bar bars[6] = {{"free in the cache, all pieces", free_b / MIB},
                    {"largest free piece", largest / MIB},
                    {"the request", req / MIB},
                    {"reserved before the request", before / MIB},
                    {"reserved after it", after / MIB},
                    {"reserved after empty_cache()", kept / MIB}};
  snprintf(summary, sizeof summary,
           "After freeing every other block the cache held %s free, the largest piece %s; a %s request fit in no "
           "piece, so reserved grew to %s.",
           ui_fmt_value(free_b, UI_UNIT_BYTES, v1), ui_fmt_value(largest, UI_UNIT_BYTES, v2),
           ui_fmt_value(req, UI_UNIT_BYTES, v3), ui_fmt_value(after, UI_UNIT_BYTES, v4));
  ui_bar_chart c = {.summary = summary, .value_title = "MiB", .unit = UI_UNIT_PLAIN, .bars = bars, .n = 6};
  ui_res_figure_begin(b, "Fragmentation: enough free memory, in pieces too small");
  ui_chart_bars(b, &c);
  ui_res_numbers_begin(b);
  ui_table_bars(b, "The fragmentation example (MiB)", "MiB", UI_UNIT_PLAIN, bars, 6);
  ui_res_figure_end(b);
}

UI_RESULT_RENDERER(allocator);

UI_RESULT_RENDERER(allocator) {
  timeline(b, env);
  costs(b, env);
  fragmentation(b, env);
}
