/* The SVG frame, the axes and the line chart (see chart.h). Coordinates are
 * SVG user units in a fixed viewBox; CSS scales the chart to its column and
 * styles it (colours, dash patterns, dark mode) through classes. */
#include "chart.h"

#include <math.h>
#include <stdio.h>

#include "chart_draw.h"

#define LINE_W 420.0
#define LINE_H 300.0

static bool range(const ui_line_chart *c, bool want_x, double *lo, double *hi) {
  bool log = (want_x ? c->x_scale : c->y_scale) != UI_SCALE_LINEAR, any = false;
  *lo = INFINITY;
  *hi = -INFINITY;
  for (int s = 0; s < c->n_series; s++) {
    for (int i = 0; i < c->series[s].n; i++) {
      double v = want_x ? c->series[s].x[i] : c->series[s].y[i];
      if (!isfinite(v) || (log && !(v > 0))) continue;
      if (v < *lo) *lo = v;
      if (v > *hi) *hi = v;
      any = true;
    }
  }
  if (want_x) {
    for (int m = 0; m < c->n_marks; m++) {
      double v = c->marks[m].x;
      if (!isfinite(v) || (log && !(v > 0))) continue;
      if (v < *lo) *lo = v;
      if (v > *hi) *hi = v;
      any = true;
    }
  }
  return any;
}

void ui_chart_lines(ui_buf *b, const ui_line_chart *c) {
  ui_axis ax, ay;
  double xlo, xhi, ylo, yhi;
  ui_box bx = {72, 32, LINE_W - 18, LINE_H - 52}; /* 32 on top: the y title sits there */
  ui_svg_begin(b, "chart-lines", LINE_W, LINE_H, c->summary);
  /* Linear ticks read best as plain numbers (the title carries the unit); a
   * log axis spans units, so its ticks say theirs ("10 µs", "1 ms"). Bytes
   * say theirs on either: a plain 8e9 read "8000M" (multi_gpu's memory). */
  bool y_bytes = c->y_scale == UI_SCALE_LINEAR && c->y_unit == UI_UNIT_BYTES;
  bool x_bytes = c->x_scale == UI_SCALE_LINEAR && c->x_unit == UI_UNIT_BYTES;
  if (!range(c, true, &xlo, &xhi) || !range(c, false, &ylo, &yhi) ||
      !(x_bytes ? ui_axis_fit_bytes(&ax, xlo, xhi, 7, false) : ui_axis_fit(&ax, c->x_scale, xlo, xhi, 7, false)) ||
      !(y_bytes ? ui_axis_fit_bytes(&ay, ylo, yhi, 6, c->y_zero) : ui_axis_fit(&ay, c->y_scale, ylo, yhi, 6, c->y_zero))) {
    ui_buf_rawf(b, "<text class=\"tick\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">no data to draw</text>",
                LINE_W / 2, LINE_H / 2);
    ui_svg_end(b);
    return;
  }
  if (c->x_whole) { /* an index axis: keep the ticks that name a step */
    int k = 0;
    for (int i = 0; i < ax.n; i++)
      if (fabs(ax.tick[i] - round(ax.tick[i])) < 1e-9) ax.tick[k++] = ax.tick[i];
    ax.n = k;
  }
  ui_axis_y(b, &bx, &ay, c->y_scale == UI_SCALE_LINEAR && !y_bytes ? UI_UNIT_PLAIN : c->y_unit, c->y_title);
  ui_axis_x(b, &bx, &ax, c->x_unit, c->x_title);
  for (int s = 0; s < c->n_series; s++) {
    const ui_series_xy *sr = &c->series[s];
    bool pen = false;
    ui_buf_rawf(b, "<g class=\"series c%d\"><path class=\"line\" d=\"", s % UI_CHART_TONES);
    for (int i = 0; i < sr->n; i++) {
      double x = ui_box_x(&bx, &ax, sr->x[i]), y = ui_box_y(&bx, &ay, sr->y[i]);
      if (!isfinite(x) || !isfinite(y)) {
        pen = false; /* a gap: the next drawable point starts a new segment */
        continue;
      }
      ui_buf_rawf(b, "%s%.1f %.1f ", pen ? "L" : "M", x, y);
      pen = true;
    }
    ui_buf_raw(b, "\"/>");
    if (sr->n <= 24) {
      for (int i = 0; i < sr->n; i++) {
        double x = ui_box_x(&bx, &ax, sr->x[i]), y = ui_box_y(&bx, &ay, sr->y[i]);
        if (isfinite(x) && isfinite(y)) ui_buf_rawf(b, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/>", x, y);
      }
    }
    ui_buf_raw(b, "</g>");
  }
  ui_chart_marks(b, &bx, &bx, &ax, c->marks, c->n_marks);
  ui_svg_end(b);
}
