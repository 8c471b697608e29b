/* The pieces every chart file draws with (chart_draw.h): the <svg> frame
 * with its accessible name, positions inside a plot box, axes and marks. */
#include "chart_draw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

double ui_label_w(const char *s, double font_px) {
  int n = 0;
  for (; s && *s; s++)
    if (((unsigned char)*s & 0xC0) != 0x80) n++; /* count code points, not bytes */
  return n * font_px * 0.6;
}

/* Tick labels that would touch the one drawn before are left out (the grid
 * line stays): on a phone "16 MiB" and "256 MiB" must not run together. */
void ui_axis_x(ui_buf *b, const ui_box *bx, const ui_axis *a, ui_unit unit, const char *title) {
  char t[32];
  double last_right = -1e9;
  for (int i = 0; i < a->n; i++) {
    double x = ui_box_x(bx, a, a->tick[i]);
    ui_buf_rawf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, bx->y0, x, bx->y1);
    const char *text = ui_fmt_tick(a->tick[i], unit, t);
    const char *anchor = i == 0 && a->n > 1 ? "start" : i == a->n - 1 && a->n > 1 ? "end" : "middle";
    double w = ui_label_w(text, UI_FS_TICK);
    double left = anchor[0] == 's' ? x : anchor[0] == 'e' ? x - w : x - w / 2;
    if (left < last_right + 6) continue;
    last_right = left + w;
    ui_buf_rawf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, bx->y1 + 18, anchor);
    ui_buf_text(b, text);
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

/* The y title sits above the axis, level: turned on its side it ran into
 * the tick labels ("100 µs") and past short charts. Boxes leave 30 units
 * above the plot for it. */
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
    ui_buf_rawf(b, "<text class=\"axis-title\" x=\"4\" y=\"%.1f\">", bx->y0 - 16);
    ui_buf_text(b, title);
    ui_buf_raw(b, "</text>");
  }
}

static void mark_text(ui_buf *b, double x, double y, const char *anchor, const char *s, size_t n) {
  ui_buf_rawf(b, "<text class=\"mark-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
  char part[160];
  snprintf(part, sizeof part, "%.*s", (int)n, s);
  ui_buf_text(b, part);
  ui_buf_raw(b, "</text>");
}

/* Where one line of w units goes beside x inside [lo, hi]: right of the
 * line, else left of it, else pushed inside. Sets the anchor; returns x. */
static double place(double x, double w, double lo, double hi, const char **anchor) {
  if (x + 5 + w <= hi) {
    *anchor = "start";
    return x + 5;
  }
  if (x - 5 - w >= lo) {
    *anchor = "end";
    return x - 5;
  }
  *anchor = "start";
  return w >= hi - lo ? lo : hi - w;
}

void ui_mark_line(ui_buf *b, const ui_box *bx, double x) {
  if (isfinite(x))
    ui_buf_rawf(b, "<line class=\"mark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, bx->y0, x, bx->y1);
}

int ui_mark_label(ui_buf *b, const ui_box *bx, double x, const char *label, int row) {
  if (!isfinite(x) || !label) return 0;
  const double lo = bx->x0 + 2, hi = bx->x1 + 12; /* inside the plot, clear of the y ticks */
  const char *anchor;
  double y = bx->y0 + 14 + 17 * row, w = ui_label_w(label, UI_FS_LABEL);
  if (x + 5 + w <= hi || x - 5 - w >= lo) {
    double at = place(x, w, lo, hi, &anchor);
    mark_text(b, at, y, anchor, label, strlen(label));
    return 1;
  }
  /* Two lines, split at the space nearest the middle ("synchronize()
   * called: | the host waits"). */
  size_t n = strlen(label), cut = 0;
  for (size_t i = 1; i < n; i++)
    if (label[i] == ' ' && (cut == 0 || (i > n / 2 ? i - n / 2 : n / 2 - i) < (cut > n / 2 ? cut - n / 2 : n / 2 - cut)))
      cut = i;
  if (cut == 0) cut = n;
  char first[160];
  snprintf(first, sizeof first, "%.*s", (int)cut, label);
  const char *rest = label + cut + (cut < n);
  double w1 = ui_label_w(first, UI_FS_LABEL), w2 = ui_label_w(rest, UI_FS_LABEL);
  double wmax = w1 > w2 ? w1 : w2;
  double at = place(x, wmax, lo, hi, &anchor);
  mark_text(b, at, y, anchor, first, strlen(first));
  if (*rest) mark_text(b, at, y + 17, anchor, rest, strlen(rest));
  return *rest ? 2 : 1;
}

/* The data range of the chart's points (positive only on a log axis). */
