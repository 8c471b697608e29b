/* SVG charts drawn by C into a ui_buf: lines over linear or log axes, bars,
 * stacked columns against limits, and a timeline of lanes. Every chart is
 * role="img" with a <title> and aria-label carrying a summary sentence; the
 * legend is HTML beside it, and ui_table_* give the numbers as a table (the
 * text alternative). All text from data goes through ui_buf_text. */
#ifndef UI_CHART_H
#define UI_CHART_H

#include <stdbool.h>

#include "chart_axis.h"
#include "html.h"

/* Colours and dash patterns come from CSS classes c0..c5 (style.css). */
#define UI_CHART_TONES 6

typedef struct ui_series_xy {
  const char *label;
  int n;
  const double *x, *y; /* n points, x ascending */
} ui_series_xy;

typedef struct ui_line_chart {
  const char *summary;         /* one sentence: the <title> and aria-label */
  const char *x_title, *y_title; /* axis titles, units included: "matrix side N" */
  ui_scale x_scale, y_scale;
  ui_unit x_unit, y_unit;      /* how tick labels are written */
  bool y_zero;                 /* a linear y axis starts at 0 */
  bool x_whole;                /* x counts steps or events: whole-number ticks only (no "event 0.5") */
  const ui_series_xy *series;
  int n_series;
  const ui_mark *marks;
  int n_marks;
} ui_line_chart;

typedef struct ui_bar {
  const char *label;
  double value;
} ui_bar;

typedef struct ui_bar_chart {
  const char *summary;
  const char *value_title; /* "host time (ms)" */
  ui_unit unit;
  const ui_bar *bars;
  int n;
} ui_bar_chart;

/* Stacked columns, one per category (a batch size), parts stacked in each
 * (parts[p].y[c] is part p of category c; x is unused), against horizontal
 * limit lines (mark.x is a value on the y axis, e.g. the device memory). */
typedef struct ui_column_chart {
  const char *summary;
  const char *x_title, *y_title;
  const char *const *categories;
  int n_cat;
  const ui_series_xy *parts;
  int n_parts;
  const ui_mark *limits;
  int n_limits;
  int highlight; /* category drawn outlined and labelled, or -1 */
  const char *highlight_label;
} ui_column_chart;

typedef struct ui_span {
  const char *lane, *label;
  double start_us, end_us;
  bool wait; /* the lane waits here (a synchronize), drawn hatched, not busy */
} ui_span;

typedef struct ui_timeline_chart {
  const char *summary;
  const ui_span *spans;
  int n;
  const ui_mark *marks; /* x in µs */
  int n_marks;
  const char *x_title; /* NULL: "time since the first launch" (an experiment's run) */
} ui_timeline_chart;

void ui_chart_lines(ui_buf *b, const ui_line_chart *c);
void ui_chart_bars(ui_buf *b, const ui_bar_chart *c);
/* The text alternative of a bar chart, from the same bars it draws: "LEAD:
 * label1 V1; label2 V2." (values written as the bars' own labels are), so
 * the sentence cannot disagree with the chart. Truncated to n bytes. */
void ui_bars_sentence(char *out, size_t n, const char *lead, const ui_bar *bars, int nb, ui_unit unit);
void ui_chart_columns(ui_buf *b, const ui_column_chart *c);
void ui_chart_timeline(ui_buf *b, const ui_timeline_chart *c);

/* HTML legend: a swatch in the series' tone, then its label. */
void ui_chart_legend(ui_buf *b, const char *const *labels, int n);

/* Text alternatives. Series share one column of x values (their union). */
void ui_table_xy(ui_buf *b, const char *caption, const char *x_title, ui_unit x_unit, ui_unit y_unit,
                 const ui_series_xy *s, int n);
void ui_table_bars(ui_buf *b, const char *caption, const char *value_title, ui_unit unit, const ui_bar *bars,
                   int n);
void ui_table_spans(ui_buf *b, const char *caption, const ui_span *s, int n);

#endif
