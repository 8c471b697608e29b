/* Class-mode GPU runs: submit (limits, store, queue → 202), execute on a
 * GPU through its supervised worker (store, metrics), look up and cancel.
 * Two queues behind one interface: with an SQLite store the in-process one
 * (queue.h), whose worker threads this server runs, recovering after a
 * restart (queued runs requeued, running ones failed as worker_crashed);
 * with a shared store (PostgreSQL) the store's (runs_shared.c), which GPU
 * workers anywhere drain (gpu_worker.h) — inside this server (--workers
 * local), elsewhere (none) or as Slurm jobs it keeps (slurm:N).
 * Simulated runs do not come here. */
#ifndef SRV_RUNS_H
#define SRV_RUNS_H

#include <stdint.h>

#include "config.h"
#include "error.h"
#include "run_limits.h"
#include "runs_state.h"
#include "store.h"
#include "workers_spec.h"


/* Sets up limits, the queue and one supervisor per configured GPU (each
 * worker pinned with CUDA_VISIBLE_DEVICES), requeues or fails the runs a
 * previous server left unfinished, then starts one worker thread per GPU.
 * Returns 0, or -1 with err set (msg for the operator). */
int srv_class_runs_start(srv_class_runs *cr, const srv_class_config *cfg, const srv_workers_spec *workers,
                         srv_store *store, srv_runner *runner, lab_error *err);
/* Stops the workers: a running run gets 2 s, then its worker is killed and
 * the run stored as failed (worker_crashed); waiting runs stay queued in
 * the store and are requeued at the next start. Handlers may still call in
 * (a run submitted now waits for the next start). Call it while the HTTP
 * threads still run: a worker process dies with the thread that started
 * it (PR_SET_PDEATHSIG), and an HTTP thread may have started it. */
void srv_class_runs_halt(srv_class_runs *cr);
/* Halts if needed, then frees everything. Safe on a zeroed struct. */
void srv_class_runs_stop(srv_class_runs *cr);

/* Whether a POST of this experiment/backend goes through the queue: it has
 * a GPU side and asks for the GPU (backend "cuda", or "auto"/NULL with a
 * usable GPU). */
int srv_class_runs_queued(srv_class_runs *cr, const char *experiment, const char *backend);

/* Checks every limit of the session's learner (memory, GPU quota, its
 * place in the queue, runs per minute) and queues the run, charging the
 * quota with an estimate of its time. On success *out is
 * {"run":{"id","status","position","estimate_s"}}. On failure err is set and
 * *retry_after_s > 0 when the answer should carry Retry-After. */
int srv_class_runs_submit(srv_class_runs *cr, const srv_store_session *sess, const char *experiment,
                          const cJSON *params, cJSON **out, double *retry_after_s, lab_error *err);
/* The session's run with its live queue state merged in: position,
 * estimate_s and progress while queued or running; result (or error) once
 * finished. Another session's run → unknown_run. */
int srv_class_runs_get(srv_class_runs *cr, int64_t session_id, int64_t run_id, cJSON **out, lab_error *err);
/* Cancels a queued run of the session (not_cancellable once it started or
 * finished, unknown_run when not the session's). *out as for get. */
int srv_class_runs_cancel(srv_class_runs *cr, int64_t session_id, int64_t run_id, cJSON **out, lab_error *err);

/* Worker restarts summed over every GPU's supervisor (a shared store's
 * workers included). */
int srv_class_runs_restarts(srv_class_runs *cr);
/* Runs waiting and running now. */
int srv_class_runs_waiting(srv_class_runs *cr);
int srv_class_runs_running(srv_class_runs *cr);
/* [{"id","session_id","experiment","status","position","estimate_s"}], running first. */
cJSON *srv_class_runs_queue_json(srv_class_runs *cr);

/* A shared store's GPU workers as last seen (store.h: workers_list; caller
 * owns), or NULL for the in-process queue; and how many are alive with a
 * usable GPU, those that take runs (-1 in-process). */
cJSON *srv_class_runs_workers(srv_class_runs *cr);
int srv_class_runs_workers_alive(srv_class_runs *cr);
/* A shared store's workers alive without a usable GPU (0 otherwise). */
int srv_class_runs_workers_unusable(srv_class_runs *cr);
/* 0 when a shared store did not answer the last look; 1 otherwise. */
int srv_class_runs_store_ok(srv_class_runs *cr);

#endif
