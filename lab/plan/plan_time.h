/* The planner's step time (plan_time.c). */
#ifndef LAB_PLAN_TIME_H
#define LAB_PLAN_TIME_H

#include "plan.h"

/* The band around the step time: matmuls are modelled shape by shape, the
 * rest of the kernels as one memory-bound pass, hence more room above. */
#define LAB_PLAN_TIME_LOW 0.8
#define LAB_PLAN_TIME_HIGH 1.25

typedef struct lab_plan_time {
  double flops;        /* per optimizer step */
  double matmul_ms;    /* the matmuls on the GPU */
  double memory_ms;    /* the memory-bound kernels */
  double host_ms;      /* the host's launches and PyTorch's per-op cost */
  double optimizer_ms;
  double step_ms, low_ms, high_ms;
  double tokens_per_s; /* images per second for the conv net */
  bool host_bound;     /* the GPU waits for the host */
} lab_plan_time;

void lab_plan_time_of(const lab_plan_settings *s, const lab_plan_memory *m, lab_plan_time *t);

#endif
