/* HTTP helpers shared by every handler: JSON and error answers with the
 * security headers, bounded body reading, and method dispatch checks. */
#ifndef SRV_HTTP_H
#define SRV_HTTP_H

#include <stddef.h>

#include "error.h"

struct mg_connection;

#define SRV_MAX_BODY_BYTES (64 * 1024)

/* Headers every response carries: cross-origin isolation, nosniff, CSP. */
extern const char srv_security_headers[];

/* Sends `json` (not freed) with status and exact Content-Length. */
int srv_send_json(struct mg_connection *conn, int status, const cJSON *json);
/* Sends the error envelope for err with the table's HTTP status. */
int srv_send_error(struct mg_connection *conn, const lab_error *err);
/* Shorthand: code + message (+ param). */
int srv_send_fail(struct mg_connection *conn, lab_err code, const char *param, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* 405 with an Allow header naming the allowed methods. */
int srv_send_method_not_allowed(struct mg_connection *conn, const char *allow);

/* Reads the request body (at most `limit` bytes) into a NUL-terminated
 * malloc'd buffer. Refuses a body with both chunked encoding and a length
 * (400), one past the limit (413), and non-JSON content types when
 * `want_json` (415). Returns 0, or -1 with err set. */
int srv_read_body(struct mg_connection *conn, size_t limit, int want_json, char **out, size_t *len,
                  lab_error *err);

/* Parses a whole body as one JSON value: trailing bytes other than
 * whitespace, or nesting deeper than LAB_JSON_MAX_DEPTH, make it invalid
 * (cJSON alone would ignore the first and overflow the thread's stack on
 * the second). NULL if invalid. */
cJSON *srv_parse_json(const char *text, size_t len);

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
