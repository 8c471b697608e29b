/* The pieces of the lab report that every lesson's report shares
 * (report.c), used by the later lessons' sections (report_lesson2.c). */
#ifndef UI_VIEW_REPORT_PARTS_H
#define UI_VIEW_REPORT_PARTS_H

#include "report.h"

/* Appends s with Markdown punctuation backslash-escaped, line breaks as spaces. */
void ui_report_md(ui_buf *b, const char *s);
/* The title of the lesson section that runs experiment `name`, or NULL. */
const char *ui_report_section_for(const cJSON *lesson, const char *name);
/* "Run the **NAME** experiment (section "…"), then download this report again." */
void ui_report_run_hint(ui_buf *b, const cJSON *lesson, const char *name);
/* The envelope's findings as a list, or nothing when it has none. */
void ui_report_findings(ui_buf *b, const cJSON *env);
/* "## 1. Device check …": both views and the verdict. */
void ui_report_device_section(ui_buf *b, const ui_device_state *d);
/* "## NUMBER. Quiz": best and last attempt. */
void ui_report_quiz_section(ui_buf *b, const ui_progress *p, int number);
/* The sources table: its heading and device row (start), its quiz row and
 * the legend (end); each lesson adds its own rows between them. */
void ui_report_sources_start(ui_buf *b, const ui_device_state *d);
void ui_report_sources_end(ui_buf *b, const ui_progress *p);

/* Lesson 2's sections (report_lesson2.c). */
void ui_report_lesson2_body(ui_buf *b, const ui_report_input *in);

#endif
