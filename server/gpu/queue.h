/* The class's GPU queue: runs wait here until a GPU is free, fair across
 * learners (round-robin between learners with waiting runs, first come
 * first served inside one learner), so one learner clicking fast — or
 * joining many times — cannot starve the class. A learner may have only a
 * few runs in it, and a learner's first run is always taken, however full
 * the queue is: there is room for everyone who is not yet waiting. One worker thread per GPU drains it through an exec callback; the
 * queue also answers position, an estimate from recent run times per
 * experiment, and cancels a run that has not started. */
#ifndef SRV_QUEUE_H
#define SRV_QUEUE_H

#include <stdint.h>

#include "error.h"

typedef struct srv_queue srv_queue;

typedef struct srv_queue_job {
  int64_t run_id, session_id, learner_id;
  char experiment[32];
  cJSON *params; /* owned by the job */
  double queued_at_s;  /* monotonic clock */
  double started_at_s; /* 0 while waiting */
  int gpu_slot;        /* which worker runs it (index into the GPU list), -1 while waiting */
} srv_queue_job;

typedef enum srv_queue_state { SRV_Q_UNKNOWN, SRV_Q_QUEUED, SRV_Q_RUNNING } srv_queue_state;

typedef struct srv_queue_status {
  srv_queue_state state;
  int64_t session_id;
  int position;      /* 1 = next to start; 0 while running */
  double estimate_s; /* seconds until the result is expected (wait + run) */
  double elapsed_s;  /* running: seconds since it started */
  double run_estimate_s; /* this experiment's typical run time */
  int no_worker;         /* queued on a shared store with no usable GPU worker alive: no estimate holds */
} srv_queue_status;

/* Runs one job on GPU slot `slot`; the queue measures its wall time and
 * frees the job afterwards. Called on the slot's own worker thread. */
typedef void (*srv_queue_exec_fn)(void *ctx, int slot, srv_queue_job *job);

/* max_len: waiting runs allowed (queue_full past it, except for a
 * learner's first run). NULL when out of memory. */
srv_queue *srv_queue_new(int max_len);
/* Runs one learner may have queued or running at once (too_many_queued
 * past it); 0, the default, sets no bound. */
void srv_queue_set_learner_cap(srv_queue *q, int runs);
/* Stops taking jobs, gives running ones grace_s to finish, then calls
 * abort_fn(ctx) (which must make them return, e.g. kill their worker
 * processes) and joins the threads. Waiting jobs stay queued (and stored:
 * the next start requeues them). Safe to call twice. */
void srv_queue_stop(srv_queue *q, double grace_s, void (*abort_fn)(void *ctx));
/* Waits s seconds, or less when the queue stops: 1 when it is stopping
 * (a run waiting for the store to record it gives up then), else 0. */
int srv_queue_pause(srv_queue *q, double s);
/* Stops (no grace) if needed and frees the queue and any waiting jobs. */
void srv_queue_free(srv_queue *q);

/* Starts one worker thread per GPU slot. Returns 0, or -1. */
int srv_queue_start(srv_queue *q, int slots, srv_queue_exec_fn exec, void *ctx);

/* Queues a run (takes params, even on failure) when srv_queue_full would
 * allow it, checked atomically with the push. */
int srv_queue_push(srv_queue *q, int64_t run_id, int64_t session_id, int64_t learner_id, const char *experiment,
                   cJSON *params, double *retry_after_s, lab_error *err);
/* 0 when a run of this learner can be queued now; else -1 with
 * too_many_queued (the learner's cap) or queue_full (the queue is at
 * max_len and the learner already waits), and *retry_after_s says when a
 * place is expected to free up. */
int srv_queue_full(srv_queue *q, int64_t learner_id, double *retry_after_s, lab_error *err);
/* Runs of this learner queued or running now. */
int srv_queue_learner_runs(srv_queue *q, int64_t learner_id);
/* Removes a waiting run of that session: 1 removed, 0 running (not
 * cancellable), -1 not in the queue (or another session's). */
int srv_queue_cancel(srv_queue *q, int64_t run_id, int64_t session_id);
/* The state of a run still in the queue or running (SRV_Q_UNKNOWN otherwise). */
void srv_queue_status_of(srv_queue *q, int64_t run_id, srv_queue_status *st);

/* Takes the next job fairly (blocks while none; NULL once stopping) and
 * marks it running on `slot`. Workers call it; tests drive it directly. */
srv_queue_job *srv_queue_take(srv_queue *q, int slot, int block);
/* Records a finished job's run time for the estimates and frees it. */
void srv_queue_done(srv_queue *q, srv_queue_job *job, double run_s);

int srv_queue_waiting(srv_queue *q);
int srv_queue_running(srv_queue *q);
/* The typical run time of an experiment: mean of its recent runs, else of
 * all recent runs, else a default of 5 s. */
double srv_queue_run_estimate(srv_queue *q, const char *experiment);
/* [{"id","session_id","experiment","status","position","estimate_s"}…] in
 * start order, running first. Caller owns. */
cJSON *srv_queue_json(srv_queue *q);
/* One entry of that list (the shared queue's view builds the same). */
cJSON *srv_queue_entry_json(int64_t run_id, int64_t session_id, const char *experiment, const char *status,
                            int position, double estimate_s);

/* Marks a queued run's JSON (an entry or a run) as waiting for a GPU
 * worker: estimate_s null, "note" SRV_NO_WORKER_NOTE. */
#define SRV_NO_WORKER_NOTE "no GPU worker is running: the run waits until one starts (no estimate until then)"
void srv_queue_status_no_worker(cJSON *o);

#endif
