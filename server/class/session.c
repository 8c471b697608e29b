/* Cookies and the per-request checks of class mode. Only a session
 * token's SHA-256 is stored, so a copy of the database opens no session.
 * Lookups go by that hash: a timing difference reveals at most a hash
 * prefix of a guess, which does not help to forge a token; secrets held in
 * memory (the instructor token's hash) are compared in constant time. */
#include "session.h"

#include "client_addr.h"
#include "http.h"
#include "metrics.h"
#include "throttle.h"

#include <civetweb.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static _Thread_local int64_t log_session_id;

int64_t srv_session_log_id(void) { return log_session_id; }
void srv_session_log_reset(void) { log_session_id = 0; }

int srv_cookie_named(const char *header, const char *name, char out[SRV_TOKEN_HEX + 1]) {
  size_t nlen = strlen(name);
  const char *p = header;
  while (p && *p) {
    while (*p == ' ' || *p == '\t' || *p == ';') p++;
    const char *end = strchr(p, ';');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t')) len--;
    if (len == nlen + 1 + SRV_TOKEN_HEX && strncmp(p, name, nlen) == 0 && p[nlen] == '=') {
      memcpy(out, p + nlen + 1, SRV_TOKEN_HEX);
      out[SRV_TOKEN_HEX] = 0;
      if (srv_token_valid(out)) return 0;
    }
    p = end;
  }
  out[0] = 0;
  return -1;
}

int srv_cookie_token(const char *header, char out[SRV_TOKEN_HEX + 1]) {
  return srv_cookie_named(header, SRV_COOKIE_NAME, out);
}

void srv_cookie_set_line(char *out, size_t n, const char *token, int secure) {
  snprintf(out, n, "Set-Cookie: " SRV_COOKIE_NAME "=%s; HttpOnly; SameSite=Strict; Path=/%s\r\n", token,
           secure ? "; Secure" : "");
}

void srv_cookie_clear_line(char *out, size_t n, int secure) {
  snprintf(out, n, "Set-Cookie: " SRV_COOKIE_NAME "=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0%s\r\n",
           secure ? "; Secure" : "");
}

int srv_session_require(struct mg_connection *conn, srv_class *cls, srv_store_session *out, lab_error *err) {
  char token[SRV_TOKEN_HEX + 1];
  const char *cookie = mg_get_header(conn, "Cookie");
  if (!cookie || srv_cookie_token(cookie, token) != 0)
    return lab_fail(err, LAB_E_NO_SESSION, NULL,
                    "this needs a lab session: join the class first (POST /api/class/join with the join code and "
                    "your name)");
  unsigned char hash[SRV_HASH_BYTES];
  srv_sha256(token, SRV_TOKEN_HEX, hash);
  int64_t idle_ms = cls->cfg.session_idle_s * 1000, max_ms = cls->cfg.session_max_s * 1000;
  /* last_seen is noted often enough to measure idleness in quarters of it. */
  int64_t touch_ms = idle_ms / 4 < 60000 ? idle_ms / 4 : 60000;
  if (srv_store_session_find(cls->store, hash, touch_ms, out, err) != 0) return -1;
  log_session_id = out->id;
  int64_t now = srv_store_now_ms();
  const char *why = !out->learner_id                      ? "it was opened by an older gpulab"
                    : now - out->created_ms > max_ms      ? "it reached its lifetime"
                    : now - out->last_seen_ms > idle_ms ? "it was idle too long"
                                                          : NULL;
  if (!why) return 0;
  lab_error ignored;
  (void)srv_store_session_end(cls->store, out->id, &ignored);
  return lab_fail(err, LAB_E_NO_SESSION, NULL,
                  "this lab session has ended (%s); join the class again with the join code: your runs' limits and "
                  "GPU time stay with you",
                  why);
}

int srv_instructor_require(struct mg_connection *conn, const srv_class *cls, double *retry_after_s, lab_error *err) {
  *retry_after_s = 0;
  const char *auth = mg_get_header(conn, "Authorization");
  if (auth && strncasecmp(auth, "Bearer ", 7) == 0) {
    const char *token = auth + 7;
    while (*token == ' ') token++;
    size_t len = strlen(token);
    while (len > 0 && token[len - 1] == ' ') len--;
    /* Hashing first makes the comparison fixed-length, whatever was sent;
     * it comes before any budget, so others' guesses never refuse the right token. */
    unsigned char hash[SRV_HASH_BYTES];
    srv_sha256(token, len, hash);
    if (len > 0 && srv_equal_ct(hash, cls->instructor_hash, SRV_HASH_BYTES)) return 0;
  }
  if (auth) { /* a guess; no header at all is not */
    char client[SRV_ADDR_MAX];
    if (srv_guess_count(cls->store, SRV_GUESS_INSTRUCTOR_TOKEN, srv_client_addr(conn, client), retry_after_s, err) != 0)
      return -1;
    srv_metrics_refused(SRV_REFUSED_INSTRUCTOR_BAD_TOKEN);
  }
  return lab_fail(err, LAB_E_INSTRUCTOR_ONLY, NULL,
                  "this needs the instructor token printed when the server started, sent as 'Authorization: Bearer "
                  "TOKEN'");
}

int srv_class_not_running(struct mg_connection *conn) {
  return srv_send_fail(conn, LAB_E_NOT_FOUND, NULL,
                       "this server is not running a class; the instructor starts one with 'gpulab serve --class "
                       "FILE'");
}
