/* The state of class-mode GPU runs (runs.h): the queue behind them, the
 * supervisors and the limits they keep. A header of its own, so that
 * runs.c's shared-store side (runs_shared.h) reads it without including
 * runs.h, whose functions call that side. */
#ifndef SRV_RUNS_STATE_H
#define SRV_RUNS_STATE_H

#include "config.h"
#include "queue.h"
#include "runner.h"
#include "store.h"

struct srv_cluster_view;
struct srv_gpu_worker;
struct srv_slurm_workers;

typedef struct srv_class_runs {
  srv_queue *queue;                /* the in-process queue (SQLite); NULL with a shared store */
  struct srv_cluster_view *view;   /* the shared store's queue and workers; NULL in-process */
  struct srv_gpu_worker *local[SRV_MAX_GPUS]; /* --workers local with a shared store */
  int n_local;
  struct srv_slurm_workers *slurm; /* --workers slurm:N */
  long learner_cap, queue_max;     /* the shared queue's bounds (the in-process queue keeps its own) */
  long runs_per_minute; /* per learner (learner.h) */
  srv_store *store;   /* not owned */
  srv_runner *runner; /* its supervisor runs GPU slot 0 */
  srv_supervisor *sup[SRV_MAX_GPUS]; /* [0] is the runner's (not owned) */
  int slots;
  double deadline_s, gpu_seconds, max_gpu_mem_gib;
} srv_class_runs;

#endif
