/* GET /api/device: the driver view beside the runtime view, and the verdict. */
#include <civetweb.h>

#include "api.h"
#include "cjson_compat.h"
#include "http.h"

int srv_api_device(struct mg_connection *conn, void *cbdata) {
  srv_app *app = cbdata;
  if (!srv_method_ok(conn, "GET,HEAD")) return 405;
  lab_driver_view drv;
  lab_runtime_view rt;
  srv_runner_views(&app->runner, &drv, &rt);
  cJSON *o = lab_device_json(&drv, &rt);
  const cJSON *usable = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "verdict"), "usable");
  cJSON_AddStringToObject(o, "mode", cJSON_IsTrue(usable) ? "cuda" : "cpu");
  int rc = srv_send_json(conn, 200, o);
  cJSON_Delete(o);
  return rc;
}
