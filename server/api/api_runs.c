/* /api/runs/ID (class mode): GET shows one of the caller's runs with its
 * queue position, estimate and progress, or its result; DELETE cancels it
 * while it waits; GET /api/runs/ID?trace=1 answers a finished run's trace. Another session's run is answered exactly like a missing
 * one (404 unknown_run), so ids reveal nothing. */
#include "api_runs.h"

#include <civetweb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_trace.h"
#include "cjson_compat.h"
#include "http.h"
#include "runs.h"
#include "session.h"

int srv_api_runs_submit(struct mg_connection *conn, srv_app *app, const srv_store_session *sess,
                        const char *experiment, const cJSON *params, const char *backend, int *status) {
  srv_class_runs *cr = app->cls ? app->cls->runs : NULL;
  if (!srv_class_runs_queued(cr, experiment, backend)) return 0;
  lab_error err = {0};
  cJSON *out = NULL;
  double retry = 0;
  if (srv_class_runs_submit(cr, sess, experiment, params, &out, &retry, &err) != 0) {
    *status = srv_send_error_retry(conn, &err, retry);
    return 1;
  }
  *status = srv_send_json(conn, 202, out);
  cJSON_Delete(out);
  return 1;
}

/* "/api/runs/123" → 123; 0 when not a positive decimal id. */
static int64_t run_id_of(const char *rest) {
  if (*rest != '/' || !rest[1] || strlen(rest + 1) > 18) return 0;
  int64_t id = 0;
  for (const char *p = rest + 1; *p; p++) {
    if (*p < '0' || *p > '9') return 0;
    id = id * 10 + (*p - '0');
  }
  return id;
}

int srv_api_runs(struct mg_connection *conn, void *cbdata) {
  srv_app *app = cbdata;
  const char *uri = mg_get_request_info(conn)->local_uri;
  srv_class_runs *cr = app->cls ? app->cls->runs : NULL;
  if (!cr)
    return srv_send_fail(conn, LAB_E_NOT_FOUND, NULL,
                         "runs are kept only in class mode (gpulab serve --class); this server answers runs at once");
  int64_t id = run_id_of(uri + strlen("/api/runs"));
  if (!srv_method_ok(conn, "GET,HEAD,DELETE")) return 405;
  lab_error err = {0};
  srv_store_session s;
  if (srv_session_require(conn, app->cls, &s, &err) != 0) return srv_send_error(conn, &err);
  if (id <= 0)
    return srv_send_fail(conn, LAB_E_UNKNOWN_RUN, "id", "a run is addressed as /api/runs/ID with a numeric id; "
                                                        "GET /api/session lists your runs");
  cJSON *out = NULL;
  int rc = strcmp(mg_get_request_info(conn)->request_method, "DELETE") == 0
               ? srv_class_runs_cancel(cr, s.id, id, &out, &err)
               : srv_class_runs_get(cr, s.id, id, &out, &err);
  if (rc != 0) return srv_send_error(conn, &err);
  const cJSON *result = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(out, "run"), "result");
  if (!result) result = cJSON_GetObjectItemCaseSensitive(out, "result");
  if (srv_api_wants_trace(conn) && strcmp(mg_get_request_info(conn)->request_method, "DELETE") != 0) {
    /* ?trace=1: a finished run's result as a trace file (docs/trace.md). */
    if (cJSON_IsObject(result)) rc = srv_api_send_trace(conn, result);
    else
      rc = srv_send_fail(conn, LAB_E_BAD_REQUEST, "trace", "run %lld has no result yet: its trace comes once it is done",
                         (long long)id);
    cJSON_Delete(out);
    return rc;
  }
  rc = srv_send_json(conn, 200, out);
  cJSON_Delete(out);
  return rc;
}
