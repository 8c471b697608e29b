/* The training planner's page (#plan): a form of the main settings,
 * planned in the browser by lab/plan in the simulation module's worker
 * (nothing is sent), drawn by plan_view.h. A link fills the form
 * ("#plan?preset=gpt2-124m&batch=16&device=t4"; docs/plan.md), an
 * explained OOM adds what it said (tried, total, allocated, reserved). */
#ifndef UI_PLAN_PAGE_H
#define UI_PLAN_PAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu_panel.h"

/* Draws the page into the element "lesson" and plans what its link says. */
void ui_plan_show(const char *hash, const ui_device_state *dev, bool focus);
/* Handles "plan-run"; false for other actions. */
bool ui_plan_action(const char *action, const char *arg);
void ui_plan_shutdown(void);
/* The profile whose capacity is nearest total_bytes (an error's "total
 * capacity"), for a link to the planner; NULL when total_bytes <= 0. */
const char *ui_plan_profile_near(double total_bytes);

#endif
