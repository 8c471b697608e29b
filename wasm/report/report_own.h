/* The lab report's section on the learner's own kit run (report_parts.h,
 * own_run): where it ran, each experiment's headline figures beside the
 * prediction with their ratio and physical check, flags with their cause,
 * and the lessons' claims on the learner's numbers. */
#ifndef UI_REPORT_OWN_H
#define UI_REPORT_OWN_H

#include "cjson_compat.h"
#include "html.h"

/* Appends "## Your own GPU" from the stored comparison (nothing when NULL). */
void ui_report_own_run(ui_buf *b, const cJSON *own);

#endif
