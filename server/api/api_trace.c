/* ?trace=1 on a run's answer: the result as a Chrome Trace Event Format file
 * (lab/trace/trace_export.c) that ui.perfetto.dev and chrome://tracing open. */
#include "api_trace.h"

#include <civetweb.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "http.h"
#include "runner.h"
#include "trace_export.h"

int srv_api_wants_trace(const struct mg_connection *conn) {
  const char *q = mg_get_request_info(conn)->query_string;
  char v[8];
  return q && mg_get_var(q, strlen(q), "trace", v, sizeof v) > 0 && strcmp(v, "1") == 0;
}

int srv_api_send_trace(struct mg_connection *conn, const cJSON *env) {
  lab_error err = {0};
  char date[32], extra[160];
  time_t now = time(NULL);
  struct tm tm;
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
  cJSON *trace = lab_trace_from_envelope(env, GPULAB_VERSION, date, &err);
  if (!trace) return srv_send_error(conn, &err);
  const cJSON *exp = cJSON_GetObjectItemCaseSensitive(env, "experiment");
  /* The name is a registry name (letters, digits, _), safe in a header. */
  snprintf(extra, sizeof extra, "Content-Disposition: attachment; filename=\"gpulab-%.40s.trace.json\"\r\n",
           cJSON_IsString(exp) ? exp->valuestring : "run");
  int rc = srv_send_json_with(conn, 200, trace, extra);
  cJSON_Delete(trace);
  return rc;
}
