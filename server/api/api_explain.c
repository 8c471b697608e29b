/* POST /api/explain: the explainer (lab/explain/explain.h) on a text/plain body of
 * at most 256 KiB. The text is read, explained and dropped: never stored,
 * never logged. Answers the same envelope as `gpulab explain --json`. */
#include <civetweb.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api.h"
#include "cjson_compat.h"
#include "explain.h"
#include "http.h"

int srv_api_explain(struct mg_connection *conn, void *cbdata) {
  (void)cbdata;
  if (!srv_method_ok(conn, "POST")) return 405;
  const char *ct = mg_get_header(conn, "Content-Type");
  if (ct && strncasecmp(ct, "text/plain", 10) != 0)
    return srv_send_fail(conn, LAB_E_UNSUPPORTED_MEDIA, NULL, "send the text as text/plain (got %.60s)", ct);
  char *body = NULL;
  size_t len = 0;
  lab_error err = {0};
  if (srv_read_body(conn, LAB_EXPLAIN_MAX_BYTES, 0, &body, &len, &err) != 0) {
    if (err.code == LAB_E_BODY_TOO_LARGE) lab_fail(&err, LAB_E_EXPLAIN_TOO_LARGE, NULL, NULL);
    return srv_send_error(conn, &err);
  }
  cJSON *env = lab_explain(body, len, &err);
  free(body);
  if (!env) return srv_send_error(conn, &err);
  int rc = srv_send_json(conn, 200, env);
  cJSON_Delete(env);
  return rc;
}
