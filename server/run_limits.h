/* The class's per-session limits, each with its own error code and a
 * "when to retry": runs per minute (a sliding window, 429 rate_limited),
 * GPU seconds per session (429 quota_exceeded), and the GPU memory one
 * experiment may take (400 over_memory_limit, estimated from its params). */
#ifndef SRV_RUN_LIMITS_H
#define SRV_RUN_LIMITS_H

#include <stdint.h>

#include "error.h"
#include "params.h"
#include "registry.h"

typedef struct srv_limits srv_limits;

/* runs_per_minute ≥ 1. NULL when out of memory. */
srv_limits *srv_limits_new(int runs_per_minute);
void srv_limits_free(srv_limits *l);

/* Counts one run for the session at now_s (seconds, any monotonic clock)
 * when fewer than runs_per_minute were counted in the last 60 s; else
 * refuses with rate_limited and *retry_after_s = when the oldest leaves
 * the window (whole seconds, ≥ 1). */
int srv_limits_rate(srv_limits *l, int64_t session_id, double now_s, double *retry_after_s, lab_error *err);
/* Forgets the session's most recent counted run (one refused later on, so
 * it does not use up the learner's minute). */
void srv_limits_rate_undo(srv_limits *l, int64_t session_id);

/* quota_exceeded once used_ms reaches limit_s (seconds of GPU time). */
int srv_limits_quota(double used_ms, double limit_s, lab_error *err);

/* over_memory_limit (naming the param) when e's own GPU memory estimate
 * (lab_experiment_gpu_bytes) for these checked params is above max_gib. */
int srv_limits_gpu_mem(const lab_experiment *e, const lab_params *p, double max_gib, lab_error *err);

#endif
