/* runs_shared.c: the shared store's side of class-mode GPU runs (runs.h),
 * called by runs.c when cr->view is set; not for other callers. */
#ifndef SRV_RUNS_SHARED_H
#define SRV_RUNS_SHARED_H

#include <stdint.h>

#include "config.h"
#include "error.h"
#include "runs_state.h"
#include "workers_spec.h"

int srv_runs_shared_start(srv_class_runs *cr, const srv_class_config *cfg, const srv_workers_spec *workers,
                          lab_error *err);
void srv_runs_shared_halt(srv_class_runs *cr);
int srv_runs_shared_queued(srv_class_runs *cr, const char *backend);
int srv_runs_shared_enqueue(srv_class_runs *cr, const srv_store_session *sess, const char *experiment,
                            const char *params_text, double reserve_ms, int64_t *run_id, double *retry_after_s,
                            lab_error *err);
void srv_runs_shared_status(srv_class_runs *cr, int64_t run_id, const char *stored_status, srv_queue_status *st);

#endif
