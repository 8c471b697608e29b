/* What the worker can be asked to do: describe the runtime (the device
 * check's runtime view) or run one experiment on the GPU. With
 * GPULAB_TEST_HOOKS=1 it also crashes, hangs or fails stickily on request,
 * so the supervision can be tested without a GPU. */
#ifndef SRV_WORKER_JOBS_H
#define SRV_WORKER_JOBS_H

#include "error.h"
#include "params.h"

/* job: {"job":"runtime_view"} | {"job":"run","experiment":NAME,"params":{…}}
 * | {"job":"_crash"|"_hang"|"_sticky"} (test hooks). */
int srv_worker_job(const cJSON *job, cJSON **result, lab_error *err);
/* The worker's loop: reads jobs from stdin, answers on stdout. Returns the
 * process exit status (non-zero after a sticky CUDA error). */
int srv_worker_main(void);

#endif
