/* Class-mode GPU runs over HTTP: the 202 branch of POST
 * /api/experiments/NAME, and GET and DELETE /api/runs/ID. */
#ifndef SRV_API_RUNS_H
#define SRV_API_RUNS_H

#include <stdint.h>

#include "api.h"
#include "store.h"

/* For POST /api/experiments/NAME in class mode, after the session check:
 * when this run goes through the GPU queue (runs.h: srv_class_runs_queued)
 * it answers 202 {"run":{…}} or the limit's error and returns 1 with
 * *status set; returns 0 (nothing sent) when the run is not for the queue
 * (simulated, no GPU side, no usable GPU). */
int srv_api_runs_submit(struct mg_connection *conn, srv_app *app, const srv_store_session *sess,
                        const char *experiment, const cJSON *params, const char *backend, int *status);

#endif
