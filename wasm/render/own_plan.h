/* A kit file's plan run in the page #yours (measure.py --plan FILE, docs/
 * measure.md): the planned configuration trained on the learner's device,
 * each counter it read (max_memory_allocated, max_memory_reserved, the
 * device's used memory, the step time; on a CPU the tensor bytes) beside
 * the plan's prediction for that same counter, with the ratio and whether
 * it falls in the plan's band; the counters the device cannot give, and
 * why; an out-of-memory as a result, linked into #explain. */
#ifndef UI_OWN_PLAN_H
#define UI_OWN_PLAN_H

#include "cjson_compat.h"
#include "html.h"

/* plan: the "plan" of lab_compare's report (lab/compare/kit_plan.h). */
void ui_render_own_plan(ui_buf *b, const cJSON *plan);

#endif
