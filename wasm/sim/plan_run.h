/* The planner as the page runs it: lab_plan (lab/plan/plan.h) in the
 * simulation module's Web Worker, its answer with the two things only the
 * page draws: a micro-batch sweep (the step's memory by kind for each
 * micro-batch) and the presets for the page's picker. */
#ifndef UI_PLAN_RUN_H
#define UI_PLAN_RUN_H

/* The most micro-batches one sweep plans (1, 2, 4, … doubling). */
#define UI_PLAN_SWEEP_MAX 12

/* Plans settings_json (the body POST /api/plan takes). Returns 200 with
 * *text the answer plus "sweep" and "presets", or 400 with *text
 * {"error":…}; *text is the caller's to free (NULL when out of memory). */
int ui_plan_run(const char *settings_json, char **text);

#endif
