/* Reading a pasted Hugging Face config.json into a model (plan_config.c). */
#ifndef LAB_PLAN_CONFIG_H
#define LAB_PLAN_CONFIG_H

#include "plan.h"

/* Fills m from cfg; -1 and err (naming the field) for a model the planner
 * does not describe or a field of the wrong type or size. */
int lab_plan_config_read(const cJSON *cfg, lab_plan_model *m, lab_error *err);

#endif
