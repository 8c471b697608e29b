/* A cluster worker's device check and its failures' blame (see
 * worker_health.h). The check is the same verdict GET /api/device shows,
 * read through the worker's own GPU process. */
#include "worker_health.h"

#include <stdio.h>
#include <string.h>

int srv_worker_fault(lab_err code) {
  switch (code) {
    case LAB_E_NO_GPU:
    case LAB_E_WORKER_CRASHED:
    case LAB_E_CUDA:
    case LAB_E_GPU_ARCH:
    case LAB_E_DEVICE_CHECK_TIMEOUT: return 1;
    default: return 0;
  }
}

void srv_worker_check(srv_runner *r, srv_store_worker_health *h) {
  memset(h, 0, sizeof *h);
  h->mem_total_bytes = h->mem_used_bytes = -1;
  if (!r) {
    h->usable = 1;
    return;
  }
  lab_driver_view drv;
  lab_runtime_view rt;
  lab_verdict v;
  srv_runner_views(r, &drv, &rt);
  lab_device_verdict(&drv, &rt, &v);
  h->usable = v.usable;
  if (!v.usable) snprintf(h->reason, sizeof h->reason, "%s", v.summary);
  if (rt.status == LAB_RT_OK && rt.device_count > 0) {
    h->mem_total_bytes = (double)rt.dev[0].mem_total_bytes;
    if (rt.dev[0].mem_free_known) h->mem_used_bytes = (double)(rt.dev[0].mem_total_bytes - rt.dev[0].mem_free_bytes);
  }
}
