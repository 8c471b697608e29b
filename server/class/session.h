/* Lab sessions and the instructor's token: the session cookie (HttpOnly,
 * SameSite=Strict) and the checks a handler makes in class mode. Tokens
 * and their hashes are token.h's. */
#ifndef SRV_SESSION_H
#define SRV_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "class.h"
#include "token.h"

#define SRV_COOKIE_NAME "gpulab_session"

struct mg_connection;

/* Finds the session token in a Cookie header ("a=1; gpulab_session=…");
 * returns 0 with out filled, -1 when there is none or it is malformed. */
int srv_cookie_token(const char *cookie_header, char out[SRV_TOKEN_HEX + 1]);
/* The same for the token in the cookie called `name`. */
int srv_cookie_named(const char *cookie_header, const char *name, char out[SRV_TOKEN_HEX + 1]);
/* The Set-Cookie header line (with "\r\n") that sets or clears the cookie. */
void srv_cookie_set_line(char *out, size_t n, const char *token, int secure);
void srv_cookie_clear_line(char *out, size_t n, int secure);

/* The request's session, from its cookie: 0 with out filled, or -1 with
 * no_session (no cookie, a malformed one, an unknown or ended session, one
 * idle longer than session_idle_s or older than session_max_s — those are
 * ended here) or a store error. Also notes the session id for the
 * request's log line. */
int srv_session_require(struct mg_connection *conn, srv_class *cls, srv_store_session *out, lab_error *err);
/* 0 when the request carries "Authorization: Bearer <instructor token>"
 * (compared before anything else: the right token is never refused); else
 * -1 with instructor_only, or rate_limited with *retry_after_s once wrong
 * tokens are past their budget (throttle.h). */
int srv_instructor_require(struct mg_connection *conn, const srv_class *cls, double *retry_after_s, lab_error *err);

/* 404 not_found saying this server runs no class (for class routes when
 * srv_app.cls is NULL). */
int srv_class_not_running(struct mg_connection *conn);

/* The session id noted for the request this thread serves (0: none), for
 * the log line; the token never goes there. srv_session_log_reset() at the
 * start of every request. */
int64_t srv_session_log_id(void);
void srv_session_log_reset(void);

#endif
