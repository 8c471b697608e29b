/* Class mode for learners: POST /api/class/join {"code","name"} opens a lab
 * session (the token goes only into an HttpOnly cookie), POST
 * /api/class/leave ends it, GET /api/session shows the caller's own runs,
 * quiz attempts and GPU time. Without a class these answer not_found. */
#include <civetweb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "cjson_compat.h"
#include "http.h"
#include "session.h"

#define JOIN_BODY_MAX 1024

/* 1–40 characters of well-formed UTF-8, no control characters, not blank. */
static int valid_name(const char *s) {
  size_t chars = 0, i = 0;
  int visible = 0;
  const unsigned char *u = (const unsigned char *)s;
  while (u[i]) {
    unsigned c = u[i];
    size_t extra = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 9;
    if (extra == 9 || (extra == 1 && c < 0xc2) || (extra == 3 && c > 0xf4)) return 0;
    if (extra == 0 && (c < 0x20 || c == 0x7f)) return 0;
    for (size_t k = 1; k <= extra; k++)
      if ((u[i + k] & 0xc0) != 0x80) return 0;
    if (extra == 1 && c == 0xc2 && u[i + 1] < 0xa0) return 0; /* C1 control characters */
    if (c != ' ') visible = 1;
    i += extra + 1;
    chars++;
  }
  return chars >= 1 && chars <= SRV_NAME_MAX && i <= SRV_NAME_BYTES && visible;
}

static int join(struct mg_connection *conn, srv_app *app) {
  srv_class *cls = app->cls;
  lab_error err = {0};
  cJSON *body = NULL, *out = NULL;
  int rc;
  static const char *const fields[] = {"code", "name", NULL};
  if (srv_read_json_object(conn, JOIN_BODY_MAX, fields, 0, "{\"code\":\"ABCD-EFGH\",\"name\":\"your name\"}", &body, &err))
    goto fail;
  const cJSON *code = cJSON_GetObjectItemCaseSensitive(body, "code");
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(body, "name");
  if (!cJSON_IsString(name) || !valid_name(name->valuestring)) {
    lab_fail(&err, LAB_E_INVALID_PARAM, "name",
             "name must be 1 to %d printable characters (the class sees it)", SRV_NAME_MAX);
    goto fail;
  }
  if (!cJSON_IsString(code)) {
    lab_fail(&err, LAB_E_INVALID_PARAM, "code", "code must be the join code your instructor gave you, as a string");
    goto fail;
  }
  /* Normalised first ("abcd efgh" works), then compared in constant time. */
  char typed[SRV_JOIN_CODE_LEN + 1] = {0};
  int shaped = srv_join_code_normalise(code->valuestring, typed) == 0;
  if (!srv_equal_ct(typed, cls->join_code, SRV_JOIN_CODE_LEN) || !shaped) {
    lab_fail(&err, LAB_E_BAD_JOIN_CODE, "code", "that is not this class's join code; check it with your instructor");
    goto fail;
  }
  char token[SRV_TOKEN_HEX + 1];
  unsigned char hash[SRV_HASH_BYTES];
  srv_store_session sess;
  if (srv_token_new(token, &err) != 0) goto fail;
  srv_sha256(token, SRV_TOKEN_HEX, hash);
  if (srv_store_session_add(cls->store, hash, name->valuestring, &sess, &err) != 0) goto fail;
  char cookie[200];
  srv_cookie_set_line(cookie, sizeof cookie, token, cls->cfg.tls_cert[0] != 0);
  memset(token, 0, sizeof token);
  cJSON *s = NULL;
  char created[32];
  srv_store_time_iso(sess.created_ms, created);
  out = cJSON_CreateObject();
  if (!out || !(s = cJSON_AddObjectToObject(out, "session")) || !cJSON_AddStringToObject(s, "name", sess.name) ||
      !cJSON_AddStringToObject(s, "created", created)) {
    lab_fail(&err, LAB_E_NOMEM, NULL, NULL);
    goto fail;
  }
  rc = srv_send_json_with(conn, 200, out, cookie);
  memset(cookie, 0, sizeof cookie);
  goto done;
fail:
  rc = srv_send_error(conn, &err);
done:
  cJSON_Delete(out);
  cJSON_Delete(body);
  return rc;
}

static int leave(struct mg_connection *conn, srv_app *app) {
  lab_error err = {0};
  srv_store_session sess;
  if (srv_session_require(conn, app->cls, &sess, &err) != 0 ||
      srv_store_session_end(app->cls->store, sess.id, &err) != 0)
    return srv_send_error(conn, &err);
  char cookie[160];
  srv_cookie_clear_line(cookie, sizeof cookie, app->cls->cfg.tls_cert[0] != 0);
  cJSON *out = cJSON_CreateObject();
  if (!out || !cJSON_AddBoolToObject(out, "left", 1)) {
    cJSON_Delete(out);
    return srv_send_fail(conn, LAB_E_NOMEM, NULL, "the server ran out of memory; try again");
  }
  int rc = srv_send_json_with(conn, 200, out, cookie);
  cJSON_Delete(out);
  return rc;
}

int srv_api_class(struct mg_connection *conn, void *cbdata) {
  srv_app *app = cbdata;
  const char *uri = mg_get_request_info(conn)->local_uri;
  if (!app->cls) return srv_class_not_running(conn);
  if (strcmp(uri, "/api/class/join") == 0) return srv_method_ok(conn, "POST") ? join(conn, app) : 405;
  if (strcmp(uri, "/api/class/leave") == 0) return srv_method_ok(conn, "POST") ? leave(conn, app) : 405;
  return srv_api_not_found(conn, cbdata);
}

/* {"name","created","runs":[…],"quiz":[…],"gpu_seconds_used","gpu_seconds_limit"}. */
int srv_api_session(struct mg_connection *conn, void *cbdata) {
  srv_app *app = cbdata;
  if (!app->cls) return srv_class_not_running(conn);
  if (strcmp(mg_get_request_info(conn)->local_uri, "/api/session") != 0) return srv_api_not_found(conn, cbdata);
  if (!srv_method_ok(conn, "GET,HEAD")) return 405;
  lab_error err = {0};
  srv_store_session sess;
  cJSON *runs = NULL, *quiz = NULL, *out = NULL;
  if (srv_session_require(conn, app->cls, &sess, &err) != 0 ||
      srv_store_runs_list(app->cls->store, sess.id, &runs, &err) != 0 ||
      srv_store_quiz_list(app->cls->store, sess.id, &quiz, &err) != 0) {
    cJSON_Delete(runs);
    return srv_send_error(conn, &err);
  }
  char created[32];
  srv_store_time_iso(sess.created_ms, created);
  out = cJSON_CreateObject();
  int ok = out && cJSON_AddStringToObject(out, "name", sess.name) && cJSON_AddStringToObject(out, "created", created) &&
           cJSON_AddItemToObject(out, "runs", runs);
  if (ok) runs = NULL;
  ok = ok && cJSON_AddItemToObject(out, "quiz", quiz);
  if (ok) quiz = NULL;
  ok = ok && cJSON_AddNumberToObject(out, "gpu_seconds_used", sess.gpu_ms_used / 1000.0) &&
       cJSON_AddNumberToObject(out, "gpu_seconds_limit", (double)app->cls->cfg.gpu_seconds_per_session);
  int rc = ok ? srv_send_json(conn, 200, out) : srv_send_fail(conn, LAB_E_NOMEM, NULL, "the server ran out of memory");
  cJSON_Delete(runs);
  cJSON_Delete(quiz);
  cJSON_Delete(out);
  return rc;
}
