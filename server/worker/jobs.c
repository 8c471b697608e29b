/* The worker's job table: kernels/ entries by experiment name, plus the
 * test hooks that make a worker misbehave on purpose and the test-only
 * fake GPU (fake_gpu.h). */
#include "jobs.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "cuda_errors.h"
#include "experiments.h"
#include "fake_gpu.h"
#include "hooks.h"
#include "kern.h"
#include "registry.h"

/* kern_run_NAME of every experiment with a kernel (lab/face/experiments.h):
 * declared here from the table, defined by kernels/NAME.cu. */
#define LAB_KERN_THEN(name) KERN_ENTRY(name);
LAB_EXPERIMENTS(LAB_IF_KERN)
#undef LAB_KERN_THEN

static const struct {
  const char *name;
  kern_run_fn run;
} gpu_runners[] = {
#define LAB_KERN_THEN(name) {#name, kern_run_##name},
    LAB_EXPERIMENTS(LAB_IF_KERN)
#undef LAB_KERN_THEN
    {NULL, NULL},
};

static kern_run_fn gpu_runner(const char *experiment) {
  for (int i = 0; experiment && gpu_runners[i].name; i++)
    if (strcmp(gpu_runners[i].name, experiment) == 0) return gpu_runners[i].run;
  return NULL;
}

static int run_hook(const char *name, lab_error *err) {
  if (strcmp(name, "_crash") == 0) {
    raise(SIGSEGV);
  } else if (strcmp(name, "_hang") == 0) {
    for (;;) pause();
  } else if (strcmp(name, "_sticky") == 0) {
    return lab_fail(err, lab_cuda_error_class("cudaErrorIllegalAddress"), NULL,
                    "cudaErrorIllegalAddress (test hook): the worker must be restarted");
  } else if (strcmp(name, "_call_failed") == 0) {
    return lab_fail(err, lab_cuda_error_class("cudaErrorInvalidValue"), NULL,
                    "cudaErrorInvalidValue (test hook): this run fails, the worker stays");
  } else if (strcmp(name, "_no_image") == 0) {
    return lab_fail(err, lab_cuda_error_class("cudaErrorNoKernelImageForDevice"), NULL,
                    "cudaErrorNoKernelImageForDevice (test hook): no kernels for this GPU, the worker stays");
  }
  return lab_fail(err, LAB_E_BAD_REQUEST, "job", "unknown test hook '%.32s'", name);
}

int srv_worker_job(const cJSON *job, cJSON **result, lab_error *err) {
  *result = NULL;
  const cJSON *kind = cJSON_GetObjectItemCaseSensitive(job, "job");
  if (!cJSON_IsString(kind)) return lab_fail(err, LAB_E_BAD_REQUEST, "job", "a worker job needs a \"job\" string");
  if (strcmp(kind->valuestring, "runtime_view") == 0) {
    lab_runtime_view rt;
    if (srv_fake_gpu_ms() >= 0) srv_fake_gpu_runtime_view(&rt);
    else kern_runtime_view(&rt);
    *result = lab_runtime_view_json(&rt);
    return *result ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  }
  if (kind->valuestring[0] == '_' && srv_test_hooks_enabled()) return run_hook(kind->valuestring, err);
  if (strcmp(kind->valuestring, "run") != 0)
    return lab_fail(err, LAB_E_BAD_REQUEST, "job", "unknown worker job '%.32s'", kind->valuestring);
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(job, "experiment");
  const lab_experiment *e = cJSON_IsString(name) ? lab_experiment_find(name->valuestring) : NULL;
  int fake = srv_fake_gpu_ms() >= 0;
  kern_run_fn run = e ? gpu_runner(e->name) : NULL;
  if (!e || (!fake && !run))
    return lab_fail(err, LAB_E_UNKNOWN_EXPERIMENT, "experiment", "no %sexperiment named '%.40s'", fake ? "" : "GPU ",
                    cJSON_IsString(name) ? name->valuestring : "");
  /* The worker trusts nobody: its job line is validated here, once, and the
   * kernel (or the fake GPU) takes the checked values. */
  lab_params p;
  if (lab_experiment_params(e, cJSON_GetObjectItemCaseSensitive(job, "params"), &p, err)) return -1;
  if (fake) {
    int rc = srv_fake_gpu_run(e, &p, result, err);
    const cJSON *run_id = cJSON_GetObjectItemCaseSensitive(job, "run_id");
    if (rc == 0 && cJSON_IsNumber(run_id)) srv_fake_gpu_log(run_id->valuedouble);
    return rc;
  }
  return run(&p, result, err);
}
