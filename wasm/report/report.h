/* The learner's lab report as Markdown. Lesson 1: the device check (driver
 * view vs runtime view and the verdict), a timing run with and without
 * synchronization, the memory terms that can end in out-of-memory. Lesson 2:
 * the device check and the learner's last run of each of its experiments.
 * Every lesson: the quiz result, the date, and where every figure came from
 * (live / recorded / simulated + profile). Plain C, so the report is
 * unit-tested natively. */
#ifndef UI_REPORT_H
#define UI_REPORT_H

#include "report_parts.h"

/* Appends the report. Every outside string is escaped for Markdown. */
void ui_report_markdown(ui_buf *b, const ui_report_input *in);

/* "gpulab-report-LESSON-YYYY-MM-DD.md" from the lesson id and the date. */
const char *ui_report_filename(const char *lesson_id, const char *date, char *out, int n);

#endif
