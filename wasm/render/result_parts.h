/* What the per-experiment result files (result_*.c) share: loading series
 * from an envelope into arrays, figure frames, the findings, and the lane
 * chart of a timeline. Implemented in result_parts.c; includes no renderer. */
#ifndef UI_RESULT_PARTS_H
#define UI_RESULT_PARTS_H

#include "cjson_compat.h"
#include "chart.h"
#include "html.h"

/* Loads the envelope's series with these ids (in this order; missing ones
 * are skipped) into out; returns how many were loaded. Free with ui_res_free. */
int ui_res_series(const cJSON *env, const char *const *ids, int n, ui_series_xy *out);
void ui_res_free(ui_series_xy *s, int n);
/* A metric, NaN when absent. */
double ui_res_metric(const cJSON *env, const char *key);
/* <figure><h5>title</h5> … ; the numbers go in a <details> "Show the numbers". */
void ui_res_figure_begin(ui_buf *b, const char *title);
void ui_res_numbers_begin(ui_buf *b);
void ui_res_figure_end(ui_buf *b); /* closes the <details> and the <figure> */
/* "T4" for the envelope's profile, or its device name. */
const char *ui_res_device_short(const cJSON *env, char *buf, int n);

/* "What this run shows": the envelope's findings as a list. */
void ui_res_findings(ui_buf *b, const cJSON *env);
/* The envelope's timeline as a lane chart with the synchronize marked. */
void ui_result_timeline(ui_buf *b, const cJSON *env, const char *title, const char *summary);
/* The same, drawing only spans that start before until_us (INFINITY: all),
 * with the caller's phase marks instead of the automatic ones (n_marks
 * 0: the first wait — synchronize, .item() — is marked where it starts and
 * ends). */
void ui_result_timeline_part(ui_buf *b, const cJSON *env, const char *title, const char *summary, double until_us,
                             const ui_mark *marks, int n_marks);

#endif
