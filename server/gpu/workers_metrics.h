/* A shared store's GPU workers (store.h: workers_list) as Prometheus
 * series for the server's GET /metrics: one set per worker seen in the
 * last hour, labelled by its id. */
#ifndef SRV_WORKERS_METRICS_H
#define SRV_WORKERS_METRICS_H

#include "error.h"

/* The HELP/TYPE lines and series gpulab_worker_usable{worker,host,kind,
 * reason} (1 when it takes runs; 0 with the reason otherwise, "gone" for a
 * worker no longer alive), gpulab_worker_runs_total,
 * gpulab_worker_failures_total, gpulab_worker_gpu_memory_total_bytes and
 * _used_bytes (only where known) and gpulab_worker_last_seen_seconds (its
 * heartbeat's age). malloc'd text the caller frees; NULL when out of memory. */
char *srv_workers_metrics(const cJSON *list);

#endif
