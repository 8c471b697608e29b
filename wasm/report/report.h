/* The learner's lab report as Markdown. Lesson 1 has sections of its own:
 * the device check (driver view vs runtime view and the verdict), a timing
 * run with and without synchronization, the memory terms that can end in
 * out-of-memory. Every other lesson gets the generic report: the device
 * check and the learner's last run of each of its experiments. Every
 * lesson: the quiz result, the date, and where every figure came from
 * (live / recorded / simulated + profile). Plain C, so the report is
 * unit-tested natively. */
#ifndef UI_REPORT_H
#define UI_REPORT_H

#include "report_parts.h"

/* The localStorage key prefix of the learner's last envelope of each
 * experiment (gpulab.last.NAME): written by the experiment widgets, quoted
 * by the report. */
#define UI_STORE_LAST "gpulab.last."
/* The localStorage key of the learner's own kit run as the page compared
 * it (#yours: lab_compare's report without its predictions), which every
 * lesson's report quotes. */
#define UI_STORE_OWN_RUN "gpulab.yours.run"

/* Appends the report. Every outside string is escaped for Markdown. */
void ui_report_markdown(ui_buf *b, const ui_report_input *in);

/* The experiment lesson's report quotes at its defaults when the learner
 * has no run of it (the caller simulates it first and passes it as
 * default_run), or NULL. */
const char *ui_report_default_experiment(const cJSON *lesson);

/* "gpulab-report-LESSON-YYYY-MM-DD.md" from the lesson id and the date. */
const char *ui_report_filename(const char *lesson_id, const char *date, char *out, int n);

#endif
