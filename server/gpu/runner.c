/* Backend choice and the path of one run, shared by CLI and API. */
#include "runner.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cjson_compat.h"
#include "abstime.h"
#include "clock.h"
#include "driver_probe.h"
#include "envelope.h"
#include "platform.h"
#include "registry.h"
#include "hooks.h"

int srv_runner_init(srv_runner *r, srv_supervisor *sup) {
  memset(r, 0, sizeof *r);
  r->sup = sup;
  r->deadline_s = 60;
  r->wait_s = 30;
  if (pthread_cond_init(&r->probed, NULL) != 0) return -1;
  if (pthread_cond_init(&r->wake, NULL) != 0) {
    pthread_cond_destroy(&r->probed);
    return -1;
  }
  return pthread_mutex_init(&r->lock, NULL);
}

void srv_runner_free(srv_runner *r) {
  if (r->prober_started) {
    pthread_mutex_lock(&r->lock);
    r->prober_stop = 1;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->lock);
    /* A probe stuck in the driver cannot be cancelled: after a bounded
     * wait the thread is left behind (the process is ending) and what it
     * uses is not destroyed under it. */
    struct timespec ts = srv_abstime_after(r->views_wait_s + 1);
    if (pthread_timedjoin_np(r->prober, NULL, &ts) != 0) {
      fprintf(stderr, "gpulab: the device check is still stuck; not waiting for it\n");
      pthread_detach(r->prober);
      return;
    }
  }
  pthread_cond_destroy(&r->wake);
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
 * run of nvidia-smi (without NVML) and a round trip to the worker. */
#define VIEWS_FRESH_S 1.0
/* serve: views younger than this are answered at once, with their age,
 * while a probe refreshes them behind the answer (a page's first request
 * does not wait for nvidia-smi: 15-20 ms idle, 100-300 ms on a busy
 * machine); older ones wait for the probe, at most views_wait_s. */
#define VIEWS_REUSE_S 10.0

/* The runtime view when it is known without the GPU process, whose start
 * (it links cuBLAS: 0.4-1.35 s and 220 MB of RSS on a machine with no
 * driver) would only learn what the driver probe already did: a build
 * without CUDA says so, and a CUDA build on a machine with no NVIDIA driver
 * gets what its runtime answers when libcuda.so.1 is missing. The test
 * hooks' fake GPU, and a worker named by GPULAB_WORKER, are always asked. */
static int runtime_view_here(const lab_driver_view *drv, lab_runtime_view *rt) {
  if (getenv("GPULAB_WORKER") || (srv_test_hooks_enabled() && getenv("GPULAB_FAKE_GPU_MS"))) return 0;
#ifndef GPULAB_CUDA
  (void)drv;
  lab_runtime_view_not_built(rt);
  return 1;
#else
  if (!drv->none_installed) return 0;
  lab_runtime_view_without_driver(rt, GPULAB_CUDART_VERSION);
  return 1;
#endif
}

/* One probe: the driver view, then the runtime view, from the worker
 * unless known here (a busy worker is running an experiment: the cached
 * runtime view is kept). Called without the lock; stores its result under it. */
static void probe_once(srv_runner *r) {
  pthread_mutex_lock(&r->lock);
  int have = r->have_rt;
  pthread_mutex_unlock(&r->lock);
  lab_driver_view drv;
  lab_runtime_view fresh;
  srv_driver_probe(&drv);
  int got = 0;
  if (r->no_gpu_process) { /* its GPU process would cost a CUDA context (150 MB and more) for nothing */
    memset(&fresh, 0, sizeof fresh);
    fresh.status = LAB_RT_ERROR;
    snprintf(fresh.error_name, sizeof fresh.error_name, "not_checked");
    snprintf(fresh.error_message, sizeof fresh.error_message,
             "this server starts no GPU process (--workers none or slurm): its GPU runs are its workers'");
  } else if (runtime_view_here(&drv, &fresh)) {
    got = 1;
  } else {
    got = fetch_runtime_view(r, &fresh, have ? 0.05 : r->wait_s) == 0;
  }
  pthread_mutex_lock(&r->lock);
  if (got || !have) {
    r->rt = fresh;
    r->have_rt = fresh.status != LAB_RT_ERROR || r->have_rt;
  }
  r->drv = drv;
  r->have_views = 1;
  r->views_at_s = lab_clock_s();
  r->probing = 0;
  r->probe_gen++;
  pthread_cond_broadcast(&r->probed);
  pthread_mutex_unlock(&r->lock);
}

/* The background prober (serve): request threads never run a probe
 * themselves, so a probe that hangs (a wedged driver, nvidia-smi stuck)
 * holds no request; they wait for its answer only as long as
 * views_wait_s. */
static void *prober_main(void *arg) {
  srv_runner *r = arg;
  pthread_mutex_lock(&r->lock);
  while (!r->prober_stop) {
    if (!r->probe_wanted || r->prober_quiet) {
      pthread_cond_wait(&r->wake, &r->lock);
      continue;
    }
    r->probe_wanted = 0;
    pthread_mutex_unlock(&r->lock);
    probe_once(r);
    pthread_mutex_lock(&r->lock);
  }
  pthread_mutex_unlock(&r->lock);
  return NULL;
}

/* Under the lock: marks a probe in flight and hands it to the prober (or
 * returns 1 when the caller must run it itself: no background prober). */
static int start_probe_locked(srv_runner *r) {
  r->probing = 1;
  r->probe_started_s = lab_clock_s();
  if (!r->background) return 1;
  if (!r->prober_started) {
    if (pthread_create(&r->prober, NULL, prober_main, r) != 0) return 1;
    r->prober_started = 1;
  }
  r->probe_wanted = 1;
  pthread_cond_signal(&r->wake);
  return 0;
}

int srv_runner_background(srv_runner *r, double wait_s) {
  pthread_mutex_lock(&r->lock);
  r->background = 1;
  r->views_wait_s = wait_s;
  int rc = 0;
  if (!r->probing && start_probe_locked(r)) rc = -1; /* a first view while nothing asks yet */
  if (rc) r->probing = 0;
  pthread_mutex_unlock(&r->lock);
  return rc;
}

static srv_views_state views(srv_runner *r, lab_driver_view *drv, lab_runtime_view *rt, bool quick) {
  pthread_mutex_lock(&r->lock);
  double now = lab_clock_s();
  if (r->have_views && now - r->views_at_s < VIEWS_FRESH_S) {
    *drv = r->drv;
    *rt = r->rt;
    pthread_mutex_unlock(&r->lock);
    return SRV_VIEWS_FRESH;
  }
  /* A probe in flight past the wait is hung (a wedged driver): the last
   * view is then answered below as stale, not as merely a few seconds old. */
  if (quick && r->background && r->have_views && now - r->views_at_s < VIEWS_REUSE_S &&
      (!r->probing || now - r->probe_started_s < r->views_wait_s)) {
    /* the next request gets the fresh one; with no prober thread (it could
     * not start) nothing is in flight, and the next wait probes in place */
    if (!r->probing && start_probe_locked(r)) r->probing = 0;
    *drv = r->drv;
    *rt = r->rt;
    pthread_mutex_unlock(&r->lock);
    return SRV_VIEWS_CACHED;
  }
  unsigned long gen = r->probe_gen;
  if (!r->probing && start_probe_locked(r)) {
    pthread_mutex_unlock(&r->lock);
    probe_once(r); /* the CLI: this thread probes, as long as it takes */
    pthread_mutex_lock(&r->lock);
  }
  /* Wait for the probe in flight, single flight: every caller shares its
   * answer. A probe that has already run past the wait is not waited for
   * again by each new request: they get the last view at once. */
  if (r->background) {
    double until = r->probe_started_s + r->views_wait_s;
    if (until < now) until = now;
    if (until > now + r->views_wait_s) until = now + r->views_wait_s;
    struct timespec ts = srv_abstime_after(until - now);
    while (r->probe_gen == gen && pthread_cond_timedwait(&r->probed, &r->lock, &ts) == 0) {
    }
  } else {
    while (r->probe_gen == gen) pthread_cond_wait(&r->probed, &r->lock);
  }
  srv_views_state state = r->probe_gen != gen ? SRV_VIEWS_FRESH : r->have_views ? SRV_VIEWS_STALE : SRV_VIEWS_NONE;
  if (state != SRV_VIEWS_NONE) {
    *drv = r->drv;
    *rt = r->rt;
  } else {
    memset(drv, 0, sizeof *drv);
    memset(rt, 0, sizeof *rt);
    snprintf(drv->error, sizeof drv->error, "the device check has not answered within %.0f s", r->views_wait_s);
    rt->status = LAB_RT_ERROR;
    snprintf(rt->error_name, sizeof rt->error_name, "%s", lab_err_code(LAB_E_DEVICE_CHECK_TIMEOUT));
    snprintf(rt->error_message, sizeof rt->error_message, "the device check is still running; retry in a few seconds");
  }
  pthread_mutex_unlock(&r->lock);
  return state;
}

srv_views_state srv_runner_views(srv_runner *r, lab_driver_view *drv, lab_runtime_view *rt) {
  return views(r, drv, rt, false);
}

srv_views_state srv_runner_views_quick(srv_runner *r, lab_driver_view *drv, lab_runtime_view *rt) {
  return views(r, drv, rt, true);
}

double srv_runner_views_age_s(srv_runner *r) {
  pthread_mutex_lock(&r->lock);
  double age = r->have_views ? lab_clock_s() - r->views_at_s : -1;
  pthread_mutex_unlock(&r->lock);
  return age;
}

double srv_runner_probe_running_s(srv_runner *r) {
  pthread_mutex_lock(&r->lock);
  double s = r->probing ? lab_clock_s() - r->probe_started_s : 0;
  pthread_mutex_unlock(&r->lock);
  return s;
}

void srv_runner_quiesce(srv_runner *r) {
  pthread_mutex_lock(&r->lock);
  r->prober_quiet = 1;
  if (r->probing && r->background) {
    struct timespec ts = srv_abstime_after(r->views_wait_s);
    while (r->probing && pthread_cond_timedwait(&r->probed, &r->lock, &ts) == 0) {
    }
  }
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

/* p is checked; the worker is another process and gets them as the job
 * line's JSON (the values actually used), which it validates itself. */
static int run_on_gpu(srv_runner *r, const lab_experiment *e, const lab_params *p, cJSON **out, lab_error *err) {
  if (lab_experiment_is_device_check(e)) {
    lab_driver_view drv;
    lab_runtime_view rt;
    srv_runner_views(r, &drv, &rt);
    *out = lab_device_envelope(p, &drv, &rt, "cuda", NULL);
    return *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  }
  cJSON *params = lab_params_to_json(p);
  if (!params) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  int rc = srv_runner_gpu_job(r->sup, e->name, params, 0, r->wait_s, r->deadline_s, out, err);
  cJSON_Delete(params);
  return rc;
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
static int simulate(srv_runner *r, const lab_experiment *e, const lab_params *p, const char *profile, cJSON **out,
                    srv_sim_cost *cost, lab_error *err) {
  if (r->sim) return srv_sim_gate_run(r->sim, e, p, profile, out, cost, err);
  return lab_simulate_checked(e, p, profile, out, err);
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
  /* The one validation of this run (before touching the GPU, so a bad
   * parameter is a 400 even without one); everything below takes p. */
  lab_params p;
  if (lab_experiment_params(e, params, &p, err)) return -1;
  return srv_run_checked(r, e, &p, backend, profile, out, cost, err);
}

/* The most particular need of a bit set (the highest bit), as
 * lab_need_what takes it; 0 when there is none. */
static lab_need top_need(unsigned needs) {
  unsigned top = 0;
  for (unsigned bit = 1; bit && bit <= needs; bit <<= 1)
    if (needs & bit) top = bit;
  return (lab_need)top;
}

int srv_run_checked(srv_runner *r, const lab_experiment *e, const lab_params *p, const char *backend,
                    const char *profile, cJSON **out, srv_sim_cost *cost, lab_error *err) {
  *out = NULL;
  if (cost) memset(cost, 0, sizeof *cost);
  if (!backend) backend = "auto";
  if (strcmp(backend, "auto") && strcmp(backend, "cuda") && strcmp(backend, "simulated"))
    return lab_fail(err, LAB_E_INVALID_PARAM, "backend", "backend must be one of: auto, cuda, simulated");
  if (profile && !lab_profile_find(profile))
    return lab_fail(err, LAB_E_UNKNOWN_PROFILE, "profile", "unknown profile '%.40s'; GET /api/profiles lists them",
                    profile);
  if (strcmp(backend, "simulated") == 0) return simulate(r, e, p, profile, out, cost, err);
  lab_driver_view drv;
  lab_runtime_view rt;
  lab_verdict v;
  srv_views_state views = srv_runner_views(r, &drv, &rt);
  if (views == SRV_VIEWS_NONE && strcmp(backend, "cuda") == 0)
    return lab_fail(err, LAB_E_DEVICE_CHECK_TIMEOUT, "backend",
                    "the device check has not answered yet, so the GPU cannot be used; retry in a few seconds or "
                    "use backend \"simulated\"");
  lab_device_verdict(&drv, &rt, &v);
  if (r->gpu_elsewhere && lab_experiment_has_kernel(e) && v.usable) {
    v.usable = 0; /* the class's workers have the GPUs; this one only serves */
    snprintf(v.summary, sizeof v.summary, "no GPU worker of this class is running");
  }
  switch (srv_route_of(backend, v.usable, lab_experiment_has_kernel(e), lab_experiment_is_device_check(e))) {
    case SRV_ROUTE_GPU: return run_on_gpu(r, e, p, out, err);
    case SRV_ROUTE_NO_GPU:
      return lab_fail(err, LAB_E_NO_GPU, "backend", "%s. Use backend \"simulated\" (or \"auto\") to run the model.",
                      v.summary);
    case SRV_ROUTE_NO_KERNEL: /* only the simulator answers it (gpu column sim): say what a live run lacks */
      return lab_fail(err, LAB_E_NOT_APPLICABLE, "backend",
                      "%s has no live run: it %s, and a live run here measures one GPU, so any number would be "
                      "made up. Use backend \"simulated\" or \"auto\": the model runs it on the profile's figures.",
                      e->name, lab_need_what(top_need(lab_experiment_needs(e))));
    case SRV_ROUTE_SIMULATE: break;
  }
  return simulate(r, e, p, profile, out, cost, err);
}

srv_route srv_route_of(const char *backend, int usable, int kernel, int device) {
  if (strcmp(backend, "simulated") == 0) return SRV_ROUTE_SIMULATE;
  /* The device check describes this machine whatever it finds: that is its lesson. */
  if (device) return SRV_ROUTE_GPU;
  if (usable && kernel) return SRV_ROUTE_GPU;
  if (strcmp(backend, "cuda") == 0) return !kernel ? SRV_ROUTE_NO_KERNEL : SRV_ROUTE_NO_GPU;
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
