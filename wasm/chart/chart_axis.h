/* Axis arithmetic for the SVG charts: "nice" linear ticks (steps of 1, 2 or
 * 5 times a power of ten), logarithmic ticks (decades, or powers of two for
 * sizes) and the short labels written under them ("4 KiB", "10 µs"). Plain
 * C with no DOM, so the unit tests check the numbers directly. */
#ifndef UI_CHART_AXIS_H
#define UI_CHART_AXIS_H

#include <stdbool.h>

#define UI_TICKS_MAX 16

typedef enum ui_scale { UI_SCALE_LINEAR, UI_SCALE_LOG10, UI_SCALE_LOG2 } ui_scale;

/* How a value on an axis is written. BYTES uses binary prefixes (4096 is
 * "4 KiB"), as the copy sizes are powers of two; MS and US are durations
 * that switch unit ("0.5 ms" is written "500 µs"); GB is 1e9 bytes, the
 * unit of every gpulab finding about memory. */
typedef enum ui_unit { UI_UNIT_PLAIN, UI_UNIT_BYTES, UI_UNIT_MS, UI_UNIT_US, UI_UNIT_GB, UI_UNIT_GIB } ui_unit;

typedef struct ui_axis {
  ui_scale scale;
  double lo, hi; /* the drawn range; lo > 0 on a log scale */
  int n;         /* ticks */
  double tick[UI_TICKS_MAX];
} ui_axis;

/* Fits an axis around [dmin, dmax] with about `target` ticks (2..UI_TICKS_MAX).
 * A log scale ignores non-positive data; returns false when there is
 * nothing to draw (no finite, and for log positive, value). zero: a linear
 * axis starts at 0 when all data is positive. */
bool ui_axis_fit(ui_axis *a, ui_scale scale, double dmin, double dmax, int target, bool zero);
/* A linear axis of bytes, fitted in the binary unit of its largest value so
 * its ticks are round in the unit they are printed in ("2 GiB", "4 GiB", as
 * lab/base/units.c prints bytes), not round in bytes ("1.86 GiB"). */
bool ui_axis_fit_bytes(ui_axis *a, double dmin, double dmax, int target, bool zero);
/* Where v falls on the axis: 0 at lo, 1 at hi; NaN when v cannot be drawn
 * (non-positive on a log scale, not finite). */
double ui_axis_frac(const ui_axis *a, double v);

/* The step a linear axis uses for the span: 1, 2 or 5 × 10^k, about span/(target-1). */
double ui_nice_step(double span, int target);

/* A vertical line across the plot at x, labelled (here, not in chart.h:
 * chart_draw.c draws marks and must not include chart.h, which uses it). */
typedef struct ui_mark {
  double x;
  const char *label;
} ui_mark;

/* A tick label: short, with the unit when the unit changes along the axis. */
const char *ui_fmt_tick(double v, ui_unit unit, char buf[32]);
/* A value for tables and summaries: 3 significant digits (a whole number keeps
 * its digits: 1024), with the unit; zero is "0". */
const char *ui_fmt_value(double v, ui_unit unit, char buf[32]);

#endif
