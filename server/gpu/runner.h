/* Runs experiments for the CLI and the API alike: picks the backend
 * (auto: the GPU when usable, else the simulator), hands GPU work to the
 * supervised worker process (gpulab-worker: the only binary that links CUDA
 * and cuBLAS), and keeps the device views. */
#ifndef SRV_RUNNER_H
#define SRV_RUNNER_H

#include <pthread.h>
#include <stdint.h>

#include "device.h"
#include "sim_gate.h"
#include "supervisor.h"

#define GPULAB_VERSION "0.1.0"

typedef struct srv_runner {
  srv_supervisor *sup; /* the GPU worker: every CUDA call happens there */
  int gpu_elsewhere;   /* experiments with a GPU side never run here: a class's GPU workers run them (runs.h) */
  int no_gpu_process;  /* and this server starts no GPU process at all, not even to probe (--workers none, slurm) */
  double deadline_s;   /* per GPU run */
  double wait_s;       /* how long a run waits for the GPU before "busy" */
  pthread_mutex_t lock; /* guards the cached views and the probe in flight */
  pthread_cond_t probed; /* a probe finished */
  int probing;           /* a probe is in flight (one at a time) */
  double probe_started_s; /* lab_clock_s of the probe in flight */
  unsigned long probe_gen; /* probes finished */
  lab_runtime_view rt;
  int have_rt;
  lab_driver_view drv; /* the last driver view, and when both views were taken */
  int have_views;
  double views_at_s;
  /* serve: probes run on a background thread and callers wait for one at
   * most views_wait_s (srv_runner_background); the CLI probes in place. */
  int background;
  double views_wait_s;
  pthread_t prober;
  pthread_cond_t wake; /* a probe is wanted, or the prober must stop */
  int prober_started, probe_wanted, prober_stop, prober_quiet;
  srv_sim_gate *sim; /* the server's bound on simulated runs (sim_gate.h); NULL in the CLI */
} srv_runner;

/* What srv_runner_views could give. */
typedef enum srv_views_state {
  SRV_VIEWS_NONE = -1, /* no view yet: the first probe has not answered within the wait */
  SRV_VIEWS_FRESH = 0,
  SRV_VIEWS_STALE = 1, /* the last view: the probe in flight did not answer within the wait */
  SRV_VIEWS_CACHED = 2, /* the last view, a few seconds old, while a probe refreshes it */
} srv_views_state;

int srv_runner_init(srv_runner *r, srv_supervisor *sup);
void srv_runner_free(srv_runner *r);

/* Fresh driver view; runtime view from the worker (cached while it is
 * busy). Views younger than a second are reused, and only one probe runs
 * at a time: concurrent callers share its answer. In the background mode
 * a caller waits at most views_wait_s: then it gets the last view
 * (STALE), or with none yet NONE and views that say the check has not
 * answered (not usable). */
srv_views_state srv_runner_views(srv_runner *r, lab_driver_view *drv, lab_runtime_view *rt);
/* The same for a page (GET /api/device): under serve, views up to 10 s old
 * are answered at once (SRV_VIEWS_CACHED) while a probe refreshes them. */
srv_views_state srv_runner_views_quick(srv_runner *r, lab_driver_view *drv, lab_runtime_view *rt);
/* serve: probes run on a thread of their own from now on, callers wait at
 * most wait_s; a first probe starts at once. 0, or -1 (no thread: callers
 * probe in place as the CLI does). */
int srv_runner_background(srv_runner *r, double wait_s);
/* Seconds since the last view was taken (-1: none yet), and how long the
 * probe in flight has run (0: none): what the watchdog watches. */
double srv_runner_views_age_s(srv_runner *r);
double srv_runner_probe_running_s(srv_runner *r);
/* The server is stopping: no more probes start; a probe in flight gets up
 * to views_wait_s to end (then the supervisor can be freed before the
 * runner, so the worker ends by EOF and resets its device). */
void srv_runner_quiesce(srv_runner *r);
/* True when experiments can run on the GPU. */
int srv_runner_gpu_usable(srv_runner *r);

/* Where one run goes. */
typedef enum srv_route {
  SRV_ROUTE_GPU,        /* the worker (device: the views, whatever they say) */
  SRV_ROUTE_SIMULATE,   /* the model */
  SRV_ROUTE_NO_GPU,     /* cuda asked, no usable GPU: 503 no_gpu */
  SRV_ROUTE_NO_KERNEL,  /* cuda asked for an experiment without a GPU side (multi_gpu), GPU or not: 422
                           not_applicable, saying what a live run lacks */
} srv_route;

/* The rule, apart from its inputs so it is unit-tested: backend "cuda",
 * "auto" or "simulated"; usable: a GPU is usable here; kernel: the
 * experiment has a GPU side; device: it is the device check. With auto, an
 * experiment without a GPU side is simulated even when a GPU is usable. */
srv_route srv_route_of(const char *backend, int usable, int kernel, int device);

/* backend: "auto" | "cuda" | "simulated" (NULL = auto); profile NULL = default.
 * A simulated run goes through r->sim when set; cost (may be NULL) gets
 * its CPU, and a busy refusal's Retry-After (all zero for a GPU run). */
int srv_run_experiment(srv_runner *r, const char *name, const cJSON *params, const char *backend,
                       const char *profile, cJSON **out, srv_sim_cost *cost, lab_error *err);

/* The same for an experiment in hand and params p that
 * lab_experiment_params (or the CLI's text and lab_experiment_check)
 * already checked: nothing is parsed again. */
int srv_run_checked(srv_runner *r, const lab_experiment *e, const lab_params *p, const char *backend,
                    const char *profile, cJSON **out, srv_sim_cost *cost, lab_error *err);

/* One experiment on the GPU process sup supervises: the job line (with
 * run_id, 0 when none, for the worker's log), the call under wait_s and
 * deadline_s, and the envelope's shape checked. The queue's workers and
 * the runner use it. */
int srv_runner_gpu_job(srv_supervisor *sup, const char *experiment, const cJSON *params, int64_t run_id,
                       double wait_s, double deadline_s, cJSON **out, lab_error *err);
/* What a run leaves in the store: its envelope, or for a failed run the
 * error envelope (malloc'd text; NULL when out of memory). */
char *srv_run_outcome_text(const lab_error *fail, const cJSON *result);

/* With GPULAB_TEST_HOOKS=1: sends the worker a "_crash", "_hang" or
 * "_sticky" job, so tests can watch the supervision replace it. */
int srv_runner_test_hook(srv_runner *r, const char *hook, lab_error *err);

#endif
