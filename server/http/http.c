/* JSON answers, error envelopes and body reading for every handler.
 * CivetWeb's max_request_size bounds headers only, so bodies are bounded
 * here: Content-Length is checked before reading, chunked bodies while. */
#include "http.h"

#include <civetweb.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cjson_compat.h"
#include "client_addr.h"
#include "csp.h"
#include "clock.h"
#include "conn_limit.h"
#include "conn_socket.h"
#include "gzip_body.h"
#include "json.h"
#include "request_id.h"
#include "utf8.h"

/* Over TLS (here, or ended by a trusted proxy: srv_request_https) every answer also asks the browser to use HTTPS from now on:
 * the sessions' cookies are Secure, and HSTS keeps a later visit from
 * starting in plain HTTP where it could be intercepted. */
#define HSTS_LINE "Strict-Transport-Security: max-age=31536000\r\n"

/* Whether this thread's connection has been answered (one request per
 * connection: keep-alive is off), and who is told when it is. */
static _Thread_local int answered;
static void (*on_answer)(const struct mg_connection *conn);

void srv_http_on_answer(void (*fn)(const struct mg_connection *conn)) { on_answer = fn; }

void srv_http_answer_reset(void) { answered = 0; }

int srv_http_answered(void) { return answered; }

void srv_http_answering(const struct mg_connection *conn) {
  if (answered) return;
  answered = 1;
  if (on_answer) on_answer(conn);
}

void srv_add_page_headers(struct mg_connection *conn, const char *csp_line) {
  /* Every answer's headers pass here before a byte goes out: a client that
   * has the whole answer may open its next connection at once, and this
   * one (closing) must not count against its address by then. */
  srv_http_answering(conn);
  if (csp_line) {
    mg_response_header_add_lines(conn, srv_security_lines_but_csp());
    mg_response_header_add_lines(conn, csp_line);
  } else {
    mg_response_header_add_lines(conn, srv_security_header_lines());
  }
  if (srv_request_https(conn)) mg_response_header_add_lines(conn, HSTS_LINE);
  char id[SRV_REQUEST_ID_MAX + 32];
  srv_request_id_header(id, sizeof id);
  if (id[0]) mg_response_header_add_lines(conn, id);
}

void srv_add_common_headers(struct mg_connection *conn) { srv_add_page_headers(conn, NULL); }

/* An answer of SRV_GZIP_MIN_BYTES or more goes gzipped to a client that
 * accepts it (a browser always does): /api/profiles is 80 KB as text. It
 * then varies on Accept-Encoding either way, so a cache keeps both forms. */
static int send_text(struct mg_connection *conn, int status, const char *type, const char *body, size_t len,
                     const char *extra) {
  char length[32], *packed = NULL;
  size_t packed_len = 0;
  bool big = len >= SRV_GZIP_MIN_BYTES;
  if (big && srv_accepts_coding(mg_get_header(conn, "Accept-Encoding"), "gzip") &&
      srv_gzip(body, len, &packed, &packed_len) == 0) {
    body = packed;
    len = packed_len;
  }
  snprintf(length, sizeof length, "%zu", len);
  mg_response_header_start(conn, status);
  mg_response_header_add(conn, "Content-Type", type, -1);
  mg_response_header_add(conn, "Content-Length", length, -1);
  mg_response_header_add(conn, "Cache-Control", "no-store", -1);
  if (packed) mg_response_header_add(conn, "Content-Encoding", "gzip", -1);
  if (big) mg_response_header_add(conn, "Vary", "Accept-Encoding", -1);
  srv_add_common_headers(conn);
  if (extra) mg_response_header_add_lines(conn, extra);
  mg_response_header_send(conn);
  const struct mg_request_info *ri = mg_get_request_info(conn);
  if (!(ri && ri->request_method && strcmp(ri->request_method, "HEAD") == 0)) mg_write(conn, body, len);
  free(packed);
  return status;
}

int srv_send_raw_error(struct mg_connection *conn, lab_err code, const char *message) {
  srv_http_answering(conn);
  lab_error err;
  lab_fail(&err, code, NULL, "%s", message);
  cJSON *json = lab_error_json(&err);
  char *body = json ? cJSON_PrintUnformatted(json) : NULL;
  cJSON_Delete(json);
  int status = lab_err_http_status(code);
  const struct mg_request_info *ri = mg_get_request_info(conn);
  const char *text = mg_get_response_code_text(conn, status);
  char id[SRV_REQUEST_ID_MAX + 32];
  srv_request_id_header(id, sizeof id);
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\nCache-Control: "
            "no-store\r\nConnection: close\r\n%s%s%s\r\n",
            status, text ? text : "Error", body ? strlen(body) : 0, srv_security_header_lines(),
            srv_request_https(conn) ? HSTS_LINE : "", id);
  if (body && !(ri && ri->request_method && strcmp(ri->request_method, "HEAD") == 0)) mg_write(conn, body, strlen(body));
  cJSON_free(body);
  return status;
}

int srv_send_json_with(struct mg_connection *conn, int status, const cJSON *json, const char *extra) {
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
  return srv_send_json_with(conn, status, json, NULL);
}

/* Seconds to send as Retry-After when the caller has no figure of its own. */
static double default_retry_s(lab_err code) {
  if (code == LAB_E_BUSY || code == LAB_E_NO_GPU || code == LAB_E_STORE_BUSY) return 5;
  if (code == LAB_E_TOO_MANY_CONNECTIONS) return SRV_CONN_RETRY_S;
  if (lab_err_http_status(code) == 429) return 60; /* every 429 says when to come back */
  return 0;
}

int srv_send_error_retry(struct mg_connection *conn, const lab_error *err, double retry_after_s) {
  /* Nobody is there to read it: nothing is written (CivetWeb knows no
   * 499 either), and the status is only the log's and /metrics'. */
  if (err->code == LAB_E_CLIENT_GONE) {
    srv_http_answering(conn);
    return lab_err_http_status(err->code);
  }
  if (retry_after_s <= 0) retry_after_s = default_retry_s(err->code);
  char extra[48] = "";
  if (retry_after_s > 0)
    snprintf(extra, sizeof extra, "Retry-After: %.0f\r\n", ceil(retry_after_s < 1 ? 1 : retry_after_s));
  cJSON *json = lab_error_json(err);
  int rc = srv_send_json_with(conn, lab_err_http_status(err->code), json, extra[0] ? extra : NULL);
  cJSON_Delete(json);
  return rc;
}

int srv_send_error(struct mg_connection *conn, const lab_error *err) { return srv_send_error_retry(conn, err, 0); }

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
  int rc = srv_send_json_with(conn, 405, json, extra);
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

int srv_json_object_parse(const char *text, size_t len, const char *const fields[], int empty_ok,
                          const char *example, cJSON **out, lab_error *err) {
  char known[160] = "";
  size_t used = 0, bad = 0;
  *out = NULL;
  if (lab_json_depth(text, len, LAB_JSON_MAX_DEPTH) > LAB_JSON_MAX_DEPTH)
    return lab_fail(err, LAB_E_INVALID_JSON, NULL, "the body nests deeper than %d levels; send one flat JSON object, e.g. %s",
                    LAB_JSON_MAX_DEPTH, example);
  if (!lab_utf8_valid(text, len, &bad))
    return lab_fail(err, LAB_E_INVALID_JSON, NULL, "the body is not UTF-8 (byte %zu); send it as UTF-8 JSON, e.g. %s",
                    bad, example);
  if ((bad = lab_json_nul_escape(text, len)) < len)
    return lab_fail(err, LAB_E_INVALID_JSON, NULL, "a string of the body holds \\u0000 (byte %zu), which no name "
                    "or value here may; send it without, e.g. %s", bad, example);
  cJSON *body = len == 0 && empty_ok ? cJSON_CreateObject() : srv_parse_json(text, len);
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

int srv_read_json_object(struct mg_connection *conn, size_t limit, const char *const fields[], int empty_ok,
                         const char *example, cJSON **out, lab_error *err) {
  char *text = NULL;
  size_t len = 0;
  *out = NULL;
  if (srv_read_body(conn, limit, 1, &text, &len, err) != 0) return -1;
  int rc = srv_json_object_parse(text, len, fields, empty_ok, example, out, err);
  free(text);
  return rc;
}

/* "application/json", alone or with parameters ("; charset=utf-8"). */
static int is_json_type(const char *ct) {
  if (!ct || strncasecmp(ct, "application/json", 16) != 0) return 0;
  const char *rest = ct + 16;
  while (*rest == ' ' || *rest == '\t') rest++;
  return *rest == 0 || *rest == ';';
}

/* A body may take BODY_GRACE_S, plus a second per BODY_MIN_RATE bytes: a
 * minimum transfer rate, not only an idle timeout, so a client dribbling
 * one byte a second is cut off instead of holding its thread for hours. */
#define BODY_GRACE_S 5.0
#define BODY_MIN_RATE 1024.0 /* bytes per second */

/* CivetWeb's mg_read returns only once it has every byte asked for, or
 * after SRV_READ_TIMEOUT_MS without a byte: a client sending one byte
 * every few seconds is never silent that long. So, unless the kernel
 * already holds more (srv_conn_waiting_bytes: those come at once), a read
 * asks for no more bytes than such a client must deliver within the time
 * it has left, and the rate is checked between reads; what came with the
 * headers is buffered and costs no wait at all. Chunked bodies always ask
 * the small amount: their framing is not counted in the bytes decoded. */
static size_t next_read(const srv_body *b, size_t room, double left_s) {
  double n = left_s / (SRV_READ_TIMEOUT_MS / 1000.0);
  size_t k = n >= 1 ? (size_t)n : 1;
  if (b->declared >= 0) {
    size_t waiting = (size_t)srv_conn_waiting_bytes(b->conn);
    if (waiting > k) k = waiting;
  }
  return k < room ? k : room;
}

int srv_body_open(srv_body *b, struct mg_connection *conn, size_t limit, int want_json, double deadline_s,
                  lab_error *err) {
  memset(b, 0, sizeof *b);
  b->conn = conn;
  b->limit = limit;
  b->t0 = lab_clock_s();
  b->until_s = deadline_s > 0 ? b->t0 + deadline_s : 0;
  const char *te = mg_get_header(conn, "Transfer-Encoding");
  const char *cl = mg_get_header(conn, "Content-Length");
  if (te && cl)
    return lab_fail(err, LAB_E_BAD_REQUEST, NULL,
                    "a request may not carry both Transfer-Encoding and Content-Length; send one of them");
  /* Without this check any web page could post a "simple" cross-origin
   * request (text/plain, or no body type at all) that needs no preflight.
   * A request without a body (no length, or 0) sends no body type. */
  const char *ct = mg_get_header(conn, "Content-Type");
  b->declared = mg_get_request_info(conn)->content_length;
  if (want_json && (b->declared > 0 || te) && !is_json_type(ct))
    return ct ? lab_fail(err, LAB_E_UNSUPPORTED_MEDIA, NULL, "the body must be application/json (got %.60s)", ct)
              : lab_fail(err, LAB_E_UNSUPPORTED_MEDIA, NULL,
                         "a JSON body needs the header Content-Type: application/json");
  if (b->declared > (long long)limit)
    return lab_fail(err, LAB_E_BODY_TOO_LARGE, NULL, "the body is %lld bytes; the limit is %zu bytes", b->declared,
                    limit);
  return 0;
}

long srv_body_read(srv_body *b, char *buf, size_t cap, lab_error *err) {
  if (b->ended || cap == 0) return 0;
  if (!b->asked) {
    b->asked = 1;
    const char *expect = mg_get_header(b->conn, "Expect");
    if (expect && strcasecmp(expect, "100-continue") == 0)
      srv_conn_send_interim(b->conn, "HTTP/1.1 100 Continue\r\n\r\n");
  }
  double now = lab_clock_s();
  double left = BODY_GRACE_S + (double)b->used / BODY_MIN_RATE - (now - b->t0);
  if (b->until_s > 0 && b->until_s - now < left) {
    if (b->until_s <= now)
      return lab_fail(err, LAB_E_REQUEST_TIMEOUT, NULL,
                      "the body did not arrive within %.0f s (%zu bytes came); this route takes a whole body in that "
                      "time",
                      b->until_s - b->t0, b->used);
    left = b->until_s - now;
  }
  if (left < 0)
    return lab_fail(err, LAB_E_REQUEST_TIMEOUT, NULL,
                    "the body arrived too slowly (%zu bytes in %.0f s); send it at once, at %.0f bytes per second "
                    "or faster",
                    b->used, now - b->t0, BODY_MIN_RATE);
  /* Up to one byte past the limit, to tell "exactly at" from "over". */
  size_t room = b->limit + 1 - b->used;
  int got = mg_read(b->conn, buf, next_read(b, cap < room ? cap : room, left));
  if (got < 0) return lab_fail(err, LAB_E_BAD_REQUEST, NULL, "the request body could not be read; send it again");
  if (got == 0) {
    b->ended = 1;
    /* CivetWeb's read gives up after request_timeout_ms of silence and
     * reports the end: a body shorter than announced is not a whole request. */
    if (b->declared >= 0 && (long long)b->used < b->declared)
      return lab_fail(err, LAB_E_BAD_REQUEST, NULL,
                      "the body ended after %zu of the %lld bytes its Content-Length announced; send the whole body",
                      b->used, b->declared);
    return 0;
  }
  b->used += (size_t)got;
  if (b->used > b->limit)
    return lab_fail(err, LAB_E_BODY_TOO_LARGE, NULL, "the body is over the limit of %zu bytes", b->limit);
  return got;
}

long srv_body_fill(srv_body *b, char *buf, size_t cap, lab_error *err) {
  size_t have = 0;
  while (have < cap) {
    long got = srv_body_read(b, buf + have, cap - have, err);
    if (got < 0) return -1;
    if (got == 0) break;
    have += (size_t)got;
  }
  return (long)have;
}

/* The buffer starts small and doubles as the body arrives: memory follows
 * what came, not what Content-Length promised. */
#define BODY_FIRST_BYTES 4096

int srv_body_read_all(srv_body *b, char **out, size_t *len, lab_error *err) {
  *out = NULL;
  *len = 0;
  size_t cap = BODY_FIRST_BYTES < b->limit + 1 ? BODY_FIRST_BYTES : b->limit + 1;
  char *buf = malloc(cap + 1);
  for (;;) {
    if (!buf) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    if (srv_body_fill(b, buf + b->used, cap - b->used, err) < 0) {
      free(buf);
      return -1;
    }
    /* full and not over the limit (srv_body_read fails past it): more may come */
    if (b->ended || b->used < cap || cap > b->limit) break;
    size_t grown = cap * 2 < b->limit + 1 ? cap * 2 : b->limit + 1;
    char *more = realloc(buf, grown + 1);
    if (!more) free(buf);
    buf = more;
    cap = grown;
  }
  buf[b->used] = 0;
  *out = buf;
  *len = b->used;
  return 0;
}

int srv_read_body(struct mg_connection *conn, size_t limit, int want_json, char **out, size_t *len,
                  lab_error *err) {
  srv_body b;
  *out = NULL;
  *len = 0;
  return srv_body_open(&b, conn, limit, want_json, 0, err) != 0 ? -1 : srv_body_read_all(&b, out, len, err);
}
