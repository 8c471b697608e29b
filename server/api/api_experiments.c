/* /api/experiments: GET lists the registry; GET /api/experiments/NAME shows
 * one; POST /api/experiments/NAME runs it with {"params","backend","profile"}
 * and answers the result (with ?trace=1, its trace file). */
#include <civetweb.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "cjson_compat.h"
#include "http.h"
#include "registry.h"
#include "hooks.h"
#include "learner.h"
#include "session.h"
#include "api_runs.h"
#include "api_trace.h"

static const char *optional_string(const cJSON *body, const char *key, lab_error *err, int *bad) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(body, key);
  if (!v || cJSON_IsNull(v)) return NULL;
  if (!cJSON_IsString(v)) {
    *bad = 1;
    lab_fail(err, LAB_E_INVALID_PARAM, key, "%s must be a string", key);
    return NULL;
  }
  return v->valuestring;
}

/* ---- class mode: a run answered at once is stored with the session -------- */
/* Simulated runs (and any run not queued) are kept as done at once, with
 * their whole envelope; they cost no GPU time but the CPU time they took
 * (learner.h), and only a learner's newest ones are kept. */
static int store_answered_run(srv_app *app, int64_t session_id, const char *name, const cJSON *result,
                              double cpu_ms, lab_error *err) {
  const cJSON *backend = cJSON_GetObjectItemCaseSensitive(result, "backend");
  char *params = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(result, "params"));
  char *envelope = cJSON_PrintUnformatted(result);
  int64_t id = 0;
  int rc = -1;
  if (!params || !envelope) lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  else
    rc = srv_store_run_record(app->cls->store, session_id, name, params,
                              cJSON_IsString(backend) ? backend->valuestring : "simulated", envelope, cpu_ms,
                              app->cls->cfg.stored_runs_per_learner, &id, err);
  cJSON_free(params);
  cJSON_free(envelope);
  return rc;
}
/* ---- end of class mode ---------------------------------------------------- */

static int run(struct mg_connection *conn, srv_app *app, const char *name) {
  lab_error err = {0};
  cJSON *body = NULL, *result = NULL;
  int rc;
  srv_store_session sess = {0};
  int64_t ticket = 0;
  double retry = 0, cpu_ms = srv_thread_cpu_ms();
  /* class mode: every run belongs to a session */
  if (app->cls && srv_session_require(conn, app->cls, &sess, &err) != 0) goto fail;
  static const char *const fields[] = {"params", "backend", "profile", NULL};
  if (srv_read_json_object(conn, app->max_body_bytes, fields, 1, "{\"params\":{},\"backend\":\"auto\"}", &body, &err))
    goto fail;
  int bad = 0;
  const char *backend = optional_string(body, "backend", &err, &bad);
  const char *profile = bad ? NULL : optional_string(body, "profile", &err, &bad);
  if (bad) goto fail;
  /* class mode: a GPU run waits in the fair queue and answers 202 (api_runs.c) */
  if (app->cls && srv_api_runs_submit(conn, app, &sess, name, cJSON_GetObjectItemCaseSensitive(body, "params"),
                                      backend, &rc))
    goto done;
  /* class mode: runs answered at once count against the learner's minute */
  if (app->cls && srv_learner_sim_admit(app->cls, sess.learner_id, &ticket, &retry, &err) != 0) goto fail;
  srv_sim_cost cost;
  if (srv_run_experiment(&app->runner, name, cJSON_GetObjectItemCaseSensitive(body, "params"), backend, profile,
                         &result, &cost, &err) != 0) {
    retry = cost.retry_after_s;
    goto fail;
  }
  /* This thread's CPU, plus what the simulation's other threads (BLAS's) took (sim_gate.c). */
  cpu_ms = srv_thread_cpu_ms() - cpu_ms + (cost.cpu_ms - cost.thread_ms);
  if (app->cls) { /* class mode */
    srv_learner_sim_settle(app->cls, ticket, cpu_ms, 1);
    ticket = 0;
    if (store_answered_run(app, sess.id, name, result, cpu_ms, &err) != 0) goto fail;
  }
  /* ?trace=1: the result as a trace file (docs/trace.md); stored as usual. */
  rc = srv_api_wants_trace(conn) ? srv_api_send_trace(conn, result) : srv_send_json(conn, 200, result);
  goto done;
fail:
  if (ticket) srv_learner_sim_settle(app->cls, ticket, 0, 0); /* refused after all: not counted */
  /* the first device check is still running: ask again after its wait, as GET /api/device says */
  if (err.code == LAB_E_DEVICE_CHECK_TIMEOUT && retry <= 0) retry = 2;
  rc = srv_send_error_retry(conn, &err, retry);
done:
  cJSON_Delete(result);
  cJSON_Delete(body);
  return rc;
}

int srv_api_experiments(struct mg_connection *conn, void *cbdata) {
  srv_app *app = cbdata;
  const char *uri = mg_get_request_info(conn)->local_uri;
  const char *name = uri + strlen("/api/experiments");
  if (*name == 0) {
    if (!srv_method_ok(conn, "GET,HEAD")) return 405;
    cJSON *o = lab_registry_json();
    int rc = srv_send_json(conn, 200, o);
    cJSON_Delete(o);
    return rc;
  }
  if (*name != '/') return srv_api_not_found(conn, cbdata);
  name++;
  if (name[0] == '_' && srv_test_hooks_enabled()) {
    lab_error err;
    if (srv_runner_test_hook(&app->runner, name, &err) != 0) return srv_send_error(conn, &err);
    return srv_send_fail(conn, LAB_E_INTERNAL, NULL, "test hook %.20s returned normally", name);
  }
  const lab_experiment *e = lab_experiment_find(name);
  if (!e)
    return srv_send_fail(conn, LAB_E_UNKNOWN_EXPERIMENT, "experiment",
                         "no experiment named '%.40s'; GET /api/experiments lists them", name);
  if (!srv_method_ok(conn, "GET,HEAD,POST")) return 405;
  if (strcmp(mg_get_request_info(conn)->request_method, "POST") == 0) return run(conn, app, e->name);
  cJSON *o = lab_experiment_json(e);
  int rc = srv_send_json(conn, 200, o);
  cJSON_Delete(o);
  return rc;
}

int srv_api_not_found(struct mg_connection *conn, void *cbdata) {
  (void)cbdata;
  return srv_send_fail(conn, LAB_E_NOT_FOUND, NULL, "no API resource at %.80s; the API is listed in README.md",
                       mg_get_request_info(conn)->local_uri);
}
