/* A shared store's GPU workers (store.h: workers_list) as the API shows
 * them: GET /api/health and /api/device list the live ones and their
 * devices, GET /api/instructor/class all those seen in the last hour. */
#ifndef SRV_WORKERS_JSON_H
#define SRV_WORKERS_JSON_H

#include "error.h"

/* [{"id","kind","host","pid","gpu","cuda_visible_devices","slurm_job_id",
 * "devices":["NVIDIA H100 …"],"state","alive","heartbeat_age_s","run_id",
 * "runs_done","restarts","started_at","usable","unusable_reason",
 * "runs_failed","gpu_memory_total_bytes","gpu_memory_used_bytes"}] of list
 * (the full device views left out); alive_only keeps the live ones (usable
 * or not). Caller owns; NULL when out of memory. */
cJSON *srv_workers_brief(const cJSON *list, int alive_only);
/* The device view (lab_device_json) a live worker that takes runs
 * reported, one whose verdict is usable first; a copy the caller owns, or
 * NULL when none. */
cJSON *srv_workers_device(const cJSON *list);
/* Why a live worker takes no runs (the first such one's reason; in list),
 * or NULL when every live worker is usable. */
const char *srv_workers_unusable_reason(const cJSON *list);

#endif
