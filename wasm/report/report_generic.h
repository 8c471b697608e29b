/* Lesson 2's report: the device check, the learner's last run of each of
 * the lesson's experiments, the quiz and the sources (report_lesson2.c). */
#ifndef UI_REPORT_GENERIC_H
#define UI_REPORT_GENERIC_H

#include "report_parts.h"

void ui_report_lesson2_body(ui_buf *b, const ui_report_input *in);

#endif
