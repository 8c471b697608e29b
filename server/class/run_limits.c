/* Per-run limits (see run_limits.h; not "limits.h", which -Iserver would
 * let shadow the C library's <limits.h>). The rate windows live in the
 * store (learner.h). */
#include "run_limits.h"

#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

int srv_limits_quota(double used_ms, double limit_s, lab_error *err) {
  if (used_ms < limit_s * 1000.0) return 0;
  return lab_fail(err, LAB_E_QUOTA_EXCEEDED, NULL,
                  "you have used your %.0f s of GPU time (%.1f s charged, runs still queued included); it does not "
                  "refill: run it with backend \"simulated\", or ask your instructor for more",
                  limit_s, used_ms / 1000.0);
}

int srv_limits_gpu_mem(const lab_experiment *e, const lab_params *p, double max_gib, lab_error *err) {
  const char *param = NULL;
  double bytes = lab_experiment_gpu_bytes(e, p, &param);
  if (bytes <= max_gib * GIB) return 0;
  return lab_fail(err, LAB_E_OVER_MEMORY_LIMIT, param,
                  "%s with these parameters takes about %.2f GiB of GPU memory; this class allows %.2f GiB per run: "
                  "lower %s",
                  e->name, bytes / GIB, max_gib, param ? param : "the sizes");
}
