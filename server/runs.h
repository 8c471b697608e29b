/* Class-mode GPU runs: submit (limits, store, queue → 202), execute on a
 * GPU slot through its supervised worker (store, metrics), look up and
 * cancel, and recover after a restart (queued runs requeued, running ones
 * failed as worker_crashed). Simulated runs do not come here. */
#ifndef SRV_RUNS_H
#define SRV_RUNS_H

#include <stdint.h>

#include "config.h"
#include "error.h"
#include "run_limits.h"
#include "queue.h"
#include "runner.h"
#include "store.h"

typedef struct srv_class_runs {
  srv_queue *queue;
  long runs_per_minute; /* per learner (learner.h) */
  srv_store *store;   /* not owned */
  srv_runner *runner; /* its supervisor runs GPU slot 0 */
  srv_supervisor *sup[SRV_MAX_GPUS]; /* [0] is the runner's (not owned) */
  int slots;
  double deadline_s, gpu_seconds, max_gpu_mem_gib;
} srv_class_runs;

/* Sets up limits, the queue and one supervisor per configured GPU (each
 * worker pinned with CUDA_VISIBLE_DEVICES), requeues or fails the runs a
 * previous server left unfinished, then starts one worker thread per GPU.
 * Returns 0, or -1 with err set (msg for the operator). */
int srv_class_runs_start(srv_class_runs *cr, const srv_class_config *cfg, srv_store *store, srv_runner *runner,
                         lab_error *err);
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

/* Worker restarts summed over every GPU's supervisor. */
int srv_class_runs_restarts(srv_class_runs *cr);

#endif
