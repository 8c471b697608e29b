/* Pieces the chart files share: the <svg> frame with its accessible name,
 * and axis ticks along a plot box. Internal to wasm/chart/. */
#ifndef UI_CHART_DRAW_H
#define UI_CHART_DRAW_H

#include "chart_axis.h"
#include "html.h"

/* Plot box in SVG user units. */
typedef struct ui_box {
  double x0, y0, x1, y1;
} ui_box;

/* <svg role="img" …><title>summary</title>; close with ui_svg_end. */
void ui_svg_begin(ui_buf *b, const char *cls, double w, double h, const char *summary);
void ui_svg_end(ui_buf *b);
/* Horizontal position of v on axis a inside box (NaN when not drawable). */
double ui_box_x(const ui_box *bx, const ui_axis *a, double v);
double ui_box_y(const ui_box *bx, const ui_axis *a, double v);
/* Grid lines and tick labels: x along the bottom, y along the left. */
void ui_axis_x(ui_buf *b, const ui_box *bx, const ui_axis *a, ui_unit unit, const char *title);
void ui_axis_y(ui_buf *b, const ui_box *bx, const ui_axis *a, ui_unit unit, const char *title);
/* Labels are laid out for the largest font web/style.css gives them (a
 * phone's, 16 px: drawn at 0.8 scale there, 12.8 px on screen); a
 * character is taken as 0.6 em (the same estimate the unit tests check
 * label boxes with). */
#define UI_FS_TICK 16.0
#define UI_FS_LABEL 16.0
#define UI_FS_SPAN 16.0 /* a name inside a timeline span */
double ui_label_w(const char *s, double font_px);
/* Vertical marks at marks[i].x on ax (plot's x scale), each labelled: a label goes
 * right of its line, else left of it, else on two lines, never past the
 * box's sides, and never across another mark's line: labels take rows from
 * the box's top down, left to right, and each line starts at its label's
 * row. bx is where the label rows start (its top) and the lines end (its
 * bottom). At most 8 marks. */
void ui_chart_marks(ui_buf *b, const ui_box *bx, const ui_box *plot, const ui_axis *ax, const ui_mark *marks,
                    int n);

#endif
