/* JSON answers, error envelopes and body reading for every handler.
 * CivetWeb's max_request_size bounds headers only, so bodies are bounded
 * here: Content-Length is checked before reading, chunked bodies while. */
#include "http.h"

#include <civetweb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cjson_compat.h"
#include "json.h"

const char srv_security_headers[] =
    "Cross-Origin-Opener-Policy: same-origin\r\n"
    "Cross-Origin-Embedder-Policy: require-corp\r\n"
    "Cross-Origin-Resource-Policy: same-origin\r\n"
    "X-Content-Type-Options: nosniff\r\n"
    "Referrer-Policy: no-referrer\r\n"
    "Content-Security-Policy: default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'\r\n";

static int send_text(struct mg_connection *conn, int status, const char *type, const char *body, size_t len,
                     const char *extra) {
  char length[32];
  snprintf(length, sizeof length, "%zu", len);
  mg_response_header_start(conn, status);
  mg_response_header_add(conn, "Content-Type", type, -1);
  mg_response_header_add(conn, "Content-Length", length, -1);
  mg_response_header_add(conn, "Cache-Control", "no-store", -1);
  mg_response_header_add_lines(conn, srv_security_headers);
  if (extra) mg_response_header_add_lines(conn, extra);
  mg_response_header_send(conn);
  const struct mg_request_info *ri = mg_get_request_info(conn);
  if (ri && ri->request_method && strcmp(ri->request_method, "HEAD") == 0) return status;
  mg_write(conn, body, len);
  return status;
}

static int send_json_extra(struct mg_connection *conn, int status, const cJSON *json, const char *extra) {
  char *text = json ? cJSON_PrintUnformatted(json) : NULL;
  if (!text) {
    static const char oom[] = "{\"error\":{\"code\":\"out_of_memory\",\"message\":\"The server ran out of memory.\"}}";
    return send_text(conn, 500, "application/json", oom, sizeof oom - 1, NULL);
  }
  int rc = send_text(conn, status, "application/json", text, strlen(text), extra);
  cJSON_free(text);
  return rc;
}

int srv_send_json(struct mg_connection *conn, int status, const cJSON *json) {
  return send_json_extra(conn, status, json, NULL);
}

int srv_send_error(struct mg_connection *conn, const lab_error *err) {
  cJSON *json = lab_error_json(err);
  const char *extra =
      err->code == LAB_E_BUSY || err->code == LAB_E_NO_GPU || err->code == LAB_E_STORE_BUSY ? "Retry-After: 5\r\n" : NULL;
  int rc = send_json_extra(conn, lab_err_http_status(err->code), json, extra);
  cJSON_Delete(json);
  return rc;
}

int srv_send_fail(struct mg_connection *conn, lab_err code, const char *param, const char *fmt, ...) {
  lab_error err;
  err.code = code;
  snprintf(err.param, sizeof err.param, "%s", param ? param : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err.message, sizeof err.message, fmt, ap);
  va_end(ap);
  return srv_send_error(conn, &err);
}

int srv_send_method_not_allowed(struct mg_connection *conn, const char *allow) {
  const struct mg_request_info *ri = mg_get_request_info(conn);
  lab_error err;
  lab_fail(&err, LAB_E_METHOD_NOT_ALLOWED, NULL, "%.16s is not allowed here; use %s", ri->request_method, allow);
  char extra[96];
  snprintf(extra, sizeof extra, "Allow: %s\r\n", allow);
  cJSON *json = lab_error_json(&err);
  int rc = send_json_extra(conn, 405, json, extra);
  cJSON_Delete(json);
  return rc;
}

int srv_method_ok(struct mg_connection *conn, const char *allowed) {
  const char *m = mg_get_request_info(conn)->request_method;
  size_t n = strlen(m);
  for (const char *p = allowed; (p = strstr(p, m)) != NULL; p += n)
    if ((p == allowed || p[-1] == ',') && (p[n] == ',' || p[n] == 0)) return 1;
  srv_send_method_not_allowed(conn, allowed);
  return 0;
}

cJSON *srv_parse_json(const char *text, size_t len) { return lab_json_parse(text, len, LAB_JSON_MAX_DEPTH, NULL); }

int srv_read_json_object(struct mg_connection *conn, size_t limit, const char *const fields[], int empty_ok,
                         const char *example, cJSON **out, lab_error *err) {
  char *text = NULL, known[160] = "";
  size_t len = 0, used = 0;
  *out = NULL;
  if (srv_read_body(conn, limit, 1, &text, &len, err) != 0) return -1;
  if (lab_json_depth(text, len, LAB_JSON_MAX_DEPTH) > LAB_JSON_MAX_DEPTH) {
    free(text);
    return lab_fail(err, LAB_E_INVALID_JSON, NULL, "the body nests deeper than %d levels; send one flat JSON object, e.g. %s",
                    LAB_JSON_MAX_DEPTH, example);
  }
  cJSON *body = len == 0 && empty_ok ? cJSON_CreateObject() : srv_parse_json(text, len);
  free(text);
  if (!cJSON_IsObject(body)) {
    cJSON_Delete(body);
    return lab_fail(err, LAB_E_INVALID_JSON, NULL, "the body must be one JSON object, e.g. %s", example);
  }
  for (int i = 0; fields[i] && used < sizeof known; i++)
    used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", fields[i]);
  for (const cJSON *it = body->child; it; it = it->next) {
    int ok = 0;
    for (int i = 0; fields[i] && !ok; i++) ok = strcmp(it->string, fields[i]) == 0;
    if (!ok) {
      lab_fail(err, LAB_E_INVALID_PARAM, it->string, "unknown field '%.40s'; the body takes %s", it->string, known);
      cJSON_Delete(body);
      return -1;
    }
  }
  *out = body;
  return 0;
}

int srv_read_body(struct mg_connection *conn, size_t limit, int want_json, char **out, size_t *len,
                  lab_error *err) {
  *out = NULL;
  *len = 0;
  const char *te = mg_get_header(conn, "Transfer-Encoding");
  const char *cl = mg_get_header(conn, "Content-Length");
  if (te && cl)
    return lab_fail(err, LAB_E_BAD_REQUEST, NULL,
                    "a request may not carry both Transfer-Encoding and Content-Length; send one of them");
  if (want_json) {
    const char *ct = mg_get_header(conn, "Content-Type");
    if (ct && strncasecmp(ct, "application/json", 16) != 0)
      return lab_fail(err, LAB_E_UNSUPPORTED_MEDIA, NULL, "the body must be application/json (got %.60s)", ct);
  }
  long long declared = mg_get_request_info(conn)->content_length;
  if (declared > (long long)limit)
    return lab_fail(err, LAB_E_BODY_TOO_LARGE, NULL, "the body is %lld bytes; the limit is %zu bytes", declared, limit);
  char *buf = malloc(limit + 1);
  if (!buf) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  size_t used = 0;
  for (;;) {
    /* Read one byte past the limit to tell "exactly at" from "over". */
    int got = mg_read(conn, buf + used, limit + 1 - used);
    if (got < 0) {
      free(buf);
      return lab_fail(err, LAB_E_BAD_REQUEST, NULL, "the request body could not be read; send it again");
    }
    if (got == 0) break;
    used += (size_t)got;
    if (used > limit) {
      free(buf);
      return lab_fail(err, LAB_E_BODY_TOO_LARGE, NULL, "the body is over the limit of %zu bytes", limit);
    }
  }
  buf[used] = 0;
  *out = buf;
  *len = used;
  return 0;
}
