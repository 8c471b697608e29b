/* Class mode for learners: POST /api/class/join {"code","name"} opens a lab
 * session of the browser's learner (learner.h; each token goes only into an
 * HttpOnly cookie; the learner's oldest sessions beyond
 * SRV_LIVE_SESSIONS_PER_LEARNER end), POST
 * /api/class/leave ends it, GET /api/session shows the caller's own runs,
 * quiz attempts and GPU time, POST /api/class/simulated {"experiment"}
 * counts a run the learner's browser simulated (for the instructor's view;
 * not stored, not charged). Without a class these answer not_found. */
#include <civetweb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "cjson_compat.h"
#include "client_addr.h"
#include "http.h"
#include "learner.h"
#include "metrics.h"
#include "registry.h"
#include "throttle.h"
#include "session.h"

#define JOIN_BODY_MAX 1024

/* The session's and the learner's cookies, and {"session":{"name","created"}}. */
static int send_joined(struct mg_connection *conn, const srv_class *cls, const srv_store_session *sess,
                       const char *session_token, const char *learner_token) {
  int secure = cls->cfg.tls_cert[0] != 0 || srv_request_https(conn);
  char cookies[400], created[32];
  srv_cookie_set_line(cookies, sizeof cookies, session_token, secure);
  /* The learner cookie is set again at every join: its lifetime starts anew. */
  if (learner_token[0]) {
    size_t used = strlen(cookies);
    srv_learner_cookie_line(cookies + used, sizeof cookies - used, learner_token, secure);
  }
  srv_store_time_iso(sess->created_ms, created);
  cJSON *out = cJSON_CreateObject(), *s = NULL;
  int ok = out && (s = cJSON_AddObjectToObject(out, "session")) && cJSON_AddStringToObject(s, "name", sess->name) &&
           cJSON_AddStringToObject(s, "created", created);
  int rc = ok ? srv_send_json_with(conn, 200, out, cookies)
              : srv_send_fail(conn, LAB_E_NOMEM, NULL, "the server ran out of memory; try again");
  memset(cookies, 0, sizeof cookies);
  cJSON_Delete(out);
  return rc;
}

/* Checks the body and the code. The code is compared first: a right one
 * goes on whatever others guessed; a wrong one counts in the guess budgets
 * (throttle.h), and past them is refused with rate_limited. */
static int join_request(struct mg_connection *conn, srv_class *cls, cJSON **body, double *retry_after_s,
                        lab_error *err) {
  static const char *const fields[] = {"code", "name", NULL};
  if (srv_read_json_object(conn, JOIN_BODY_MAX, fields, 0, "{\"code\":\"ABCD-EFGH\",\"name\":\"your name\"}", body,
                           err))
    return -1;
  const cJSON *code = cJSON_GetObjectItemCaseSensitive(*body, "code");
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(*body, "name");
  if (!cJSON_IsString(name) || !srv_name_valid(name->valuestring))
    return lab_fail(err, LAB_E_INVALID_PARAM, "name",
                    "name must be 1 to %d printable characters, without control or direction-changing ones (the "
                    "class sees it)",
                    SRV_NAME_MAX);
  if (!cJSON_IsString(code))
    return lab_fail(err, LAB_E_INVALID_PARAM, "code", "code must be the join code your instructor gave you, as a string");
  /* Normalised first ("abcd efgh" works), then compared in constant time. */
  char typed[SRV_JOIN_CODE_LEN + 1] = {0};
  int shaped = srv_join_code_normalise(code->valuestring, typed) == 0;
  if (srv_equal_ct(typed, cls->join_code, SRV_JOIN_CODE_LEN) && shaped) return 0;
  char addr[SRV_ADDR_MAX];
  if (srv_guess_count(cls->store, SRV_GUESS_JOIN_CODE, srv_client_addr(conn, addr), retry_after_s, err) != 0) return -1;
  srv_metrics_refused(SRV_REFUSED_JOIN_BAD_CODE);
  return lab_fail(err, LAB_E_BAD_JOIN_CODE, "code", "that is not this class's join code; check it with your instructor");
}

/* A join: a right code takes one from the class's join window (whatever
 * address it comes from), given back when the browser's learner was known
 * already (joining again makes no new learner) or the join fails. */
static int join(struct mg_connection *conn, srv_app *app) {
  srv_class *cls = app->cls;
  lab_error err = {0};
  double retry = 0;
  cJSON *body = NULL;
  srv_store_learner learner;
  srv_store_session sess;
  char learner_token[SRV_TOKEN_HEX + 1] = "", session_token[SRV_TOKEN_HEX + 1];
  unsigned char hash[SRV_HASH_BYTES];
  int64_t ticket = 0;
  int rc;
  if (join_request(conn, cls, &body, &retry, &err) != 0 ||
      srv_join_admit(cls->store, cls->cfg.class_size, cls->cfg.join_rate, &ticket, &retry, &err) != 0)
    goto fail;
  const char *name = cJSON_GetObjectItemCaseSensitive(body, "name")->valuestring;
  if (srv_learner_for_join(cls->store, mg_get_header(conn, "Cookie"), name, &learner, learner_token, &err) != 0)
    goto fail;
  if (!learner_token[0]) { /* a known learner: no new place in the class taken */
    srv_join_return(cls->store, ticket);
    ticket = 0;
  }
  if (srv_token_new(session_token, &err) != 0) goto fail;
  srv_sha256(session_token, SRV_TOKEN_HEX, hash);
  if (srv_store_session_add(cls->store, hash, name, learner.id, &sess, &err) != 0) goto fail;
  rc = send_joined(conn, cls, &sess, session_token, learner_token);
  goto done;
fail:
  srv_join_return(cls->store, ticket);
  rc = srv_send_error_retry(conn, &err, retry);
done:
  memset(session_token, 0, sizeof session_token);
  memset(learner_token, 0, sizeof learner_token);
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
  srv_cookie_clear_line(cookie, sizeof cookie, app->cls->cfg.tls_cert[0] != 0 || srv_request_https(conn));
  cJSON *out = cJSON_CreateObject();
  if (!out || !cJSON_AddBoolToObject(out, "left", 1)) {
    cJSON_Delete(out);
    return srv_send_fail(conn, LAB_E_NOMEM, NULL, "the server ran out of memory; try again");
  }
  int rc = srv_send_json_with(conn, 200, out, cookie);
  cJSON_Delete(out);
  return rc;
}

/* A run the browser simulated: the learner's session, a known experiment
 * and the learner's per-minute budget, then one more in the class's count.
 * Nothing is stored (it is no GPU run) and nothing is charged (it spent no
 * server CPU). {"counted":true,"simulated_in_browsers":N}. */
static int simulated(struct mg_connection *conn, srv_app *app) {
  static const char *const fields[] = {"experiment", NULL};
  lab_error err = {0};
  double retry = 0;
  cJSON *body = NULL, *out = NULL;
  srv_store_session sess;
  int rc;
  if (srv_session_require(conn, app->cls, &sess, &err) != 0 ||
      srv_read_json_object(conn, 256, fields, 0, "{\"experiment\":\"timing\"}", &body, &err) != 0)
    goto fail;
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(body, "experiment");
  if (!cJSON_IsString(name)) {
    lab_fail(&err, LAB_E_INVALID_PARAM, "experiment", "experiment must be the name of the experiment your browser ran");
    goto fail;
  }
  if (!lab_experiment_find(name->valuestring)) {
    lab_fail(&err, LAB_E_UNKNOWN_EXPERIMENT, "experiment", "no experiment is called '%.40s'", name->valuestring);
    goto fail;
  }
  if (srv_learner_browser_sim_admit(app->cls->store, sess.learner_id, &retry, &err) != 0) goto fail;
  long n = srv_browser_sims_add(&app->cls->browser_sims, sess.learner_id);
  out = cJSON_CreateObject();
  int ok = out && cJSON_AddBoolToObject(out, "counted", 1) &&
           cJSON_AddNumberToObject(out, "simulated_in_browsers", (double)n);
  rc = ok ? srv_send_json(conn, 200, out) : srv_send_fail(conn, LAB_E_NOMEM, NULL, "the server ran out of memory");
  goto done;
fail:
  rc = srv_send_error_retry(conn, &err, retry);
done:
  cJSON_Delete(body);
  cJSON_Delete(out);
  return rc;
}

int srv_api_class(struct mg_connection *conn, void *cbdata) {
  srv_app *app = cbdata;
  const char *uri = mg_get_request_info(conn)->local_uri;
  if (!app->cls) return srv_class_not_running(conn);
  if (strcmp(uri, "/api/class/join") == 0) return srv_method_ok(conn, "POST") ? join(conn, app) : 405;
  if (strcmp(uri, "/api/class/leave") == 0) return srv_method_ok(conn, "POST") ? leave(conn, app) : 405;
  if (strcmp(uri, "/api/class/simulated") == 0) return srv_method_ok(conn, "POST") ? simulated(conn, app) : 405;
  return srv_api_not_found(conn, cbdata);
}

/* {"name","created","runs":[…],"quiz":[…],"gpu_seconds_used","gpu_seconds_limit","cpu_seconds_used","mode",
 * "simulated_in_browser"}: the runs and attempts of this session; the seconds are the learner's; mode
 * "cpu" (no GPU takes runs: GPU time cannot be spent) or "cuda", as the instructor's page reads it; the
 * runs the learner's browser simulated since this server started. */
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
       cJSON_AddNumberToObject(out, "gpu_seconds_limit", (double)app->cls->cfg.gpu_seconds_per_session) &&
       cJSON_AddNumberToObject(out, "cpu_seconds_used", sess.cpu_ms_used / 1000.0) &&
       cJSON_AddStringToObject(out, "mode", srv_api_class_mode(app)) &&
       cJSON_AddNumberToObject(out, "simulated_in_browser",
                               (double)srv_browser_sims_of(&app->cls->browser_sims, sess.learner_id));
  int rc = ok ? srv_send_json(conn, 200, out) : srv_send_fail(conn, LAB_E_NOMEM, NULL, "the server ran out of memory");
  cJSON_Delete(runs);
  cJSON_Delete(quiz);
  cJSON_Delete(out);
  return rc;
}
