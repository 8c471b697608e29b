/* The trace file of a run's answer over HTTP (docs/trace.md): POST
 * /api/experiments/NAME?trace=1 and, in class mode, GET /api/runs/ID?trace=1
 * answer the Chrome trace of the result instead of its envelope. */
#ifndef SRV_API_TRACE_H
#define SRV_API_TRACE_H

#include "cjson_compat.h"

struct mg_connection;

/* Whether the request's query asks for the trace (trace=1). */
int srv_api_wants_trace(const struct mg_connection *conn);
/* Sends 200 with the trace of envelope env (an attachment named after the
 * experiment), or the error when env is no envelope. Returns the status. */
int srv_api_send_trace(struct mg_connection *conn, const cJSON *env);

#endif
