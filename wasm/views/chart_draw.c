/* The pieces every chart file draws with (chart_draw.h): the <svg> frame
 * with its accessible name, positions inside a plot box, axes and marks. */
#include "chart_draw.h"

#include <math.h>
#include <stdio.h>

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
