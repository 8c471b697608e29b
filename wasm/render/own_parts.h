/* Parts drawn both by a learner's kit run (own_run.h) and by its plan run
 * (own_plan.h): a link into #explain carrying a message, and a list of
 * what was not done and why. Their own file, so that neither page part
 * calls into the other (tests/tools/calls.sh). Plain C. */
#ifndef UI_OWN_PARTS_H
#define UI_OWN_PARTS_H

#include <stddef.h>

#include "cjson_compat.h"
#include "html.h"

/* An href into #explain carrying text: "#explain?text=" and the text
 * percent-encoded (at most max_bytes of it, cut at a character's start). */
void ui_own_explain_href(ui_buf *b, const char *text, size_t max_bytes);

/* A list of what was not done and why: each entry's name_key in bold (in
 * words through name_of, when it is not NULL), then its "why". */
void ui_own_reasons(ui_buf *b, const cJSON *list, const char *name_key, const char *(*name_of)(const char *));

#endif
