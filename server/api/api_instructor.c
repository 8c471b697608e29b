/* GET /api/instructor/class: the whole class for its instructor (who joined,
 * runs, sessions and quiz results summed per learner, the GPU queue, the
 * worker's health, the GPU's memory); GET /api/instructor/attempts?learner=ID
 * &page=N&per_page=M: one learner's quiz attempts a page at a time; GET
 * /api/instructor/handins: the measurement kit runs the learners handed in
 * (their devices, each headline figure's spread, what was flagged). All need
 * "Authorization: Bearer <instructor token>"; the token never travels in a
 * URL, so it cannot leak into logs or browser history. */
#include <civetweb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "cjson_compat.h"
#include "compare.h"
#include "http.h"
#include "learner.h"
#include "metrics.h"
#include "throttle.h"
#include "runs.h"
#include "session.h"
#include "workers_json.h"

static cJSON *class_info(const srv_class *cls) {
  const srv_class_config *c = &cls->cfg;
  cJSON *o = cJSON_CreateObject(), *limits = NULL, *gpus = NULL;
  char code[SRV_JOIN_CODE_LEN + 2];
  snprintf(code, sizeof code, "%.4s-%.4s", cls->join_code, cls->join_code + 4);
  int ok = o && cJSON_AddStringToObject(o, "name", c->name) && cJSON_AddStringToObject(o, "join_code", code) &&
           cJSON_AddBoolToObject(o, "tls", c->tls_cert[0] != 0) && (limits = cJSON_AddObjectToObject(o, "limits")) &&
           (gpus = cJSON_AddArrayToObject(o, "gpus"));
  const struct {
    const char *key;
    long v;
  } l[] = {{"runs_per_minute", c->runs_per_minute}, {"gpu_seconds_per_session", c->gpu_seconds_per_session},
           {"max_gpu_mem_gib", c->max_gpu_mem_gib}, {"deadline_s", c->deadline_s},
           {"queue_max", c->queue_max},             {"max_body_kib", c->max_body_kib},
           {"max_connections", c->max_connections}, {"max_connections_per_address", c->max_connections_per_address},
           {"queued_runs_per_learner", c->queued_runs_per_learner}, {"sim_runs_per_minute", c->sim_runs_per_minute},
           {"sim_cpu_seconds_per_minute", c->sim_cpu_seconds_per_minute},
           {"stored_runs_per_learner", c->stored_runs_per_learner}, {"session_idle_s", c->session_idle_s},
           {"session_max_s", c->session_max_s}, {"class_size", c->class_size}, {"join_rate", c->join_rate},
           {"live_sessions_per_learner", SRV_LIVE_SESSIONS_PER_LEARNER},
           {"quiz_attempts_per_minute", SRV_QUIZ_ATTEMPTS_PER_MINUTE}};
  for (size_t i = 0; ok && i < sizeof l / sizeof l[0]; i++) ok = cJSON_AddNumberToObject(limits, l[i].key, (double)l[i].v) != NULL;
  for (int i = 0; ok && i < c->gpu_count; i++) ok = cJSON_AddItemToArray(gpus, cJSON_CreateNumber(c->gpus[i]));
  if (!ok) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

/* The worker's health and the device views (driver view: memory in use). */
static cJSON *gpu_info(srv_app *app) {
  lab_driver_view drv;
  lab_runtime_view rt;
  srv_runner_views(&app->runner, &drv, &rt);
  cJSON *o = cJSON_CreateObject(), *worker = NULL;
  int restarts = app->cls->runs ? srv_class_runs_restarts(app->cls->runs) : srv_supervisor_restarts(app->runner.sup);
  int ok = o && (worker = cJSON_AddObjectToObject(o, "worker")) &&
           cJSON_AddNumberToObject(worker, "pid", srv_supervisor_pid(app->runner.sup)) &&
           cJSON_AddNumberToObject(worker, "restarts", restarts) &&
           cJSON_AddItemToObject(o, "device", lab_device_json(&drv, &rt));
  if (!ok) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

/* What this server refused since it started, by reason, each with what
 * the instructor can do about it:
 * {"join_class_window":{"count","refused","change_with"},…}. */
static cJSON *refusals(const srv_class *cls) {
  char window[160], addr_budget[80], class_budget[80];
  snprintf(window, sizeof window,
           "--class-size (now %ld) or --join-rate (now %ld a second): limits.class_size, limits.join_rate",
           cls->cfg.class_size, cls->cfg.join_rate);
  snprintf(addr_budget, sizeof addr_budget, "past an address's budget (%d a minute)", SRV_GUESS_ADDRESS_BURST);
  snprintf(class_budget, sizeof class_budget, "past the class's budget (%d a minute)", SRV_GUESS_CLASS_BURST);
  static const char never[] = "no setting: the budget is for wrong guesses only, a right one is never refused";
  const struct {
    srv_refusal r;
    const char *refused, *detail, *change_with;
  } rows[] = {
      {SRV_REFUSED_JOIN_WINDOW, "right joins over the class's join window", "", window},
      {SRV_REFUSED_JOIN_BAD_CODE, "joins with a wrong join code", "", "no setting: give learners the join code"},
      {SRV_REFUSED_JOIN_GUESSES_ADDRESS, "wrong join codes ", addr_budget, never},
      {SRV_REFUSED_JOIN_GUESSES_CLASS, "wrong join codes ", class_budget, never},
      {SRV_REFUSED_INSTRUCTOR_BAD_TOKEN, "instructor requests with a wrong token", "",
       "no setting: --new-instructor-token replaces the token"},
      {SRV_REFUSED_INSTRUCTOR_GUESSES_ADDRESS, "wrong instructor tokens ", addr_budget, never},
      {SRV_REFUSED_INSTRUCTOR_GUESSES_CLASS, "wrong instructor tokens ", class_budget, never},
  };
  cJSON *o = cJSON_CreateObject(), *row = NULL;
  int ok = o != NULL;
  for (size_t i = 0; ok && i < sizeof rows / sizeof rows[0]; i++) {
    char key[64], refused[160];
    snprintf(key, sizeof key, "%s_%s", srv_refusal_what(rows[i].r), srv_refusal_reason(rows[i].r));
    snprintf(refused, sizeof refused, "%s%s", rows[i].refused, rows[i].detail);
    ok = (row = cJSON_AddObjectToObject(o, key)) &&
         cJSON_AddNumberToObject(row, "count", (double)srv_metrics_refusals(rows[i].r)) &&
         cJSON_AddStringToObject(row, "refused", refused) &&
         cJSON_AddStringToObject(row, "change_with", rows[i].change_with);
  }
  if (!ok) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

/* Each learner's runs get "simulated_in_browser": what their browser reported. */
static void learner_sims(cJSON *out, srv_browser_sims *sims) {
  cJSON *l;
  cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(out, "learners")) {
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(l, "id");
    cJSON *runs = cJSON_GetObjectItemCaseSensitive(l, "runs");
    if (cJSON_IsNumber(id) && cJSON_IsObject(runs))
      cJSON_AddNumberToObject(runs, "simulated_in_browser", (double)srv_browser_sims_of(sims, (int64_t)id->valuedouble));
  }
}

static int overview(struct mg_connection *conn, srv_app *app) {
  lab_error err = {0};
  cJSON *out = NULL;
  double retry = 0;
  if (srv_instructor_require(conn, app->cls, &retry, &err) != 0 ||
      srv_store_class_overview(app->cls->store, &out, &err) != 0)
    return srv_send_error_retry(conn, &err, retry);
  cJSON *queue = app->cls->runs ? srv_class_runs_queue_json(app->cls->runs) : cJSON_CreateArray();
  int ok = cJSON_AddItemToObject(out, "class", class_info(app->cls)) && cJSON_AddItemToObject(out, "queue", queue);
  if (ok) queue = NULL;
  ok = ok && cJSON_AddItemToObject(out, "gpu", gpu_info(app)) && cJSON_AddItemToObject(out, "refusals", refusals(app->cls));
  /* runs learners' browsers simulated, since this server started: activity, not GPU runs */
  ok = ok && cJSON_AddNumberToObject(out, "simulated_in_browsers",
                                     (double)srv_browser_sims_total(&app->cls->browser_sims));
  if (ok) learner_sims(out, &app->cls->browser_sims);
  /* a shared store: every GPU worker seen in the last hour, where it runs and how it does */
  cJSON *all = srv_class_runs_workers(app->cls->runs);
  if (ok && all) ok = cJSON_AddItemToObject(out, "workers", srv_workers_brief(all, 0));
  cJSON_Delete(all);
  ok = ok && cJSON_AddStringToObject(out, "mode", srv_api_class_mode(app));
  int rc = ok ? srv_send_json(conn, 200, out) : srv_send_fail(conn, LAB_E_NOMEM, NULL, "the server ran out of memory");
  cJSON_Delete(queue);
  cJSON_Delete(out);
  return rc;
}

const char *srv_api_class_mode(srv_app *app) {
  int alive = app->cls ? srv_class_runs_workers_alive(app->cls->runs) : -1; /* -1: no shared store */
  return (alive >= 0 ? alive > 0 : srv_runner_gpu_usable(&app->runner)) ? "cuda" : "cpu";
}

#define MAX_PAGE 1000000L /* pages of one: far beyond what the per-minute limit lets a term store */

/* A query parameter as a whole number in [1, max]: 0, 1 when absent (and
 * *v = dflt; dflt 0: required), or -1 with err. */
static int query_number(const char *query, const char *name, long long dflt, long long max, long long *v,
                        lab_error *err) {
  char text[24];
  int n = query ? mg_get_var(query, strlen(query), name, text, sizeof text) : -1;
  if (n == -1 && dflt) {
    *v = dflt;
    return 0;
  }
  char *end = NULL;
  long long x = n > 0 && text[0] >= '1' && text[0] <= '9' ? strtoll(text, &end, 10) : 0;
  if (n > 0 && end && *end == 0 && x >= 1 && x <= max) {
    *v = x;
    return 0;
  }
  return lab_fail(err, LAB_E_INVALID_PARAM, name, "%s must be a whole number from 1 to %lld%s", name, max,
                  dflt ? "" : " (GET /api/instructor/class gives each learner's id)");
}

/* Only learner, page and per_page: a misspelt parameter is an error, not ignored. */
static int query_known(const char *query, lab_error *err) {
  for (const char *p = query; p && *p;) {
    size_t len = strcspn(p, "&");
    size_t key = strcspn(p, "=&");
    int known = (key == 7 && strncmp(p, "learner", 7) == 0) || (key == 4 && strncmp(p, "page", 4) == 0) ||
                (key == 8 && strncmp(p, "per_page", 8) == 0);
    if (len > 0 && !known)
      return lab_fail(err, LAB_E_INVALID_PARAM, NULL, "unknown parameter '%.*s'; use learner=ID&page=N&per_page=M",
                      (int)(key < 40 ? key : 40), p);
    p += len;
    if (*p == '&') p++;
  }
  return 0;
}

/* {"learner","page","per_page","pages","total","attempts":[…]}: newest
 * first, page N holding attempts (N-1)*per_page+1 onwards; a page past the
 * last one holds none. */
static int attempts(struct mg_connection *conn, srv_app *app) {
  const char *query = mg_get_request_info(conn)->query_string;
  lab_error err = {0};
  long long learner = 0, page = 0, per_page = 0;
  int64_t total = 0;
  double retry = 0;
  cJSON *list = NULL, *out = NULL;
  if (srv_instructor_require(conn, app->cls, &retry, &err) != 0 || query_known(query, &err) != 0 ||
      query_number(query, "learner", 0, 1LL << 53, &learner, &err) != 0 ||
      query_number(query, "page", 1, MAX_PAGE, &page, &err) != 0 ||
      query_number(query, "per_page", SRV_QUIZ_PAGE_MAX, SRV_QUIZ_PAGE_MAX, &per_page, &err) != 0 ||
      srv_store_quiz_page(app->cls->store, learner, (page - 1) * per_page, (long)per_page, &list, &total, &err) != 0)
    return srv_send_error_retry(conn, &err, retry);
  out = cJSON_CreateObject();
  int ok = out && cJSON_AddNumberToObject(out, "learner", (double)learner) &&
           cJSON_AddNumberToObject(out, "page", (double)page) &&
           cJSON_AddNumberToObject(out, "per_page", (double)per_page) &&
           cJSON_AddNumberToObject(out, "pages", (double)((total + per_page - 1) / per_page)) &&
           cJSON_AddNumberToObject(out, "total", (double)total) && cJSON_AddItemToObject(out, "attempts", list);
  if (ok) list = NULL;
  int rc = ok ? srv_send_json(conn, 200, out) : srv_send_fail(conn, LAB_E_NOMEM, NULL, "the server ran out of memory");
  cJSON_Delete(list);
  cJSON_Delete(out);
  return rc;
}

/* {"class": lab_compare_class of the hand-ins (devices, each headline
 * figure's spread, the implausible ones apart), "handins":[{"id",
 * "learner_id","name","at","run","profile","implausible","flagged":[{
 * "experiment","metric","measured","unit","reason"}]}]}: every run the
 * learners handed in, newest first, with what each one's checks flagged. */
static cJSON *handin_entry(const cJSON *h) {
  const cJSON *sum = cJSON_GetObjectItemCaseSensitive(h, "summary"), *e, *f;
  static const char *const keys[] = {"id", "learner_id", "name", "at"};
  cJSON *o = cJSON_CreateObject(), *flagged;
  if (!o) return NULL;
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    cJSON_AddItemToObject(o, keys[i], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(h, keys[i]), 1));
  cJSON_AddItemToObject(o, "run", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(sum, "run"), 1));
  cJSON_AddItemToObject(o, "profile", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(sum, "profile"), 1));
  cJSON_AddItemToObject(o, "implausible", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(sum, "implausible"), 1));
  flagged = cJSON_AddArrayToObject(o, "flagged");
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(sum, "experiments")) {
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(e, "figures")) {
      if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(f, "plausible"))) continue;
      cJSON *x = cJSON_CreateObject();
      if (!x || !cJSON_AddItemToArray(flagged, x)) {
        cJSON_Delete(x);
        break;
      }
      cJSON_AddItemToObject(x, "experiment", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(e, "experiment"), 1));
      static const char *const fk[] = {"metric", "measured", "unit", "reason"};
      for (size_t i = 0; i < sizeof fk / sizeof fk[0]; i++)
        cJSON_AddItemToObject(x, fk[i], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(f, fk[i]), 1));
    }
  }
  return o;
}

static int handins(struct mg_connection *conn, srv_app *app) {
  lab_error err = {0};
  cJSON *all = NULL, *out = NULL, *list = NULL;
  const cJSON *h;
  double retry = 0;
  if (srv_instructor_require(conn, app->cls, &retry, &err) != 0 ||
      srv_store_handins_class(app->cls->store, &all, &err) != 0)
    return srv_send_error_retry(conn, &err, retry);
  int ok = (out = cJSON_CreateObject()) && cJSON_AddItemToObject(out, "class", lab_compare_class(all)) &&
           cJSON_AddNumberToObject(out, "keep", SRV_HANDINS_PER_LEARNER) &&
           (list = cJSON_AddArrayToObject(out, "handins"));
  cJSON_ArrayForEach(h, all) {
    cJSON *e = ok ? handin_entry(h) : NULL;
    if (!e || !cJSON_AddItemToArray(list, e)) {
      cJSON_Delete(e);
      ok = 0;
    }
  }
  int rc = ok ? srv_send_json(conn, 200, out) : srv_send_fail(conn, LAB_E_NOMEM, NULL, "the server ran out of memory");
  cJSON_Delete(all);
  cJSON_Delete(out);
  return rc;
}

int srv_api_instructor(struct mg_connection *conn, void *cbdata) {
  srv_app *app = cbdata;
  if (!app->cls) return srv_class_not_running(conn);
  const char *uri = mg_get_request_info(conn)->local_uri;
  int is_class = strcmp(uri, "/api/instructor/class") == 0, is_handins = strcmp(uri, "/api/instructor/handins") == 0;
  if (!is_class && !is_handins && strcmp(uri, "/api/instructor/attempts") != 0) return srv_api_not_found(conn, cbdata);
  if (!srv_method_ok(conn, "GET,HEAD")) return 405;
  return is_class ? overview(conn, app) : is_handins ? handins(conn, app) : attempts(conn, app);
}
