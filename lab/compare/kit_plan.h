/* A kit file's plan run (kit/measure.py --plan FILE, docs/measure.md):
 * the planned configuration trained on the learner's device, each counter
 * it read beside the plan's prediction for that same counter. Checked as
 * untrusted input with the rest of the file (kit_file.h); the report
 * recomputes each ratio and band verdict from the numbers, never taking
 * the file's word for them. */
#ifndef LAB_KIT_PLAN_H
#define LAB_KIT_PLAN_H

#include "cjson_compat.h"
#include "error.h"

#define LAB_KIT_PLAN_COUNTERS 8 /* weights, gradients, optimizer_state, activations, allocated, reserved, device, step_ms */

/* 0 when "plan_run" is well formed; -1 with err kit_invalid naming the place. */
int lab_kit_plan_check(const cJSON *plan_run, lab_error *err);

/* The plan run as gpulab compare reports it (caller owns), NULL when out of
 * memory: {"model","arch","profile","device","verdict","oom"|null,
 * "counters":[{"id","what","measured","predicted","ratio","band","in_band"}],
 * "unavailable":[{"id","why"}],"notes":[...],"steps":{...}}, ratio
 * measured / predicted (null where either is missing, or the counter is
 * not the plan's: the file's null ratio says so), in_band measured within
 * [band]. */
cJSON *lab_kit_plan_report(const cJSON *plan_run);

#endif
