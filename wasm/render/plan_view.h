/* The planner's answer drawn (#plan): the verdict, the three counters
 * with their bands, the components, the largest micro-batch, the step
 * time, the levers as "saves X GiB, costs Y % step time", and the
 * micro-batch sweep as stacked columns against the card. Pure: cJSON in,
 * markup out (the page, wasm/pages/plan_page.c, sends and receives). */
#ifndef UI_PLAN_VIEW_H
#define UI_PLAN_VIEW_H

#include "cjson_compat.h"
#include "html.h"

/* What an out-of-memory message said (explain's facts), carried to the
 * planner in its link; a field is 0 when the message did not say it. */
typedef struct ui_plan_oom {
  double tried, total, allocated, reserved; /* bytes */
} ui_plan_oom;

/* The answer (lab_plan's JSON with "sweep") or its {"error":…}; oom, when
 * any field is set, is shown beside the plan's own counters. */
void ui_render_plan(ui_buf *b, const cJSON *answer, const ui_plan_oom *oom);
/* The <option>s of the presets in answer["presets"], chosen selected. */
void ui_render_plan_presets(ui_buf *b, const cJSON *answer, const char *chosen);

#endif
