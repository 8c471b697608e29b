/* The SVG frame, the axes and the line chart (see chart.h). Coordinates are
 * SVG user units in a fixed viewBox; CSS scales the chart to its column and
 * styles it (colours, dash patterns, dark mode) through classes. */
#include "chart.h"

#include <math.h>
#include <stdio.h>

#include "chart_draw.h"

#define LINE_W 420.0
#define LINE_H 300.0

void ui_svg_begin(ui_buf *b, const char *cls, double w, double h, const char *summary) {
  ui_buf_rawf(b, "<svg class=\"chart %s\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"", cls, w, h);
  ui_buf_text(b, summary);
  ui_buf_raw(b, "\" xmlns=\"http://www.w3.org/2000/svg\"><title>");
  ui_buf_text(b, summary);
  ui_buf_raw(b, "</title>");
}

void ui_svg_end(ui_buf *b) { ui_buf_raw(b, "</svg>"); }

double ui_box_x(const ui_box *bx, const ui_axis *a, double v) {
  return bx->x0 + ui_axis_frac(a, v) * (bx->x1 - bx->x0);
}

double ui_box_y(const ui_box *bx, const ui_axis *a, double v) {
  return bx->y1 - ui_axis_frac(a, v) * (bx->y1 - bx->y0);
}

void ui_axis_x(ui_buf *b, const ui_box *bx, const ui_axis *a, ui_unit unit, const char *title) {
  char t[32];
  for (int i = 0; i < a->n; i++) {
    double x = ui_box_x(bx, a, a->tick[i]);
    ui_buf_rawf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, bx->y0, x, bx->y1);
    ui_buf_rawf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, bx->y1 + 18,
                i == 0 && a->n > 1 ? "start" : i == a->n - 1 && a->n > 1 ? "end" : "middle");
    ui_buf_text(b, ui_fmt_tick(a->tick[i], unit, t));
    ui_buf_raw(b, "</text>");
  }
  ui_buf_rawf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", bx->x0, bx->y1, bx->x1,
              bx->y1);
  if (title) {
    ui_buf_rawf(b, "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (bx->x0 + bx->x1) / 2,
                bx->y1 + 40);
    ui_buf_text(b, title);
    ui_buf_raw(b, "</text>");
  }
}

void ui_axis_y(ui_buf *b, const ui_box *bx, const ui_axis *a, ui_unit unit, const char *title) {
  char t[32];
  for (int i = 0; i < a->n; i++) {
    double y = ui_box_y(bx, a, a->tick[i]);
    ui_buf_rawf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", bx->x0, y, bx->x1, y);
    ui_buf_rawf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", bx->x0 - 6, y + 4);
    ui_buf_text(b, ui_fmt_tick(a->tick[i], unit, t));
    ui_buf_raw(b, "</text>");
  }
  ui_buf_rawf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", bx->x0, bx->y0, bx->x0,
              bx->y1);
  if (title) {
    ui_buf_rawf(b, "<text class=\"axis-title\" transform=\"rotate(-90)\" x=\"%.1f\" y=\"14\" text-anchor=\"middle\">",
                -(bx->y0 + bx->y1) / 2);
    ui_buf_text(b, title);
    ui_buf_raw(b, "</text>");
  }
}

void ui_mark_line(ui_buf *b, const ui_box *bx, double x, const char *label, int row) {
  if (!isfinite(x)) return;
  bool right = x > (bx->x0 + bx->x1) / 2;
  ui_buf_rawf(b, "<line class=\"mark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, bx->y0, x, bx->y1);
  ui_buf_rawf(b, "<text class=\"mark-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", right ? x - 5 : x + 5,
              bx->y0 + 14 + 16 * row, right ? "end" : "start");
  ui_buf_text(b, label);
  ui_buf_raw(b, "</text>");
}

/* The data range of the chart's points (positive only on a log axis). */
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
  ui_box bx = {72, 16, LINE_W - 18, LINE_H - 52};
  ui_svg_begin(b, "chart-lines", LINE_W, LINE_H, c->summary);
  if (!range(c, true, &xlo, &xhi) || !range(c, false, &ylo, &yhi) ||
      !ui_axis_fit(&ax, c->x_scale, xlo, xhi, 7, false) || !ui_axis_fit(&ay, c->y_scale, ylo, yhi, 6, c->y_zero)) {
    ui_buf_rawf(b, "<text class=\"tick\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">no data to draw</text>",
                LINE_W / 2, LINE_H / 2);
    ui_svg_end(b);
    return;
  }
  /* Linear ticks read best as plain numbers (the title carries the unit); a
   * log axis spans units, so its ticks say theirs ("10 µs", "1 ms"). */
  ui_axis_y(b, &bx, &ay, c->y_scale == UI_SCALE_LINEAR ? UI_UNIT_PLAIN : c->y_unit, c->y_title);
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
  for (int m = 0; m < c->n_marks; m++) ui_mark_line(b, &bx, ui_box_x(&bx, &ax, c->marks[m].x), c->marks[m].label, m);
  ui_svg_end(b);
}
