/* The charts' text alternatives: an HTML legend, and the numbers behind
 * each chart as a table, every point included. */
#include <math.h>
#include <stdlib.h>

#include "chart.h"

void ui_chart_legend(ui_buf *b, const char *const *labels, int n) {
  ui_buf_raw(b, "<ul class=\"legend\">");
  for (int i = 0; i < n; i++) {
    ui_buf_rawf(b, "<li><span class=\"swatch c%d\" aria-hidden=\"true\"></span>", i % UI_CHART_TONES);
    ui_buf_text(b, labels[i]);
    ui_buf_raw(b, "</li>");
  }
  ui_buf_raw(b, "</ul>");
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* A table of more than this many rows scrolls inside a box a phone's
 * screen holds (web/style.css .table-scroll), its header row kept in view:
 * the streams widget was 14,442 px tall on a 390 px phone with its tables
 * open. The box takes focus, so a keyboard scrolls it too. */
#define SCROLL_ROWS 12

static void caption(ui_buf *b, const char *text, int rows) {
  if (rows > SCROLL_ROWS) {
    ui_buf_raw(b, "<div class=\"table-wrap table-scroll\" tabindex=\"0\" role=\"group\" aria-label=\"");
    ui_buf_text(b, text);
    ui_buf_raw(b, " (scrolls)\">");
  } else {
    ui_buf_raw(b, "<div class=\"table-wrap\">");
  }
  ui_buf_raw(b, "<table class=\"numbers\"><caption>");
  ui_buf_text(b, text);
  ui_buf_raw(b, "</caption>");
}

void ui_table_xy(ui_buf *b, const char *cap, const char *x_title, ui_unit x_unit, ui_unit y_unit,
                 const ui_series_xy *s, int n) {
  int total = 0, rows = 0;
  char t[32];
  for (int i = 0; i < n; i++) total += s[i].n > 0 ? s[i].n : 0;
  double *xs = total ? malloc(sizeof *xs * (size_t)total) : NULL;
  if (total && !xs) {
    b->failed = true;
    return;
  }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < s[i].n; k++) xs[rows++] = s[i].x[k];
  if (rows > 1) qsort(xs, (size_t)rows, sizeof *xs, cmp_double); /* no points: xs is NULL, which qsort may not get */
  int distinct = 0;
  for (int r = 0; r < rows; r++) distinct += r == 0 || xs[r] != xs[r - 1];
  caption(b, cap, distinct);
  ui_buf_raw(b, "<thead><tr><th scope=\"col\">");
  ui_buf_text(b, x_title);
  ui_buf_raw(b, "</th>");
  for (int i = 0; i < n; i++) {
    ui_buf_raw(b, "<th scope=\"col\">");
    ui_buf_text(b, s[i].label);
    ui_buf_raw(b, "</th>");
  }
  ui_buf_raw(b, "</tr></thead><tbody>");
  for (int r = 0; r < rows; r++) {
    if (r > 0 && xs[r] == xs[r - 1]) continue; /* one row per distinct x */
    ui_buf_raw(b, "<tr><th scope=\"row\">");
    ui_buf_text(b, ui_fmt_value(xs[r], x_unit, t));
    ui_buf_raw(b, "</th>");
    for (int i = 0; i < n; i++) {
      int k = 0;
      while (k < s[i].n && s[i].x[k] != xs[r]) k++;
      ui_buf_raw(b, "<td>");
      ui_buf_text(b, k < s[i].n && isfinite(s[i].y[k]) ? ui_fmt_value(s[i].y[k], y_unit, t) : "—");
      ui_buf_raw(b, "</td>");
    }
    ui_buf_raw(b, "</tr>");
  }
  ui_buf_raw(b, "</tbody></table></div>");
  free(xs);
}

void ui_table_bars(ui_buf *b, const char *cap, const char *value_title, ui_unit unit, const ui_bar *bars, int n) {
  char t[32];
  caption(b, cap, n);
  ui_buf_raw(b, "<thead><tr><th scope=\"col\">what</th><th scope=\"col\">");
  ui_buf_text(b, value_title);
  ui_buf_raw(b, "</th></tr></thead><tbody>");
  for (int i = 0; i < n; i++) {
    ui_buf_raw(b, "<tr><th scope=\"row\">");
    ui_buf_text(b, bars[i].label);
    ui_buf_raw(b, "</th><td>");
    ui_buf_text(b, isfinite(bars[i].value) ? ui_fmt_value(bars[i].value, unit, t) : "—");
    ui_buf_raw(b, "</td></tr>");
  }
  ui_buf_raw(b, "</tbody></table></div>");
}

void ui_table_spans(ui_buf *b, const char *cap, const ui_span *s, int n) {
  char t[32];
  caption(b, cap, n);
  ui_buf_raw(b, "<thead><tr><th scope=\"col\">lane</th><th scope=\"col\">what</th><th scope=\"col\">start</th>"
                "<th scope=\"col\">end</th><th scope=\"col\">duration</th></tr></thead><tbody>");
  for (int i = 0; i < n; i++) {
    ui_buf_raw(b, "<tr><td>");
    ui_buf_text(b, s[i].lane);
    ui_buf_raw(b, "</td><th scope=\"row\">");
    ui_buf_text(b, s[i].label);
    ui_buf_raw(b, "</th><td>");
    ui_buf_text(b, ui_fmt_value(s[i].start_us, UI_UNIT_US, t));
    ui_buf_raw(b, "</td><td>");
    ui_buf_text(b, ui_fmt_value(s[i].end_us, UI_UNIT_US, t));
    ui_buf_raw(b, "</td><td>");
    ui_buf_text(b, ui_fmt_value(s[i].end_us - s[i].start_us, UI_UNIT_US, t));
    ui_buf_raw(b, "</td></tr>");
  }
  ui_buf_raw(b, "</tbody></table></div>");
}
