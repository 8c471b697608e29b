/* POST /api/doctor: gpulab doctor (lab/doctor.h) on a profiler trace sent
 * as the body (application/json, or application/gzip for a .json.gz), at
 * most SRV_DOCTOR_MAX_BODY bytes. The body is read, analysed and dropped:
 * never stored, never logged. Answers the envelope `gpulab doctor --json`
 * prints. */
#include <civetweb.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api.h"
#include "cjson_compat.h"
#include "doctor_stream.h"
#include "http.h"

#define SRV_DOCTOR_MAX_BODY (32u * 1024 * 1024)
/* JSON read per request, a .gz's inflated bytes: the body limit times 32,
 * above the highest ratio of a real trace (30.3, docs/doctor.md), so every
 * real trace the body limit lets in is read and a bomb costs at most this. */
#define SRV_DOCTOR_MAX_TRACE (1024.0 * 1024 * 1024)

typedef struct cursor {
  const unsigned char *p;
  size_t left;
} cursor;

static size_t from_memory(void *src, unsigned char *buf, size_t cap) {
  cursor *c = src;
  size_t n = c->left < cap ? c->left : cap;
  memcpy(buf, c->p, n);
  c->p += n;
  c->left -= n;
  return n;
}

int srv_api_doctor(struct mg_connection *conn, void *cbdata) {
  (void)cbdata;
  if (!srv_method_ok(conn, "POST")) return 405;
  const char *ct = mg_get_header(conn, "Content-Type");
  if (!ct || (strncasecmp(ct, "application/json", 16) && strncasecmp(ct, "application/gzip", 16)))
    return srv_send_fail(conn, LAB_E_UNSUPPORTED_MEDIA, NULL,
                         "send the trace as application/json (or a .json.gz as application/gzip); got %.60s",
                         ct ? ct : "no Content-Type");
  char *body = NULL;
  size_t len = 0;
  lab_error err = {0};
  /* the type was checked above; srv_read_body's own JSON check would refuse gzip */
  if (srv_read_body(conn, SRV_DOCTOR_MAX_BODY, 0, &body, &len, &err) != 0) return srv_send_error(conn, &err);
  cursor c = {(const unsigned char *)body, len};
  cJSON *env = srv_doctor_stream_capped(from_memory, &c, SRV_DOCTOR_MAX_TRACE, &err);
  free(body);
  if (!env) return srv_send_error(conn, &err);
  int rc = srv_send_json(conn, 200, env);
  cJSON_Delete(env);
  return rc;
}
