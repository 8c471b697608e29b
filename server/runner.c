/* Backend choice and the path of one run, shared by CLI and API. */
#include "runner.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cjson_compat.h"
#include "clock.h"
#include "driver_probe.h"
#include "envelope.h"
#include "kern.h"
#include "registry.h"
#include "hooks.h"

int srv_runner_init(srv_runner *r, srv_supervisor *sup) {
  memset(r, 0, sizeof *r);
  r->sup = sup;
  r->deadline_s = 60;
  r->wait_s = 30;
  if (pthread_cond_init(&r->probed, NULL) != 0) return -1;
  return pthread_mutex_init(&r->lock, NULL);
}

void srv_runner_free(srv_runner *r) {
  pthread_cond_destroy(&r->probed);
  pthread_mutex_destroy(&r->lock);
}

static int fetch_runtime_view(srv_runner *r, lab_runtime_view *rt, double wait_s) {
  cJSON *job = cJSON_CreateObject();
  cJSON_AddStringToObject(job, "job", "runtime_view");
  cJSON *answer = NULL;
  lab_error err;
  int rc = srv_supervisor_call(r->sup, job, wait_s, 20, &answer, &err);
  cJSON_Delete(job);
  if (rc == 0) rc = lab_runtime_view_from_json(answer, rt, &err);
  cJSON_Delete(answer);
  if (rc != 0) {
    memset(rt, 0, sizeof *rt);
    rt->status = LAB_RT_ERROR;
    snprintf(rt->error_name, sizeof rt->error_name, "%s", lab_err_code(err.code));
    snprintf(rt->error_message, sizeof rt->error_message, "%.199s", err.message);
  }
  return rc;
}

/* Views younger than this are answered from the cache: probing costs a
 * fork of nvidia-smi (without NVML) and a round trip to the worker. */
#define VIEWS_FRESH_S 1.0

/* Single flight: one probe at a time. Whoever asks while a probe runs
 * waits for its answer instead of starting another (50 requests at once
 * once forked nvidia-smi 50 times). */
void srv_runner_views(srv_runner *r, lab_driver_view *drv, lab_runtime_view *rt) {
  pthread_mutex_lock(&r->lock);
  unsigned long gen = r->probe_gen;
  while (r->probing) pthread_cond_wait(&r->probed, &r->lock);
  if (r->probe_gen != gen || (r->have_rt && lab_clock_s() - r->views_at_s < VIEWS_FRESH_S)) {
    *drv = r->drv; /* a probe finished while we waited, or the last one is fresh */
    *rt = r->rt;
    pthread_mutex_unlock(&r->lock);
    return;
  }
  r->probing = 1;
  int have = r->have_rt;
  lab_runtime_view cached = r->rt;
  pthread_mutex_unlock(&r->lock);
  srv_driver_probe(drv);
  /* A busy worker is running an experiment: answer from the cache at once. */
  lab_runtime_view fresh;
  int got = fetch_runtime_view(r, &fresh, have ? 0.05 : r->wait_s) == 0;
  *rt = got || !have ? fresh : cached;
  pthread_mutex_lock(&r->lock);
  if (got || !have) {
    r->rt = fresh;
    r->have_rt = fresh.status != LAB_RT_ERROR || r->have_rt;
  }
  r->drv = *drv;
  r->views_at_s = lab_clock_s();
  r->probing = 0;
  r->probe_gen++;
  pthread_cond_broadcast(&r->probed);
  pthread_mutex_unlock(&r->lock);
}

int srv_runner_gpu_usable(srv_runner *r) {
  lab_driver_view drv;
  lab_runtime_view rt;
  lab_verdict v;
  srv_runner_views(r, &drv, &rt);
  lab_device_verdict(&drv, &rt, &v);
  return v.usable;
}

static int run_on_gpu(srv_runner *r, const lab_experiment *e, const cJSON *params, cJSON **out, lab_error *err) {
  if (strcmp(e->name, "device") == 0) {
    lab_driver_view drv;
    lab_runtime_view rt;
    lab_params p;
    if (lab_experiment_params(e, params, &p, err)) return -1;
    srv_runner_views(r, &drv, &rt);
    *out = lab_device_envelope(&p, &drv, &rt, "cuda", NULL);
    return *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  }
  return srv_runner_gpu_job(r->sup, e->name, params, 0, r->wait_s, r->deadline_s, out, err);
}

int srv_runner_gpu_job(srv_supervisor *sup, const char *experiment, const cJSON *params, int64_t run_id,
                       double wait_s, double deadline_s, cJSON **out, lab_error *err) {
  *out = NULL;
  cJSON *job = cJSON_CreateObject();
  int rc = -1;
  if (job && cJSON_AddStringToObject(job, "job", "run") && cJSON_AddStringToObject(job, "experiment", experiment) &&
      cJSON_AddItemToObject(job, "params", params ? cJSON_Duplicate(params, 1) : cJSON_CreateObject()) &&
      (!run_id || cJSON_AddNumberToObject(job, "run_id", (double)run_id)))
    rc = srv_supervisor_call(sup, job, wait_s, deadline_s, out, err);
  else
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  cJSON_Delete(job);
  if (rc == 0 && lab_envelope_check(*out, err) != 0) {
    cJSON_Delete(*out);
    *out = NULL;
    return -1;
  }
  return rc;
}

char *srv_run_outcome_text(const lab_error *fail, const cJSON *result) {
  if (result) return cJSON_PrintUnformatted(result);
  cJSON *errj = lab_error_json(fail);
  char *text = errj ? cJSON_PrintUnformatted(errj) : NULL;
  cJSON_Delete(errj);
  return text;
}

/* A simulated run: under the server's gate (CPU budget, slots), or
 * directly in the CLI. */
static int simulate(srv_runner *r, const lab_experiment *e, const cJSON *params, const char *profile, cJSON **out,
                    srv_sim_cost *cost, lab_error *err) {
  if (r->sim) return srv_sim_gate_run(r->sim, e, params, profile, out, cost, err);
  return lab_simulate(e, params, profile, out, err);
}

int srv_run_experiment(srv_runner *r, const char *name, const cJSON *params, const char *backend,
                       const char *profile, cJSON **out, srv_sim_cost *cost, lab_error *err) {
  *out = NULL;
  if (cost) memset(cost, 0, sizeof *cost);
  const lab_experiment *e = lab_experiment_find(name);
  if (!e)
    return lab_fail(err, LAB_E_UNKNOWN_EXPERIMENT, "experiment",
                    "no experiment named '%.40s'; GET /api/experiments lists them", name ? name : "");
  if (!backend) backend = "auto";
  if (strcmp(backend, "auto") && strcmp(backend, "cuda") && strcmp(backend, "simulated"))
    return lab_fail(err, LAB_E_INVALID_PARAM, "backend", "backend must be one of: auto, cuda, simulated");
  if (profile && !lab_profile_find(profile))
    return lab_fail(err, LAB_E_UNKNOWN_PROFILE, "profile", "unknown profile '%.40s'; GET /api/profiles lists them",
                    profile);
  if (strcmp(backend, "simulated") == 0) return simulate(r, e, params, profile, out, cost, err);
  /* Validate before touching the GPU, so a bad parameter is a 400 even without one. */
  lab_params p;
  if (lab_experiment_params(e, params, &p, err)) return -1;
  lab_driver_view drv;
  lab_runtime_view rt;
  lab_verdict v;
  srv_runner_views(r, &drv, &rt);
  lab_device_verdict(&drv, &rt, &v);
  if (r->gpu_elsewhere && lab_experiment_has_kernel(e) && v.usable) {
    v.usable = 0; /* the class's workers have the GPUs; this one only serves */
    snprintf(v.summary, sizeof v.summary, "no GPU worker of this class is running");
  }
  switch (srv_route_of(backend, v.usable, lab_experiment_has_kernel(e), strcmp(e->name, "device") == 0)) {
    case SRV_ROUTE_GPU: return run_on_gpu(r, e, params, out, err);
    case SRV_ROUTE_NO_GPU:
      return lab_fail(err, LAB_E_NO_GPU, "backend", "%s. Use backend \"simulated\" (or \"auto\") to run the model.",
                      v.summary);
    case SRV_ROUTE_NO_KERNEL:
      return lab_fail(err, LAB_E_NO_GPU, "backend", "%s has no GPU version; use backend \"simulated\" or \"auto\"",
                      e->name);
    case SRV_ROUTE_SIMULATE: break;
  }
  return simulate(r, e, params, profile, out, cost, err);
}

srv_route srv_route_of(const char *backend, int usable, int kernel, int device) {
  if (strcmp(backend, "simulated") == 0) return SRV_ROUTE_SIMULATE;
  /* The device check describes this machine whatever it finds: that is its lesson. */
  if (device) return SRV_ROUTE_GPU;
  if (usable && kernel) return SRV_ROUTE_GPU;
  if (strcmp(backend, "cuda") == 0) return usable ? SRV_ROUTE_NO_KERNEL : SRV_ROUTE_NO_GPU;
  return SRV_ROUTE_SIMULATE;
}

int srv_runner_test_hook(srv_runner *r, const char *hook, lab_error *err) {
  if (!srv_test_hooks_enabled())
    return lab_fail(err, LAB_E_UNKNOWN_EXPERIMENT, "experiment", "no experiment named '%.40s'", hook);
  cJSON *job = cJSON_CreateObject(), *answer = NULL;
  cJSON_AddStringToObject(job, "job", hook);
  int rc = srv_supervisor_call(r->sup, job, r->wait_s, r->deadline_s, &answer, err);
  cJSON_Delete(job);
  cJSON_Delete(answer);
  return rc;
}
