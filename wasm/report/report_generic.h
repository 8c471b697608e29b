/* The report every lesson gets unless it has its own sections (report.c):
 * the device check, the learner's last run of each of the lesson's
 * experiments, the quiz and the sources (report_generic.c). */
#ifndef UI_REPORT_GENERIC_H
#define UI_REPORT_GENERIC_H

#include "report_parts.h"

void ui_report_generic_body(ui_buf *b, const ui_report_input *in);

#endif
