/* placement: which device every tensor of the step lives on, drawn as two
 * columns (CPU, GPU) with the stray field marked; the preflight message and
 * the output's shape. */
#include <stdio.h>
#include <string.h>

#include "chart.h"
#include "chart_draw.h"
#include "gpu_panel.h"
#include "json_get.h"
#include "profiles.h"
#include "result_parts.h"
#include "result_stem.h"

#define ROW 42.0

/* "64×768" from [64, 768]. */
static const char *shape_text(const cJSON *shape, char *buf, size_t n) {
  const cJSON *d;
  size_t len = 0;
  buf[0] = '\0';
  cJSON_ArrayForEach(d, shape) {
    if (!cJSON_IsNumber(d) || len + 24 >= n) continue;
    len += (size_t)snprintf(buf + len, n - len, "%s%.0f", len ? "×" : "", d->valuedouble);
  }
  if (!buf[0]) snprintf(buf, n, "scalar");
  return buf;
}

static void diagram(ui_buf *b, const cJSON *tensors, const char *summary) {
  const cJSON *t;
  int rows[2] = {0, 0};
  char shape[64];
  cJSON_ArrayForEach(t, tensors) {
    const char *dev = ui_json_str(t, "device");
    rows[dev && strncmp(dev, "cuda", 4) == 0]++;
  }
  int most = rows[0] > rows[1] ? rows[0] : rows[1];
  double h = 64 + (most ? most : 1) * ROW + 10;
  ui_svg_begin(b, "chart-placement", 560, h, summary);
  static const char *const heads[2] = {"CPU (host memory)", "GPU (cuda:0)"};
  for (int col = 0; col < 2; col++) {
    double x = 10 + col * 275;
    ui_buf_rawf(b, "<rect class=\"device-box c%d\" x=\"%.0f\" y=\"8\" width=\"265\" height=\"%.0f\" rx=\"10\"/>", col, x,
                h - 16);
    ui_buf_rawf(b, "<text class=\"lane-label\" x=\"%.0f\" y=\"32\">%s</text>", x + 12, heads[col]);
    int r = 0;
    cJSON_ArrayForEach(t, tensors) {
      const char *dev = ui_json_str(t, "device"), *name = ui_json_str(t, "name");
      if ((dev && strncmp(dev, "cuda", 4) == 0) != (col == 1) || !name) continue;
      bool stray = ui_json_bool(t, "stray") == 1;
      double y = 46 + r * ROW;
      ui_buf_rawf(b, "<g class=\"tensor%s\"><rect x=\"%.0f\" y=\"%.0f\" width=\"241\" height=\"34\" rx=\"6\"/>",
                  stray ? " stray" : "", x + 12, y);
      ui_buf_rawf(b, "<text x=\"%.0f\" y=\"%.0f\">", x + 22, y + 22);
      ui_buf_text(b, name);
      ui_buf_raw(b, " ");
      ui_buf_text(b, shape_text(ui_json_arr(t, "shape"), shape, sizeof shape));
      if (stray) ui_buf_raw(b, " — stray!");
      ui_buf_raw(b, "</text></g>");
      r++;
    }
  }
  ui_svg_end(b);
}

UI_RESULT_RENDERER(placement);

UI_RESULT_RENDERER(placement) {
  const cJSON *d = ui_json_obj(env, "details"), *tensors = ui_json_arr(d, "tensors"), *t;
  const cJSON *pre = ui_json_obj(d, "preflight"), *out = ui_json_obj(d, "output");
  char summary[400], shape[64], v[32];
  double gpu = ui_res_metric(env, "tensors_on_gpu"), cpu = ui_res_metric(env, "tensors_on_cpu");
  bool computed = ui_json_bool(out, "computed") == 1;
  const char *out_dev = ui_json_str(out, "device");
  if (computed)
    snprintf(summary, sizeof summary, "%.0f tensors are on the GPU and %.0f on the CPU; the layer produced a %s output on %s.",
             gpu, cpu, shape_text(ui_json_arr(out, "shape"), shape, sizeof shape), out_dev ? out_dev : "its device");
  else
    snprintf(summary, sizeof summary, "%.0f tensors are on the GPU and %.0f on the CPU; the step did not run.", gpu, cpu);
  ui_res_figure_begin(b, "Where each tensor lives");
  diagram(b, tensors, summary);
  if (ui_json_bool(pre, "ok") == 0) {
    const char *msg = ui_json_str(pre, "message");
    ui_buf_raw(b, "<p class=\"exp-preflight\" role=\"note\"><strong>Preflight stopped the step:</strong> ");
    ui_buf_text(b, msg ? msg : "the tensors are on different devices.");
    ui_buf_raw(b, "</p>");
  }
  ui_buf_raw(b, "<p class=\"exp-output\">");
  if (computed) {
    ui_buf_raw(b, "Output: <strong>");
    ui_buf_text(b, shape);
    ui_buf_raw(b, "</strong> on <code>");
    ui_buf_text(b, out_dev ? out_dev : "?");
    ui_buf_raw(b, "</code>");
  } else {
    ui_buf_raw(b, "No output: the layer did not run.");
  }
  ui_buf_raw(b, "</p>");
  ui_res_numbers_begin(b);
  ui_buf_raw(b, "<div class=\"table-wrap\"><table class=\"numbers\"><caption>Every tensor of the step</caption><thead><tr>"
                "<th scope=\"col\">tensor</th><th scope=\"col\">role</th><th scope=\"col\">device</th>"
                "<th scope=\"col\">shape</th><th scope=\"col\">size</th></tr></thead><tbody>");
  cJSON_ArrayForEach(t, tensors) {
    double bytes = 0;
    ui_json_num(t, "bytes", &bytes);
    ui_buf_raw(b, "<tr><th scope=\"row\">");
    ui_buf_text(b, ui_json_str(t, "name"));
    if (ui_json_bool(t, "stray") == 1) ui_buf_raw(b, " (stray)");
    ui_buf_raw(b, "</th><td>");
    ui_buf_text(b, ui_json_str(t, "role"));
    ui_buf_raw(b, "</td><td>");
    ui_buf_text(b, ui_json_str(t, "device"));
    ui_buf_raw(b, "</td><td>");
    ui_buf_text(b, shape_text(ui_json_arr(t, "shape"), shape, sizeof shape));
    ui_buf_raw(b, "</td><td>");
    ui_buf_text(b, ui_fmt_value(bytes, UI_UNIT_BYTES, v));
    ui_buf_raw(b, "</td></tr>");
  }
  ui_buf_raw(b, "</tbody></table></div>");
  ui_res_figure_end(b);
}
