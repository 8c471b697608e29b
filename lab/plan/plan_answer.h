/* Parts of the planner's answer shared by its builders (plan_answer.c). */
#ifndef LAB_PLAN_ANSWER_H
#define LAB_PLAN_ANSWER_H

#include "plan.h"

/* The memory object of the answer: counters, components, sources. */
cJSON *lab_plan_memory_json(const lab_plan_memory *m);

#endif
