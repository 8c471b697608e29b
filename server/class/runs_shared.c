/* Class-mode GPU runs on a shared store (see runs.h, runs_shared.h): the store's queue,
 * this server's view of it (cluster_view.h), and the GPU workers this
 * server keeps — inside it (--workers local), none, or Slurm jobs. Runs
 * queue only while a worker is alive; a server never runs an experiment
 * on its own GPU outside the queue (runner.h: gpu_elsewhere). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "clock.h"
#include "cluster_view.h"
#include "gpu_worker.h"
#include "request_id.h"
#include "runs_shared.h"
#include "slurm_workers.h"

#define NO_WORKER_RETRY_S 10 /* a worker starting now needs about this long to be seen */
#define STATUS_REFRESH_S 0.25 /* a run missing from the view makes it this fresh at most */
#define STOP_GRACE_S 2.0      /* as the in-process queue: a running run's time to finish */

/* The class's deadline as the settings watch last took it (settings_watch.h). */
static double class_deadline(void *arg) { return ((const srv_class_runs *)arg)->deadline_s; }

/* The GPUs of this server as workers of the shared queue (--workers local). */
static int start_local(srv_class_runs *cr, const srv_class_config *cfg, lab_error *err) {
  srv_runner *runner = cr->runner;
  lab_driver_view drv;
  lab_runtime_view rt;
  lab_verdict v;
  srv_runner_views(runner, &drv, &rt);
  lab_device_verdict(&drv, &rt, &v);
  if (!v.usable) {
    fprintf(stderr,
            "gpulab: this server has no usable GPU (%s), so it runs no GPU worker; runs queue while a `gpulab worker "
            "--store …` elsewhere is alive (docs/deploy.md)\n",
            v.summary);
    return 0;
  }
  cJSON *dev = lab_device_json(&drv, &rt);
  char *device = dev ? cJSON_PrintUnformatted(dev) : NULL;
  cJSON_Delete(dev);
  const char *visible = getenv("CUDA_VISIBLE_DEVICES");
  int rc = 0;
  for (int i = 0; i < cfg->gpu_count && i < SRV_MAX_GPUS && rc == 0; i++) {
    cr->sup[i] = i == 0 ? runner->sup : srv_supervisor_for_self();
    if (!cr->sup[i]) {
      rc = lab_fail(err, LAB_E_NOMEM, NULL, NULL);
      break;
    }
    cr->slots = i + 1;
    srv_supervisor_set_gpu(cr->sup[i], cfg->gpus[i]);
    srv_gpu_worker_opts o = {.store = cr->store, .sup = cr->sup[i], .deadline_s = cr->deadline_s,
                             .deadline_now = class_deadline, .deadline_arg = cr};
    snprintf(o.who.kind, sizeof o.who.kind, "local");
    gethostname(o.who.host, sizeof o.who.host - 1);
    o.who.pid = (int)getpid();
    o.who.gpu = cfg->gpus[i];
    snprintf(o.who.cuda_visible_devices, sizeof o.who.cuda_visible_devices, "%s", visible ? visible : "");
    o.who.device_json = device;
    rc = srv_gpu_worker_start(&o, &cr->local[i], err);
    if (rc == 0) cr->n_local = i + 1;
  }
  free(device);
  return rc;
}

int srv_runs_shared_start(srv_class_runs *cr, const srv_class_config *cfg, const srv_workers_spec *workers,
                          lab_error *err) {
  cr->learner_cap = cfg->queued_runs_per_learner;
  cr->queue_max = cfg->queue_max;
  cr->runner->gpu_elsewhere = 1;
  cr->runner->no_gpu_process = workers->mode != SRV_WORKERS_LOCAL;
  if (!(cr->view = srv_cluster_view_start(cr->store, err))) return -1;
  if (workers->mode == SRV_WORKERS_LOCAL) return start_local(cr, cfg, err);
  if (workers->mode == SRV_WORKERS_SLURM && !(cr->slurm = srv_slurm_workers_start(workers, cr->store, cfg->db, err)))
    return -1;
  return 0;
}

void srv_runs_shared_halt(srv_class_runs *cr) {
  for (int i = 0; i < cr->n_local; i++) {
    srv_gpu_worker_stop(cr->local[i], STOP_GRACE_S);
    cr->local[i] = NULL;
  }
  cr->n_local = 0;
  srv_slurm_workers_stop(cr->slurm);
  cr->slurm = NULL;
}

int srv_runs_shared_queued(srv_class_runs *cr, const char *backend) {
  /* cuda always comes here: with no worker alive it is answered no_gpu, with advice */
  if (backend && strcmp(backend, "cuda") == 0) return 1;
  return srv_cluster_view_alive(cr->view) > 0;
}

int srv_runs_shared_enqueue(srv_class_runs *cr, const srv_store_session *sess, const char *experiment,
                            const char *params_text, double reserve_ms, int64_t *run_id, double *retry_after_s,
                            lab_error *err) {
  /* One may have started since the last look (which can be a moment old
   * and still miss it): a read begun now decides. The learner's rate
   * window, charged before this, bounds how often that happens. */
  if (srv_cluster_view_alive(cr->view) == 0) srv_cluster_view_refresh_since(cr->view, lab_clock_s());
  if (srv_cluster_view_alive(cr->view) == 0) {
    *retry_after_s = NO_WORKER_RETRY_S;
    int unusable = srv_cluster_view_unusable(cr->view);
    char also[120] = "";
    if (unusable > 0)
      snprintf(also, sizeof also, "; %d alive without a usable GPU (GET /api/health says why)", unusable);
    return lab_fail(err, LAB_E_NO_GPU, "backend",
                    "no GPU worker of this class is running (none with a usable GPU has reported in the last %d s%s), "
                    "so GPU runs cannot queue now; run it with backend \"simulated\" (or \"auto\"), or ask your "
                    "instructor to start workers (gpulab worker --store …)",
                    SRV_WORKER_ALIVE_MS / 1000, also);
  }
  int mine = 0, waiting = 0;
  if (srv_store_queue_add(cr->store, sess->id, sess->learner_id, experiment, params_text, reserve_ms, cr->learner_cap,
                          cr->queue_max, srv_request_id(), run_id, &mine, &waiting, err) == 0) {
    /* Its place is read from a look that began after it was queued: an
     * older view would put it last, which the fair order often does not. */
    srv_cluster_view_refresh_since(cr->view, lab_clock_s());
    return 0;
  }
  if (err->code == LAB_E_TOO_MANY_QUEUED) {
    *retry_after_s = srv_cluster_view_soonest_end(cr->view, sess->learner_id);
    return lab_fail(err, LAB_E_TOO_MANY_QUEUED, NULL,
                    "you have %d GPU runs queued or running, as many as a learner may; retry in about %.0f s, when "
                    "one has finished (or cancel one), or run it with backend \"simulated\" now",
                    mine, *retry_after_s);
  }
  if (err->code == LAB_E_QUEUE_FULL) {
    *retry_after_s = srv_cluster_view_soonest_end(cr->view, -1);
    return lab_fail(err, LAB_E_QUEUE_FULL, NULL,
                    "the GPU queue is full (%d runs waiting); retry in about %.0f s, or run it with backend "
                    "\"simulated\" now",
                    waiting, *retry_after_s);
  }
  return -1;
}

static int is_final(const char *status) {
  return status && (!strcmp(status, "done") || !strcmp(status, "failed") || !strcmp(status, "cancelled"));
}

void srv_runs_shared_status(srv_class_runs *cr, int64_t run_id, const char *stored_status, srv_queue_status *st) {
  memset(st, 0, sizeof *st);
  if (is_final(stored_status)) return; /* the store is fresher than any view */
  srv_cluster_view_status(cr->view, run_id, st);
  if (st->state == SRV_Q_UNKNOWN) { /* queued after the last look */
    srv_cluster_view_refresh(cr->view, STATUS_REFRESH_S);
    srv_cluster_view_status(cr->view, run_id, st);
  }
  int running = stored_status && strcmp(stored_status, "running") == 0;
  if (st->state == SRV_Q_UNKNOWN && !running) srv_cluster_view_status_last(cr->view, "", st);
  if (running && st->state != SRV_Q_RUNNING) { /* a worker took it since the last look */
    double run_s = st->run_estimate_s > 0 ? st->run_estimate_s : srv_cluster_view_estimate(cr->view, "");
    memset(st, 0, sizeof *st);
    st->state = SRV_Q_RUNNING;
    st->run_estimate_s = st->estimate_s = run_s;
  }
}
