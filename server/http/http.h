/* HTTP helpers shared by every handler: JSON and error answers with the
 * security headers, bounded body reading, and method dispatch checks. */
#ifndef SRV_HTTP_H
#define SRV_HTTP_H

#include <stddef.h>

#include "error.h"

struct mg_connection;

#define SRV_MAX_BODY_BYTES (64 * 1024)
/* CivetWeb's max_request_size: the request line and headers together
 * (past it: 431 headers_too_large, http_guard.c). */
#define SRV_MAX_HEADER_BYTES 16384
/* CivetWeb's request_timeout_ms: the headers must arrive within it, and a
 * read of the body waits at most this long for a byte (serve.c). */
#define SRV_READ_TIMEOUT_MS 5000

/* Adds the headers every answer carries (srv_security_header_lines in csp.h, and over
 * TLS Strict-Transport-Security); between mg_response_header_start and _send. */
void srv_add_common_headers(struct mg_connection *conn);
/* The same for a page with its own CSP line (srv_csp_page_line, csp.h),
 * sent instead of the one that allows no inline script. */
void srv_add_page_headers(struct mg_connection *conn, const char *csp_line);

/* Sends `json` (not freed) with status and exact Content-Length. */
int srv_send_json(struct mg_connection *conn, int status, const cJSON *json);
/* The same with extra header lines ("Name: value\r\n"…; NULL for none). */
int srv_send_json_with(struct mg_connection *conn, int status, const cJSON *json, const char *extra);
/* Sends the error envelope for err with the table's HTTP status. */
int srv_send_error(struct mg_connection *conn, const lab_error *err);
/* (client_gone: nothing is sent, the request counts as answered with 499.)
 * The same with "Retry-After: N" (N = ceil(retry_after_s), ≥ 1). With
 * retry_after_s ≤ 0 a default is used where the code calls for one: every
 * 429 carries Retry-After, and busy, no_gpu and store_busy do too. */
int srv_send_error_retry(struct mg_connection *conn, const lab_error *err, double retry_after_s);
/* Shorthand: code + message (+ param). */
int srv_send_fail(struct mg_connection *conn, lab_err code, const char *param, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* 405 with an Allow header naming the allowed methods. */
int srv_send_method_not_allowed(struct mg_connection *conn, const char *allow);

/* Every answer goes out with the connection closing after it (keep-alive
 * is off), so a request is answered once. srv_http_answering marks this
 * thread's request answered and, the first time, calls the function set
 * with srv_http_on_answer (serve.c: the connection stops counting against
 * its address); srv_add_common_headers, which every answer's headers
 * pass, calls it before the first byte goes out.
 * srv_http_answer_reset starts a new connection; srv_http_answered says
 * whether its request has had an answer. */
void srv_http_on_answer(void (*fn)(const struct mg_connection *conn));
void srv_http_answering(const struct mg_connection *conn);
void srv_http_answer_reset(void);
int srv_http_answered(void);

/* The error envelope for code with `message` (which must not quote the
 * request), its status line written here as HTTP/1.1 rather than with
 * the version the request named: for a request CivetWeb could not parse,
 * where that "version" may be any of the request's bytes. */
int srv_send_raw_error(struct mg_connection *conn, lab_err code, const char *message);

/* A request body read as it arrives, for a handler that works on it in
 * pieces (POST /api/doctor) and so never holds all of it. */
typedef struct srv_body {
  struct mg_connection *conn;
  size_t limit;       /* bytes at most */
  size_t used;        /* bytes read so far */
  long long declared; /* Content-Length; -1 for a chunked body */
  double t0, until_s; /* lab_clock_s when reading began; the whole body's deadline (0: none) */
  int ended;
  int asked;          /* the first read was made (and "100 Continue" sent, when expected) */
} srv_body;

/* Checks the framing as srv_read_body does (both chunked and a length,
 * a JSON type when want_json, a declared length past limit) and starts
 * the clock: the whole body must then arrive within deadline_s (0: no
 * deadline but the minimum rate). 0, or -1 with err set. */
int srv_body_open(srv_body *b, struct mg_connection *conn, size_t limit, int want_json, double deadline_s,
                  lab_error *err);
/* Up to cap bytes of the body: how many came (at least 1), 0 at its end,
 * or -1 with err set: request_timeout (too slow, or past the deadline),
 * body_too_large, bad_request (shorter than its Content-Length). A client
 * that sent "Expect: 100-continue" is told to go on at the first read: a
 * request refused before its body is read gets its answer before sending
 * any of it (CivetWeb sends no 100 Continue to a handler's request; over
 * TLS none is sent, and the client goes on after its own wait). */
long srv_body_read(srv_body *b, char *buf, size_t cap, lab_error *err);
/* The same, going on until cap bytes came or the body ended. */
long srv_body_fill(srv_body *b, char *buf, size_t cap, lab_error *err);
/* The whole body (read nothing of it before) into a NUL-terminated malloc'd buffer, grown as it
 * arrives (memory follows what came, not what Content-Length promised).
 * 0, or -1 with err set as srv_body_read. */
int srv_body_read_all(srv_body *b, char **out, size_t *len, lab_error *err);

/* Reads the request body (at most `limit` bytes) into a NUL-terminated
 * malloc'd buffer (grown as the body arrives). Refuses a body with both chunked encoding and a length
 * (400), one past the limit (413), one shorter than its Content-Length
 * (400), one that arrives slower than a minimum rate (408), and, when
 * `want_json`, a non-empty one without "Content-Type: application/json"
 * (415).
 * Returns 0, or -1 with err set. */
int srv_read_body(struct mg_connection *conn, size_t limit, int want_json, char **out, size_t *len,
                  lab_error *err);

/* Parses a whole body as one JSON value: trailing bytes other than
 * whitespace, or nesting deeper than LAB_JSON_MAX_DEPTH, make it invalid
 * (cJSON alone would ignore the first and overflow the thread's stack on
 * the second). NULL if invalid. */
cJSON *srv_parse_json(const char *text, size_t len);

/* Parses text[0..len) as one JSON object whose keys are all in `fields`
 * (NULL-terminated); an empty text is {} when empty_ok. Fails with
 * invalid_json (too deep, not UTF-8, not JSON, or not an object: the
 * message shows `example`) or invalid_param naming an unknown field. On
 * success *out (caller owns) is the object. */
int srv_json_object_parse(const char *text, size_t len, const char *const fields[], int empty_ok,
                          const char *example, cJSON **out, lab_error *err);

/* Reads the body as one JSON object whose keys are all in `fields`
 * (NULL-terminated); an empty body is {} when empty_ok. Fails with
 * invalid_json (not JSON, or not an object: the message shows `example`),
 * invalid_param naming an unknown field, or what srv_read_body refuses.
 * On success *out (caller owns) is the object. */
int srv_read_json_object(struct mg_connection *conn, size_t limit, const char *const fields[], int empty_ok,
                         const char *example, cJSON **out, lab_error *err);

/* The request's method is one of `allowed` ("GET,HEAD"); otherwise sends 405 and returns 0. */
int srv_method_ok(struct mg_connection *conn, const char *allowed);

#endif
