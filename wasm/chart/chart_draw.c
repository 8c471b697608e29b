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

/* Where tick i's label starts and how wide it is (the first is anchored at
 * its start, the last at its end, so neither leaves the chart). */
static const char *tick_anchor(const ui_axis *a, int i) {
  return i == 0 && a->n > 1 ? "start" : i == a->n - 1 && a->n > 1 ? "end" : "middle";
}

static double tick_left(double x, double w, const char *anchor) {
  return anchor[0] == 's' ? x : anchor[0] == 'e' ? x - w : x - w / 2;
}

/* Tick labels that would touch the one drawn before, or the last one, are
 * left out (the grid line stays): on a phone "16 MiB" and "256 MiB" must
 * not run together. The last is always drawn: where an axis ends ("1024",
 * a timeline's "4 ms") is what a reader looks for. */
void ui_axis_x(ui_buf *b, const ui_box *bx, const ui_axis *a, ui_unit unit, const char *title) {
  char t[32];
  double last_right = -1e9, end_left = 1e9;
  if (a->n > 1) {
    const char *text = ui_fmt_tick(a->tick[a->n - 1], unit, t);
    end_left = tick_left(ui_box_x(bx, a, a->tick[a->n - 1]), ui_label_w(text, UI_FS_TICK), tick_anchor(a, a->n - 1));
  }
  for (int i = 0; i < a->n; i++) {
    double x = ui_box_x(bx, a, a->tick[i]);
    ui_buf_rawf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, bx->y0, x, bx->y1);
    const char *text = ui_fmt_tick(a->tick[i], unit, t);
    const char *anchor = tick_anchor(a, i);
    double w = ui_label_w(text, UI_FS_TICK);
    double left = tick_left(x, w, anchor);
    bool last = i == a->n - 1;
    if (!last && (left < last_right + 6 || left + w + 6 > end_left)) continue;
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

/* Mark labels are bold: wider than the 0.6 em of plain text (DejaVu Sans
 * Bold at 16 px, as Chromium draws "the GPU is done: the host goes on":
 * tests/e2e/charts.test.mjs measures every label it draws). */
static double bold_w(const char *s) { return ui_label_w(s, UI_FS_LABEL) * 1.1; }

#define MAX_MARKS 8

/* A label's box as drawn, so the lines can leave a gap for it. */
typedef struct label_box {
  double x0, y0, x1, y1;
} label_box;

typedef struct marks_ctx {
  ui_buf *b;
  const ui_box *bx;
  double lines[MAX_MARKS]; /* lines already drawn through the rows below their label */
  int n_lines;
  label_box boxes[2 * MAX_MARKS];
  int n_boxes;
} marks_ctx;

static void mark_text(marks_ctx *m, double x, double y, const char *anchor, const char *s, size_t n) {
  char part[160];
  snprintf(part, sizeof part, "%.*s", (int)n, s);
  ui_buf_rawf(m->b, "<text class=\"mark-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
  ui_buf_text(m->b, part);
  ui_buf_raw(m->b, "</text>");
  double w = bold_w(part), left = anchor[0] == 'e' ? x - w : x;
  if (m->n_boxes < 2 * MAX_MARKS) m->boxes[m->n_boxes++] = (label_box){left - 2, y - 14, left + w + 2, y + 5};
}

/* True when one of the lines drawn runs through [from, to]. */
static bool crosses(const marks_ctx *m, double from, double to) {
  for (int i = 0; i < m->n_lines; i++)
    if (m->lines[i] > from - 2 && m->lines[i] < to + 2) return true;
  return false;
}

/* Where one line of w units goes beside x inside [lo, hi], crossing none
 * of the lines drawn through its row: right of its own line, else left of
 * it. Sets the anchor and returns x; NAN when neither side has room. */
static double place(const marks_ctx *m, double x, double w, double lo, double hi, const char **anchor) {
  if (x + 5 + w <= hi && !crosses(m, x + 5, x + 5 + w)) {
    *anchor = "start";
    return x + 5;
  }
  if (x - 5 - w >= lo && !crosses(m, x - 5 - w, x - 5)) {
    *anchor = "end";
    return x - 5;
  }
  return NAN;
}

/* One mark's label in rows from `row` on: one line beside its line where
 * it fits, else split at the space nearest the middle ("synchronize()
 * called: | the host waits"), else over its line, which then starts below
 * it. Returns the rows it used; *line_top gets where the line starts. */
static int mark_label(marks_ctx *m, double x, const char *label, int row, double *line_top) {
  const ui_box *bx = m->bx;
  const double lo = bx->x0 + 2, hi = bx->x1 + 12; /* inside the plot, clear of the y ticks */
  const char *anchor = "start";
  double y = bx->y0 + 14 + 17 * row, at = place(m, x, bold_w(label), lo, hi, &anchor);
  *line_top = bx->y0 + 17 * row;
  if (isfinite(at)) {
    mark_text(m, at, y, anchor, label, strlen(label));
    return 1;
  }
  size_t n = strlen(label), cut = 0;
  for (size_t i = 1; i < n; i++)
    if (label[i] == ' ' && (cut == 0 || (i > n / 2 ? i - n / 2 : n / 2 - i) < (cut > n / 2 ? cut - n / 2 : n / 2 - cut)))
      cut = i;
  if (cut == 0) cut = n;
  char first[160];
  snprintf(first, sizeof first, "%.*s", (int)cut, label);
  const char *rest = label + cut + (cut < n);
  double w1 = bold_w(first), w2 = bold_w(rest), wmax = w1 > w2 ? w1 : w2;
  int rows = *rest ? 2 : 1;
  at = place(m, x, wmax, lo, hi, &anchor);
  if (!isfinite(at)) { /* over its line, inside the box; lines leave a gap for it */
    anchor = "start";
    at = x - wmax / 2;
    if (at + wmax > hi) at = hi - wmax;
    if (at < lo) at = lo;
    *line_top = bx->y0 + 17 * (row + rows) + 2;
  }
  mark_text(m, at, y, anchor, first, strlen(first));
  if (*rest) mark_text(m, at, y + 17, anchor, rest, strlen(rest));
  return rows;
}

/* The line at x from top to bottom, broken where a label sits on it. */
static void mark_line(const marks_ctx *m, double x, double top, double bottom) {
  double from = top;
  for (;;) {
    double next_gap = bottom, gap_end = bottom;
    for (int i = 0; i < m->n_boxes; i++) {
      const label_box *l = &m->boxes[i];
      if (x <= l->x0 || x >= l->x1 || l->y1 <= from || l->y0 >= next_gap) continue;
      next_gap = l->y0 > from ? l->y0 : from;
      gap_end = l->y1;
    }
    if (next_gap > from + 1)
      ui_buf_rawf(m->b, "<line class=\"mark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, from, x,
                  next_gap);
    if (gap_end >= bottom) return;
    from = gap_end;
  }
}

void ui_chart_marks(ui_buf *b, const ui_box *bx, const ui_box *plot, const ui_axis *ax, const ui_mark *marks,
                    int n) {
  double xs[MAX_MARKS], tops[MAX_MARKS];
  int order[MAX_MARKS], k = 0;
  marks_ctx m = {.b = b, .bx = bx};
  /* Left to right, each in rows below the one before: a label placed right
   * of its line then crosses none of the lines to its left, and the lines to
   * its right start below it. */
  for (int i = 0; i < n && i < MAX_MARKS; i++) {
    xs[i] = ui_box_x(plot, ax, marks[i].x);
    if (isfinite(xs[i])) order[k++] = i;
  }
  for (int i = 1; i < k; i++)
    for (int j = i; j > 0 && xs[order[j]] < xs[order[j - 1]]; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  for (int i = 0, row = 0; i < k; i++) {
    double x = xs[order[i]];
    tops[i] = bx->y0 + 17 * row; /* the line starts at its label's row */
    if (marks[order[i]].label) row += mark_label(&m, x, marks[order[i]].label, row, &tops[i]);
    m.lines[m.n_lines++] = x;
  }
  for (int i = 0; i < k; i++) mark_line(&m, xs[order[i]], tops[i], bx->y1);
}
