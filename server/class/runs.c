/* Class-mode GPU runs (see runs.h). The order of the checks matters: the
 * cheap, definite refusals (bad params, too much memory, quota, a full
 * queue) come before the rate window counts the run, so a refused request
 * does not use up a learner's minute. */
#include "runs.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cjson_compat.h"
#include "clock.h"
#include "cluster_view.h"
#include "envelope.h"
#include "learner.h"
#include "metrics.h"
#include "registry.h"
#include "runs_shared.h"

static int has_gpu_side(const char *name) {
  const lab_experiment *e = lab_experiment_find(name);
  return e && lab_experiment_has_kernel(e);
}

static void log_store_error(const char *what, int64_t run_id, const lab_error *err) {
  fprintf(stderr, "gpulab: run %lld: %s failed: %s (%s)\n", (long long)run_id, what, lab_err_code(err->code),
          err->message);
}

/* Stores a run's end; the error envelope stands in for the result of a failed run. */
static void finish(srv_class_runs *cr, int64_t run_id, const char *status, const lab_error *fail, const cJSON *result,
                   double gpu_ms) {
  char *text = result || fail ? srv_run_outcome_text(fail, result) : NULL;
  lab_error err;
  if (srv_store_run_finish(cr->store, run_id, status, fail ? lab_err_code(fail->code) : NULL, text, gpu_ms, &err) != 0)
    log_store_error("storing its end", run_id, &err);
  cJSON_free(text);
}

/* A run's end, as it is to be stored. */
typedef struct run_end {
  const char *status, *code;
  char *text;
  double gpu_ms;
} run_end;

/* One write of a run to the store: its start (end NULL) or its end. */
static int write_run(srv_class_runs *cr, int64_t run_id, const run_end *end, lab_error *err) {
  if (!end) return srv_store_run_start(cr->store, run_id, err);
  return srv_store_run_finish(cr->store, run_id, end->status, end->code, end->text, end->gpu_ms, err);
}

/* Writes a run's start or end, and while the store cannot take it (a full
 * disk, I/O trouble, a lock held elsewhere) tries again, 0.1 s after, then
 * twice as long each time up to 2 s, until it can or the queue stops: a run
 * whose start is not stored does not start (else it would run unrecorded,
 * and again after a restart), and a run's end is kept until it is stored
 * (else it would read "running" for good). 0: written; 1: the queue stops
 * first (nothing written); -1: another failure (logged). */
static int write_until_stored(srv_class_runs *cr, int64_t run_id, const run_end *end) {
  const char *what = end ? "storing its end" : "marking it running";
  lab_error err = {0};
  double pause = 0.1, waited = 0;
  while (write_run(cr, run_id, end, &err) != 0) {
    if (err.code != LAB_E_STORE_UNAVAILABLE && err.code != LAB_E_STORE_BUSY) {
      log_store_error(what, run_id, &err);
      return -1;
    }
    if (waited == 0)
      fprintf(stderr, "gpulab: run %lld: %s waits for the class store (%s): %s\n", (long long)run_id, what,
              lab_err_code(err.code), err.message);
    if (srv_queue_pause(cr->queue, pause)) {
      fprintf(stderr, "gpulab: run %lld: the server stops before the store could record %s\n", (long long)run_id,
              end ? "its end (the next start marks it failed)" : "its start (the next start queues it again)");
      return 1;
    }
    waited += pause;
    pause = pause * 2 < 2 ? pause * 2 : 2;
  }
  if (waited > 0) fprintf(stderr, "gpulab: run %lld: %s: stored after %.1f s\n", (long long)run_id, what, waited);
  return 0;
}

/* The queue's exec callback: one run on GPU slot `slot`, on its thread. */
static void exec_run(void *ctx, int slot, srv_queue_job *job) {
  srv_class_runs *cr = ctx;
  lab_error err = {0};
  if (write_until_stored(cr, job->run_id, NULL) == 1) return; /* still queued in the store: never ran */
  cJSON *out = NULL;
  double t0 = lab_clock_s();
  int rc = srv_runner_gpu_job(cr->sup[slot], job->experiment, job->params, job->run_id, cr->runner->wait_s,
                              cr->deadline_s, &out, &err);
  double run_s = lab_clock_s() - t0;
  const char *status = rc == 0 ? "done" : "failed";
  run_end end = {status, rc == 0 ? NULL : lab_err_code(err.code), srv_run_outcome_text(rc == 0 ? NULL : &err, out),
                 run_s * 1000.0};
  write_until_stored(cr, job->run_id, &end);
  cJSON_free(end.text);
  srv_metrics_run(run_s, status);
  cJSON_Delete(out);
}

int srv_class_runs_queued(srv_class_runs *cr, const char *experiment, const char *backend) {
  if (!cr || !has_gpu_side(experiment)) return 0;
  if (backend && strcmp(backend, "simulated") == 0) return 0;
  if (cr->view) return srv_runs_shared_queued(cr, backend);
  if (backend && strcmp(backend, "cuda") == 0) return srv_runner_gpu_usable(cr->runner);
  return (!backend || strcmp(backend, "auto") == 0) && srv_runner_gpu_usable(cr->runner);
}

/* ---- the two queues: in-process (queue.h) or the shared store's -------------- */

/* A run's live state; stored_status (NULL: not read) lets the shared
 * queue trust the store over its view. */
static void status_of(srv_class_runs *cr, int64_t run_id, const char *stored_status, srv_queue_status *st) {
  if (cr->view) srv_runs_shared_status(cr, run_id, stored_status, st);
  else srv_queue_status_of(cr->queue, run_id, st);
}

static int learner_runs(srv_class_runs *cr, int64_t learner_id) {
  return cr->view ? srv_cluster_view_learner_runs(cr->view, learner_id) : srv_queue_learner_runs(cr->queue, learner_id);
}

static double run_estimate(srv_class_runs *cr, const char *experiment) {
  return cr->view ? srv_cluster_view_estimate(cr->view, experiment) : srv_queue_run_estimate(cr->queue, experiment);
}

/* The early look at the queue's room (the enqueue checks again, atomically). */
static int queue_room(srv_class_runs *cr, int64_t learner_id, double *retry_after_s, lab_error *err) {
  if (cr->view) return 0; /* the store's check is the only one that counts every server's runs */
  return srv_queue_full(cr->queue, learner_id, retry_after_s, err);
}

/* Stores the run as queued and puts it in the queue. */
static int enqueue(srv_class_runs *cr, const srv_store_session *sess, const char *experiment, cJSON *normal,
                   const char *params_text, double reserve_ms, int64_t *run_id, double *retry_after_s,
                   lab_error *err) {
  if (cr->view) {
    cJSON_Delete(normal);
    return srv_runs_shared_enqueue(cr, sess, experiment, params_text, reserve_ms, run_id, retry_after_s, err);
  }
  if (srv_store_run_add(cr->store, sess->id, experiment, params_text, "cuda", reserve_ms, run_id, err) != 0) {
    cJSON_Delete(normal);
    return -1;
  }
  double ra = 0;
  if (srv_queue_push(cr->queue, *run_id, sess->id, sess->learner_id, experiment, normal, &ra, err) == 0) return 0;
  *retry_after_s = ra;
  finish(cr, *run_id, "failed", err, NULL, 0); /* never ran: the charge is refunded */
  return -1;
}

static cJSON *run_brief(srv_class_runs *cr, int64_t run_id) {
  srv_queue_status st;
  status_of(cr, run_id, NULL, &st);
  cJSON *o = cJSON_CreateObject(), *run = cJSON_AddObjectToObject(o, "run");
  cJSON_AddNumberToObject(run, "id", (double)run_id);
  /* A worker may already have taken it; otherwise it is waiting. */
  cJSON_AddStringToObject(run, "status", st.state == SRV_Q_RUNNING ? "running" : "queued");
  cJSON_AddNumberToObject(run, "position", st.position);
  cJSON_AddNumberToObject(run, "estimate_s", st.estimate_s);
  if (st.state != SRV_Q_RUNNING && st.no_worker) srv_queue_status_no_worker(run);
  return o;
}

/* quota_exceeded says when to look again: when the learner's queued runs
 * have run (their charge is settled to what they took, perhaps less), or
 * in an hour when none wait: GPU time does not refill by itself. */
static int over_quota(srv_class_runs *cr, int64_t learner_id, double used_ms, double *retry_after_s, lab_error *err) {
  if (srv_limits_quota(used_ms, cr->gpu_seconds, err) == 0) return 0;
  int waiting = learner_runs(cr, learner_id);
  *retry_after_s = waiting ? waiting * run_estimate(cr, "") + 1 : 3600;
  return -1;
}

int srv_class_runs_submit(srv_class_runs *cr, const srv_store_session *sess, const char *experiment,
                          const cJSON *params, cJSON **out, double *retry_after_s, lab_error *err) {
  int64_t learner_id = sess->learner_id;
  *out = NULL;
  *retry_after_s = 0;
  const lab_experiment *e = lab_experiment_find(experiment);
  if (!e || !lab_experiment_has_kernel(e))
    return lab_fail(err, LAB_E_UNKNOWN_EXPERIMENT, "experiment", "no GPU experiment named '%.40s'",
                    experiment ? experiment : "");
  lab_params p;
  if (lab_experiment_params(e, params, &p, err) != 0) return -1;
  if (srv_limits_gpu_mem(e, &p, cr->max_gpu_mem_gib, err) != 0) return -1;
  double used_ms = 0;
  if (srv_store_learner_gpu_ms(cr->store, learner_id, &used_ms, err) != 0) return -1;
  if (over_quota(cr, learner_id, used_ms, retry_after_s, err) != 0) return -1;
  /* Checked again (atomically) by the push; this early look keeps a full
   * queue from using up the learner's rate window. */
  if (queue_room(cr, learner_id, retry_after_s, err) != 0) return -1;
  int64_t ticket = 0;
  if (srv_learner_gpu_admit(cr->store, learner_id, cr->runs_per_minute, &ticket, retry_after_s, err) != 0) return -1;
  /* The quota is charged now, with what this experiment usually takes (at
   * most its deadline); the run settles it to what it took. */
  double reserve_ms = run_estimate(cr, e->name) * 1000.0;
  if (reserve_ms > cr->deadline_s * 1000.0) reserve_ms = cr->deadline_s * 1000.0;
  cJSON *normal = lab_params_to_json(&p);
  char *params_text = normal ? cJSON_PrintUnformatted(normal) : NULL;
  int64_t run_id = 0;
  int rc = -1;
  if (!params_text) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    cJSON_Delete(normal);
  } else {
    rc = enqueue(cr, sess, e->name, normal, params_text, reserve_ms, &run_id, retry_after_s, err); /* takes normal */
  }
  cJSON_free(params_text);
  if (rc != 0) {
    srv_learner_gpu_undo(cr->store, ticket);
    return -1;
  }
  *out = run_brief(cr, run_id);
  return *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
}

/* Adds the live queue state to a stored run; a failed run's stored error
 * envelope becomes its "error". */
static void merge_live(srv_class_runs *cr, cJSON *run) {
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(run, "id");
  const cJSON *status = cJSON_GetObjectItemCaseSensitive(run, "status");
  srv_queue_status st;
  status_of(cr, cJSON_IsNumber(id) ? (int64_t)id->valuedouble : 0, cJSON_IsString(status) ? status->valuestring : "",
            &st);
  cJSON *progress = cJSON_CreateObject();
  if (st.state == SRV_Q_QUEUED) {
    cJSON_ReplaceItemInObjectCaseSensitive(run, "status", cJSON_CreateString("queued"));
    cJSON_AddNumberToObject(run, "position", st.position);
    cJSON_AddNumberToObject(run, "estimate_s", st.estimate_s);
    if (st.no_worker) srv_queue_status_no_worker(run);
    cJSON_AddStringToObject(progress, "state", "queued");
  } else if (st.state == SRV_Q_RUNNING) {
    cJSON_ReplaceItemInObjectCaseSensitive(run, "status", cJSON_CreateString("running"));
    cJSON_AddNumberToObject(run, "position", 0);
    cJSON_AddNumberToObject(run, "estimate_s", st.estimate_s);
    cJSON_AddStringToObject(progress, "state", "running");
    cJSON_AddNumberToObject(progress, "elapsed_s", st.elapsed_s);
    /* A kernel cannot report how far it got: the fraction is elapsed time
     * over this experiment's recent run time, capped below 1. */
    double f = st.run_estimate_s > 0 ? st.elapsed_s / st.run_estimate_s : 0;
    cJSON_AddNumberToObject(progress, "fraction", f < 0.99 ? f : 0.99);
    cJSON_AddBoolToObject(progress, "estimated", 1);
  } else {
    const char *s = cJSON_IsString(status) ? status->valuestring : "";
    /* Queued or running in the store but not in this queue: it is being
     * handed over (a worker just finished it); the next poll shows the end. */
    cJSON_AddStringToObject(progress, "state", strcmp(s, "queued") == 0 || strcmp(s, "running") == 0 ? s : "done");
    cJSON *result = cJSON_GetObjectItemCaseSensitive(run, "result");
    cJSON *error = cJSON_GetObjectItemCaseSensitive(result, "error");
    if (strcmp(s, "failed") == 0 && error) {
      cJSON_AddItemToObject(run, "error", cJSON_DetachItemViaPointer(result, error));
      cJSON_ReplaceItemInObjectCaseSensitive(run, "result", cJSON_CreateNull());
    }
  }
  cJSON_AddItemToObject(run, "progress", progress);
}

/* A shared store's run is run by a worker anywhere: the first server to
 * find it ended counts it in its metrics (cluster_view.h: count), a poll
 * here or any server's sweep, once across the cluster (the in-process queue
 * counts in exec_run). The run time is the worker's (gpu_ms, its wall time
 * of the GPU call). */
static void count_served(srv_class_runs *cr, const cJSON *run) {
  if (!cr->view) return;
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(run, "id");
  const cJSON *status = cJSON_GetObjectItemCaseSensitive(run, "status");
  if (!cJSON_IsNumber(id) || !cJSON_IsString(status)) return;
  const char *s = status->valuestring;
  if (strcmp(s, "done") && strcmp(s, "failed") && strcmp(s, "cancelled")) return;
  srv_cluster_view_count(cr->view, (int64_t)id->valuedouble);
}

int srv_class_runs_get(srv_class_runs *cr, int64_t session_id, int64_t run_id, cJSON **out, lab_error *err) {
  *out = NULL;
  cJSON *run = NULL;
  if (srv_store_run_get(cr->store, session_id, run_id, &run, err) != 0) return -1;
  count_served(cr, run);
  merge_live(cr, run);
  *out = cJSON_CreateObject();
  if (!*out) {
    cJSON_Delete(run);
    return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  }
  cJSON_AddItemToObject(*out, "run", run);
  return 0;
}

int srv_class_runs_cancel(srv_class_runs *cr, int64_t session_id, int64_t run_id, cJSON **out, lab_error *err) {
  *out = NULL;
  cJSON *run = NULL;
  /* The store answers whose run it is before the queue is touched. */
  if (srv_store_run_get(cr->store, session_id, run_id, &run, err) != 0) return -1;
  cJSON_Delete(run);
  if (cr->view) { /* the store cancels it only while no worker has it, atomically */
    if (srv_store_queue_cancel(cr->store, session_id, run_id, err) != 0) return -1;
    srv_cluster_view_refresh(cr->view, 0);
    return srv_class_runs_get(cr, session_id, run_id, out, err); /* which counts it */
  } else {
    int rc = srv_queue_cancel(cr->queue, run_id, session_id);
    if (rc != 1)
      return lab_fail(err, LAB_E_NOT_CANCELLABLE, "id", "run %lld has %s; only a queued run can be cancelled",
                      (long long)run_id,
                      rc == 0 ? "started on the GPU (it ends at its deadline at the latest)" : "finished");
    if (srv_store_run_finish(cr->store, run_id, "cancelled", NULL, NULL, 0, err) != 0) return -1;
  }
  srv_metrics_run(0, "cancelled");
  return srv_class_runs_get(cr, session_id, run_id, out, err);
}

int srv_class_runs_restarts(srv_class_runs *cr) {
  if (cr->view) return (int)srv_cluster_view_restarts(cr->view);
  int n = 0;
  for (int i = 0; i < cr->slots; i++) n += srv_supervisor_restarts(cr->sup[i]);
  return n;
}

int srv_class_runs_waiting(srv_class_runs *cr) {
  return cr->view ? srv_cluster_view_waiting(cr->view) : srv_queue_waiting(cr->queue);
}

int srv_class_runs_running(srv_class_runs *cr) {
  return cr->view ? srv_cluster_view_running(cr->view) : srv_queue_running(cr->queue);
}

cJSON *srv_class_runs_queue_json(srv_class_runs *cr) {
  return cr->view ? srv_cluster_view_queue_json(cr->view) : srv_queue_json(cr->queue);
}

cJSON *srv_class_runs_workers(srv_class_runs *cr) { return cr && cr->view ? srv_cluster_view_workers(cr->view) : NULL; }

int srv_class_runs_workers_alive(srv_class_runs *cr) {
  return cr && cr->view ? srv_cluster_view_alive(cr->view) : -1;
}

int srv_class_runs_workers_unusable(srv_class_runs *cr) {
  return cr && cr->view ? srv_cluster_view_unusable(cr->view) : 0;
}

int srv_class_runs_store_ok(srv_class_runs *cr) { return cr && cr->view ? srv_cluster_view_store_ok(cr->view) : 1; }

/* Runs a previous server left: queued ones go back in the queue (in their
 * old order), running ones died with it. */
static int recover(srv_class_runs *cr, lab_error *err) {
  cJSON *rows = NULL;
  if (srv_store_runs_unfinished(cr->store, &rows, err) != 0) return -1;
  int requeued = 0, failed = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, rows) {
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(r, "id");
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(r, "session_id");
    const cJSON *lid = cJSON_GetObjectItemCaseSensitive(r, "learner_id");
    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(r, "experiment");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(r, "status");
    if (!cJSON_IsNumber(id) || !cJSON_IsNumber(sid) || !cJSON_IsString(exp) || !cJSON_IsString(status)) continue;
    int64_t run_id = (int64_t)id->valuedouble;
    lab_error why = {0};
    if (strcmp(status->valuestring, "queued") == 0 && has_gpu_side(exp->valuestring)) {
      const cJSON *params = cJSON_GetObjectItemCaseSensitive(r, "params");
      double ra;
      if (srv_queue_push(cr->queue, run_id, (int64_t)sid->valuedouble,
                         cJSON_IsNumber(lid) ? (int64_t)lid->valuedouble : 0, exp->valuestring,
                         cJSON_IsObject(params) ? cJSON_Duplicate(params, 1) : NULL, &ra, &why) == 0) {
        requeued++;
        continue;
      }
    } else {
      lab_fail(&why, LAB_E_WORKER_CRASHED, NULL,
               "the server stopped while this run was on the GPU; its worker is gone: run it again");
    }
    finish(cr, run_id, "failed", &why, NULL, 0);
    failed++;
  }
  cJSON_Delete(rows);
  if (requeued || failed)
    fprintf(stderr, "gpulab: recovered the queue: %d run(s) requeued, %d failed (they were running)\n", requeued,
            failed);
  return 0;
}

int srv_class_runs_start(srv_class_runs *cr, const srv_class_config *cfg, const srv_workers_spec *workers,
                         srv_store *store, srv_runner *runner, lab_error *err) {
  memset(cr, 0, sizeof *cr);
  cr->store = store;
  cr->runner = runner;
  cr->deadline_s = (double)cfg->deadline_s;
  cr->gpu_seconds = (double)cfg->gpu_seconds_per_session;
  cr->max_gpu_mem_gib = (double)cfg->max_gpu_mem_gib;
  runner->deadline_s = cr->deadline_s;
  cr->runs_per_minute = cfg->runs_per_minute;
  if (srv_store_shared(store)) {
    if (srv_runs_shared_start(cr, cfg, workers, err) == 0) return 0;
    srv_class_runs_stop(cr);
    return -1;
  }
  if (workers->mode != SRV_WORKERS_LOCAL) {
    lab_fail(err, LAB_E_USAGE, "workers",
             "--workers none and slurm need a store every server and worker shares: --store postgresql://… (an "
             "SQLite class runs its GPU queue inside this server: --workers local)");
    return -1;
  }
  cr->queue = srv_queue_new((int)cfg->queue_max);
  if (!cr->queue) goto oom;
  srv_queue_set_learner_cap(cr->queue, (int)cfg->queued_runs_per_learner);
  int n = cfg->gpu_count > 0 ? cfg->gpu_count : 1;
  for (int i = 0; i < n && i < SRV_MAX_GPUS; i++) {
    cr->sup[i] = i == 0 ? runner->sup : srv_supervisor_for_self();
    if (!cr->sup[i]) goto oom;
    cr->slots = i + 1;
    if (cfg->gpu_count > 0) srv_supervisor_set_gpu(cr->sup[i], cfg->gpus[i]);
  }
  if (recover(cr, err) != 0) goto fail;
  if (srv_queue_start(cr->queue, cr->slots, exec_run, cr) != 0) {
    lab_fail(err, LAB_E_INTERNAL, NULL, "cannot start the GPU queue's worker threads");
    goto fail;
  }
  return 0;
oom:
  lab_fail(err, LAB_E_NOMEM, NULL, NULL);
fail:
  srv_class_runs_stop(cr);
  return -1;
}

static void kill_workers(void *ctx) {
  srv_class_runs *cr = ctx;
  for (int i = 0; i < cr->slots; i++) srv_supervisor_kill(cr->sup[i]);
}

void srv_class_runs_halt(srv_class_runs *cr) {
  if (cr->queue) srv_queue_stop(cr->queue, 2.0, kill_workers);
  srv_runs_shared_halt(cr);
}

void srv_class_runs_stop(srv_class_runs *cr) {
  srv_class_runs_halt(cr);
  srv_cluster_view_stop(cr->view);
  srv_queue_free(cr->queue);
  for (int i = 1; i < cr->slots; i++) srv_supervisor_free(cr->sup[i]);
  memset(cr, 0, sizeof *cr);
}
