/* The planner's step time (plan_time.c). */
#ifndef LAB_PLAN_TIME_H
#define LAB_PLAN_TIME_H

#include "plan.h"

/* The band around the step time: matmuls are modelled shape by shape, the
 * rest of the kernels as one memory-bound pass, hence more room above; the
 * high end also adds the host's time, hidden in the estimate (plan_time.c). */
#define LAB_PLAN_TIME_LOW 0.8
#define LAB_PLAN_TIME_HIGH 1.25

/* Bytes the memory-bound kernels move per byte the step's ops write: each
 * written once and read twice (a backward kernel reads the saved input and
 * the incoming gradient; norms and softmax read their input twice). On the
 * H100 lease's three GPU-bound plans the step needed 2.9 to 3.6 (gpt2 fp32
 * eager 3.2, gpt2 amp-bf16 SDPA 3.6, gpt2-medium full checkpointing 2.9)
 * where the planner had counted 2 (docs/plan.md). */
#define LAB_PLAN_TRAFFIC_PER_BYTE 3.0

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
