/* The request id (see request_id.h). Incoming ids are limited to a small
 * alphabet so that one can be echoed in a header and written in a log
 * line as it is, without forging a field or a line. */
#include "request_id.h"

#include <civetweb.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>

static _Thread_local char current[SRV_REQUEST_ID_MAX + 1];

int srv_request_id_sane(const char *s) {
  if (!s || !*s) return 0;
  size_t n = 0;
  for (const char *p = s; *p; p++, n++) {
    char c = *p;
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
             c == ':' || c == '-';
    if (!ok || n >= SRV_REQUEST_ID_MAX) return 0;
  }
  return 1;
}

/* 16 hex digits: 64 random bits, unique enough to find one request among a
 * course's millions. A failing getrandom falls back to the clock (an id is
 * a label, never a secret). */
static void make_id(char out[17]) {
  unsigned char b[8];
  if (getrandom(b, sizeof b, GRND_NONBLOCK) != (ssize_t)sizeof b) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long v = (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
    memcpy(b, &v, sizeof b);
  }
  for (int i = 0; i < 8; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

void srv_request_id_begin(const struct mg_connection *conn) {
  const char *in = conn ? mg_get_header(conn, "X-Request-Id") : NULL;
  if (srv_request_id_sane(in)) snprintf(current, sizeof current, "%s", in);
  else make_id(current);
}

void srv_request_id_reset(void) { current[0] = 0; }

const char *srv_request_id(void) { return current; }

void srv_request_id_header(char *buf, size_t n) {
  if (!current[0]) {
    if (n) buf[0] = 0;
    return;
  }
  snprintf(buf, n, "X-Request-Id: %s\r\n", current);
}
