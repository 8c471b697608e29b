/* Bar charts: horizontal bars (labels above each bar, so they stay legible
 * on a phone), one stacked bar against limit lines, and a timeline whose
 * lanes are the CPU and the GPU streams. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chart.h"
#include "chart_draw.h"

#define BAR_W 560.0
#define BAR_ROW 46.0

void ui_chart_bars(ui_buf *b, const ui_bar_chart *c) {
  ui_axis ax;
  double hi = 0;
  char t[32];
  for (int i = 0; i < c->n; i++)
    if (isfinite(c->bars[i].value) && c->bars[i].value > hi) hi = c->bars[i].value;
  double h = 20 + c->n * BAR_ROW + 52;
  ui_box bx = {10, 12, BAR_W - 110, h - 52};
  ui_svg_begin(b, "chart-bars", BAR_W, h, c->summary);
  ui_axis_fit(&ax, UI_SCALE_LINEAR, 0, hi > 0 ? hi : 1, 5, true);
  ui_axis_x(b, &bx, &ax, UI_UNIT_PLAIN, c->value_title);
  for (int i = 0; i < c->n; i++) {
    double v = c->bars[i].value, y = bx.y0 + 8 + i * BAR_ROW;
    double w = isfinite(v) && v > 0 ? ui_box_x(&bx, &ax, v) - bx.x0 : 0;
    if (isfinite(v) && v > 0 && w < 2) w = 2; /* a tiny value stays visible: that is often the lesson */
    ui_buf_rawf(b, "<g class=\"c%d\"><text class=\"bar-label\" x=\"%.1f\" y=\"%.1f\">", i % UI_CHART_TONES, bx.x0,
                y + 12);
    ui_buf_text(b, c->bars[i].label);
    ui_buf_rawf(b, "</text><rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"16\"/>", bx.x0, y + 18, w);
    ui_buf_rawf(b, "<text class=\"bar-value\" x=\"%.1f\" y=\"%.1f\">", bx.x0 + w + 6, y + 31);
    ui_buf_text(b, isfinite(v) ? ui_fmt_value(v, c->unit, t) : "n/a");
    ui_buf_raw(b, "</text></g>");
  }
  ui_svg_end(b);
}

void ui_chart_stack(ui_buf *b, const ui_stack_chart *c) {
  ui_axis ax;
  double total = 0, hi = 0, h = 190;
  char t[32];
  for (int i = 0; i < c->n_parts; i++)
    if (isfinite(c->parts[i].value) && c->parts[i].value > 0) total += c->parts[i].value;
  hi = total;
  for (int i = 0; i < c->n_limits; i++)
    if (isfinite(c->limits[i].x) && c->limits[i].x > hi) hi = c->limits[i].x;
  ui_box bx = {10, 20 + 18.0 * c->n_limits, BAR_W - 20, h - 52};
  double bar_y = bx.y1 - 56;
  ui_svg_begin(b, "chart-stack", BAR_W, h, c->summary);
  ui_axis_fit(&ax, UI_SCALE_LINEAR, 0, hi > 0 ? hi : 1, 6, true);
  ui_axis_x(b, &bx, &ax, UI_UNIT_PLAIN, c->value_title);
  ui_buf_rawf(b, "<text class=\"bar-label\" x=\"%.1f\" y=\"%.1f\">", bx.x0, bar_y - 8);
  ui_buf_text(b, c->bar_label);
  ui_buf_raw(b, ": ");
  ui_buf_text(b, ui_fmt_value(total, c->unit, t));
  ui_buf_raw(b, "</text>");
  double x = bx.x0;
  for (int i = 0; i < c->n_parts; i++) {
    double v = c->parts[i].value;
    if (!isfinite(v) || v <= 0) continue;
    double w = ui_box_x(&bx, &ax, v) - bx.x0;
    ui_buf_rawf(b, "<rect class=\"bar c%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"30\"><title>", i % UI_CHART_TONES,
                x, bar_y, w > 0.5 ? w : 0.5);
    ui_buf_text(b, c->parts[i].label);
    ui_buf_raw(b, ": ");
    ui_buf_text(b, ui_fmt_value(v, c->unit, t));
    ui_buf_raw(b, "</title></rect>");
    x += w;
  }
  for (int i = 0; i < c->n_limits; i++) {
    double lx = ui_box_x(&bx, &ax, c->limits[i].x);
    if (!isfinite(lx)) continue;
    bool right = lx > (bx.x0 + bx.x1) / 2;
    ui_buf_rawf(b, "<line class=\"limit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", lx, 14 + 18.0 * i, lx,
                bx.y1);
    ui_buf_rawf(b, "<text class=\"mark-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", right ? lx - 5 : lx + 5,
                26 + 18.0 * i, right ? "end" : "start");
    ui_buf_text(b, c->limits[i].label);
    ui_buf_raw(b, "</text>");
  }
  ui_svg_end(b);
}

#define MAX_LANES 6

void ui_chart_timeline(ui_buf *b, const ui_timeline_chart *c) {
  const char *lanes[MAX_LANES];
  int n_lanes = 0;
  double end = 0;
  ui_axis ax;
  char t[32], t2[32];
  for (int i = 0; i < c->n; i++) {
    int l = 0;
    while (l < n_lanes && strcmp(lanes[l], c->spans[i].lane) != 0) l++;
    if (l == n_lanes && n_lanes < MAX_LANES) lanes[n_lanes++] = c->spans[i].lane;
    if (isfinite(c->spans[i].end_us) && c->spans[i].end_us > end) end = c->spans[i].end_us;
  }
  double h = 40 + 18.0 * c->n_marks + n_lanes * 52 + 52;
  ui_box bx = {110, 20 + 18.0 * c->n_marks, BAR_W - 18, h - 52};
  ui_svg_begin(b, "chart-timeline", BAR_W, h, c->summary);
  ui_axis_fit(&ax, UI_SCALE_LINEAR, 0, end > 0 ? end : 1, 6, true);
  ui_axis_x(b, &bx, &ax, UI_UNIT_US, "time since the first launch");
  for (int l = 0; l < n_lanes; l++) {
    double y = bx.y0 + 10 + l * 52;
    ui_buf_rawf(b, "<text class=\"lane-label\" x=\"8\" y=\"%.1f\">", y + 22);
    ui_buf_text(b, lanes[l]);
    ui_buf_raw(b, "</text>");
    for (int i = 0; i < c->n; i++) {
      const ui_span *s = &c->spans[i];
      if (strcmp(s->lane, lanes[l]) != 0) continue;
      double x0 = ui_box_x(&bx, &ax, s->start_us), x1 = ui_box_x(&bx, &ax, s->end_us);
      if (!isfinite(x0) || !isfinite(x1)) continue;
      ui_buf_rawf(b, "<rect class=\"bar c%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"32\"><title>", l % UI_CHART_TONES,
                  x0, y, x1 - x0 > 1.5 ? x1 - x0 : 1.5);
      ui_buf_text(b, s->label);
      ui_buf_raw(b, ": ");
      ui_buf_text(b, ui_fmt_value(s->start_us, UI_UNIT_US, t));
      ui_buf_raw(b, " to ");
      ui_buf_text(b, ui_fmt_value(s->end_us, UI_UNIT_US, t2));
      ui_buf_raw(b, "</title></rect>");
    }
  }
  for (int m = 0; m < c->n_marks; m++)
    ui_mark_line(b, &(ui_box){bx.x0, 8, bx.x1, bx.y1}, ui_box_x(&bx, &ax, c->marks[m].x), c->marks[m].label, m);
  ui_svg_end(b);
}
