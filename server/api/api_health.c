/* GET /api/health: liveness, version, whether experiments run on a GPU, and
 * how often the GPU worker had to be replaced; in class mode, the class; on
 * a shared store, its live GPU workers and whether the store answers (the
 * server stays healthy either way: a load balancer must not drop every
 * server because the database blinked). "status" is "degraded", with the
 * watchdog's "reason", while something hangs or the store cannot be
 * written (watchdog.h); the answer stays 200. */
#include <civetweb.h>

#include "api.h"
#include "cjson_compat.h"
#include "class.h"
#include "http.h"
#include "runs.h"
#include "watchdog.h"
#include "workers_json.h"

int srv_api_health(struct mg_connection *conn, void *cbdata) {
  srv_app *app = cbdata;
  if (!srv_method_ok(conn, "GET,HEAD")) return 405;
  cJSON *o = cJSON_CreateObject();
  char reasons[768];
  int degraded = srv_watchdog_status(app->watchdog, reasons, sizeof reasons);
  cJSON_AddStringToObject(o, "status", degraded ? "degraded" : "ok");
  if (degraded) cJSON_AddStringToObject(o, "reason", reasons);
  cJSON_AddStringToObject(o, "version", GPULAB_VERSION);
  srv_class_runs *cr = app->cls ? app->cls->runs : NULL;
  cJSON *all = srv_class_runs_workers(cr); /* a shared store: its GPU workers */
  int usable = all ? srv_class_runs_workers_alive(cr) > 0 : srv_runner_gpu_usable(&app->runner);
  cJSON_AddStringToObject(o, "mode", usable ? "cuda" : "cpu");
  cJSON *worker = cJSON_AddObjectToObject(o, "worker");
  cJSON_AddNumberToObject(worker, "restarts", cr ? srv_class_runs_restarts(cr) : srv_supervisor_restarts(app->runner.sup));
  if (app->cls) { /* class mode: the page shows the join form */
    cJSON *c = cJSON_AddObjectToObject(o, "class");
    cJSON_AddStringToObject(c, "name", app->cls->cfg.name);
  }
  if (all) { /* the live workers and their devices; whether the store answered */
    cJSON_AddItemToObject(o, "workers", srv_workers_brief(all, 1)); /* usable or not: each says */
    cJSON_AddStringToObject(o, "store", srv_class_runs_store_ok(cr) ? "ok" : "unavailable");
    cJSON_Delete(all);
  }
  int rc = srv_send_json(conn, 200, o);
  cJSON_Delete(o);
  return rc;
}
