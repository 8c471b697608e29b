/* GET /api/health: liveness, version, whether experiments run on a GPU, and
 * how often the GPU worker had to be replaced; in class mode, the class. */
#include <civetweb.h>

#include "api.h"
#include "cjson_compat.h"
#include "class.h"
#include "http.h"

int srv_api_health(struct mg_connection *conn, void *cbdata) {
  srv_app *app = cbdata;
  if (!srv_method_ok(conn, "GET,HEAD")) return 405;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "status", "ok");
  cJSON_AddStringToObject(o, "version", GPULAB_VERSION);
  cJSON_AddStringToObject(o, "mode", srv_runner_gpu_usable(&app->runner) ? "cuda" : "cpu");
  cJSON *worker = cJSON_AddObjectToObject(o, "worker");
  cJSON_AddNumberToObject(worker, "restarts", srv_supervisor_restarts(app->runner.sup));
  if (app->cls) { /* class mode: the page shows the join form */
    cJSON *c = cJSON_AddObjectToObject(o, "class");
    cJSON_AddStringToObject(c, "name", app->cls->cfg.name);
  }
  int rc = srv_send_json(conn, 200, o);
  cJSON_Delete(o);
  return rc;
}
