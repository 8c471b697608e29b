/* The class's per-run limits, each with its own error code: GPU seconds
 * per learner (429 quota_exceeded), and the GPU memory one experiment may
 * take (400 over_memory_limit, estimated from its params). Runs per minute
 * are counted in the store's windows (learner.h). */
#ifndef SRV_RUN_LIMITS_H
#define SRV_RUN_LIMITS_H

#include "error.h"
#include "params.h"
#include "registry.h"

/* quota_exceeded once used_ms reaches limit_s (seconds of GPU time). */
int srv_limits_quota(double used_ms, double limit_s, lab_error *err);

/* over_memory_limit (naming the param) when e's own GPU memory estimate
 * (lab_experiment_gpu_bytes) for these checked params is above max_gib. */
int srv_limits_gpu_mem(const lab_experiment *e, const lab_params *p, double max_gib, lab_error *err);

#endif
