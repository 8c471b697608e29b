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

static double sq(double x) { return x * x; }

double srv_limits_gpu_bytes(const char *experiment, const lab_params *p, const char **param) {
  *param = NULL;
  if (strcmp(experiment, "memory") == 0) {
    /* The walk's allocator (and its deliberate OOM) stay inside budget_gib. */
    *param = "budget_gib";
    return lab_param(p, "budget_gib") * GIB + 2.0 * 1024 * 1024; /* + the 2 MiB warm-up buffer */
  }
  if (strcmp(experiment, "transfer") == 0) {
    *param = "max_bytes"; /* one device buffer of max_bytes; the small copies fit inside it */
    return lab_param(p, "max_bytes");
  }
  if (strcmp(experiment, "timing") == 0) {
    *param = "size"; /* A, B, C of size² fp32 */
    return 3.0 * sq(lab_param(p, "size")) * 4;
  }
  if (strcmp(experiment, "crossover") == 0) {
    *param = "max_size";
    return 3.0 * sq(lab_param(p, "max_size")) * 4;
  }
  if (strcmp(experiment, "placement") == 0) {
    double b = lab_param(p, "batch"), f = lab_param(p, "features"), c = lab_param(p, "classes");
    *param = b >= c ? "batch" : "classes";
    /* features, mask, labels, weight, bias, output (fp32/int32), all moved */
    return 4.0 * (b * f + 2 * b + c * f + c + b * c) + 4;
  }
  if (strcmp(experiment, "train_step") == 0) {
    double b = lab_param(p, "batch"), f = lab_param(p, "features"), c = lab_param(p, "classes");
    *param = "batch";
    /* x, y, two copies of W and b, z, row loss, dW, db, loss history */
    return 4.0 * (b * f + b + 3 * c * f + 3 * c + b * c + b + lab_param(p, "steps"));
  }
  if (strcmp(experiment, "allocator") == 0) {
    *param = "limit_gib"; /* lab_allocator_check keeps the timing block and the walk under it */
    return lab_param(p, "limit_gib") * GIB;
  }
  if (strcmp(experiment, "streams") == 0) {
    *param = "chunk_mib"; /* an input and an output buffer per chunk */
    return 2.0 * lab_param(p, "chunks") * lab_param(p, "chunk_mib") * 1024 * 1024;
  }
  if (strcmp(experiment, "graphs") == 0) {
    *param = "elements"; /* the chain's buffer, its copy, and the sweep's largest buffer (2^24 floats) */
    return 4.0 * (2 * lab_param(p, "elements") + (lab_param_bool(p, "sweep") ? 16777216.0 : 0));
  }
  if (strcmp(experiment, "precision") == 0) {
    *param = "max_size"; /* A, B, C in fp32 plus A, B in bf16 at the largest size */
    return 16.0 * sq(lab_param(p, "max_size"));
  }
  if (strcmp(experiment, "profile") == 0) {
    double b = lab_param(p, "batch"), h = lab_param(p, "hidden");
    *param = "hidden"; /* weights, gradients and SGD state of 1024->hidden->10, activations and their grads */
    return 4.0 * (3 * (1024 * h + h * 10 + h + 10) + 3 * b * (1024 + h + 10) + 2 * b * 1024);
  }
  return 0;
}

int srv_limits_gpu_mem(const char *experiment, const lab_params *p, double max_gib, lab_error *err) {
  const char *param = NULL;
  double bytes = srv_limits_gpu_bytes(experiment, p, &param);
  if (bytes <= max_gib * GIB) return 0;
  return lab_fail(err, LAB_E_OVER_MEMORY_LIMIT, param,
                  "%s with these parameters takes about %.2f GiB of GPU memory; this class allows %.2f GiB per run: "
                  "lower %s",
                  experiment, bytes / GIB, max_gib, param ? param : "the sizes");
}
