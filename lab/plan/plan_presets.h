/* The presets of real models (plan_presets.c). */
#ifndef LAB_PLAN_PRESETS_H
#define LAB_PLAN_PRESETS_H

#include "plan.h"

typedef struct lab_plan_preset {
  const char *name;   /* "gpt2-124m" */
  lab_plan_model m;   /* its architecture and published parameter count */
  int lora_rank;      /* a LoRA preset's rank (0: full fine-tuning) */
  const char *source; /* where the numbers come from */
} lab_plan_preset;

int lab_plan_preset_count(void);
const lab_plan_preset *lab_plan_preset_at(int i);
const lab_plan_preset *lab_plan_preset_find(const char *name); /* NULL when unknown */

#endif
