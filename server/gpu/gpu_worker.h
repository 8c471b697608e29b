/* A GPU worker of a shared store's queue (store.h): registered with a
 * heartbeat, it claims runs fairly, runs each through its supervised GPU
 * process (supervisor.h: deadline, crash isolation, restart after a sticky
 * error) and stores the result. `gpulab worker` runs one; a server started
 * with --workers local runs one per configured GPU. */
#ifndef SRV_GPU_WORKER_H
#define SRV_GPU_WORKER_H

#include <stdint.h>

#include "store.h"
#include "runner.h"
#include "supervisor.h"

typedef struct srv_gpu_worker srv_gpu_worker;

typedef struct srv_gpu_worker_opts {
  srv_store *store;     /* a shared one; not owned */
  srv_supervisor *sup;  /* the GPU process runs go to; not owned */
  srv_runner *runner;   /* its device checks (sup's views); NULL: taken as usable (checked by its server) */
  srv_store_worker who; /* as it registers (kind, host, gpu, device view…) */
  double deadline_s;    /* per run (the class's limits.deadline_s) */
  /* The deadline now, asked as each claimed run starts, so a change of the
   * class's setting reaches the runs claimed after it (a run keeps the one
   * it started with); NULL: deadline_s always. Called on the claim loop's
   * thread. */
  double (*deadline_now)(void *arg);
  void *deadline_arg;
} srv_gpu_worker_opts;

/* Checks its GPU, registers the worker with what it found and starts its
 * claim loop and heartbeat (threads). A worker whose GPU is not usable
 * takes no runs; it checks again after 5 s, then twice as long each time
 * up to a minute (a driver can come back). A run that fails because of
 * the worker (worker_health.h) is handed back to the queue for another
 * worker (once: failed the second time), never charged; after 3 such in
 * a row the worker takes itself for unusable and checks again later.
 * Returns 0, or -1 with err (nothing started). */
int srv_gpu_worker_start(const srv_gpu_worker_opts *o, srv_gpu_worker **out, lab_error *err);
/* Stops taking runs; a run in progress gets grace_s to finish, then its GPU
 * process is killed and the run handed back to the queue (failed with
 * worker_crashed if it had been handed back before): never lost. Then
 * signs off and frees the worker. NULL is allowed. */
void srv_gpu_worker_stop(srv_gpu_worker *w, double grace_s);
int64_t srv_gpu_worker_id(const srv_gpu_worker *w);

/* The device CUDA_VISIBLE_DEVICES names at index gpu ("2", "GPU-…"), or
 * the index itself when it is unset; -1 when gpu is past its end. */
int srv_gpu_visible_device(const char *cuda_visible_devices, int gpu, char *out, size_t n);

#endif
