/* What a cluster worker (gpu_worker.h) can do, as opposed to whether it is
 * alive: its device check, turned into the health it registers, and which
 * run failures are the worker's fault (its GPU, its process) rather than
 * the learner's (parameters, sizes that do not fit). */
#ifndef SRV_WORKER_HEALTH_H
#define SRV_WORKER_HEALTH_H

#include "error.h"
#include "runner.h"
#include "store.h"

/* 1 when a run that failed with code failed because of the worker that ran
 * it (no_gpu, worker_crashed, cuda_error, gpu_arch_unsupported,
 * device_check_timeout): another worker may well run it. A deadline, a GPU
 * out of memory or a failed CUDA call are the run's own. */
int srv_worker_fault(lab_err code);

/* The runner's device views now (its GPU process answers; views younger
 * than a second are reused) as a health: usable or not with the verdict's
 * summary, and the first device's memory (-1 when not read). A NULL runner
 * (its server checked the GPU before starting it) is usable. */
void srv_worker_check(srv_runner *r, srv_store_worker_health *h);

#endif
