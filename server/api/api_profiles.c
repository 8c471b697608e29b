/* GET /api/profiles: the device profiles the simulator can model. */
#include <civetweb.h>

#include "api.h"
#include "cjson_compat.h"
#include "http.h"
#include "profiles.h"

int srv_api_profiles(struct mg_connection *conn, void *cbdata) {
  (void)cbdata;
  if (!srv_method_ok(conn, "GET,HEAD")) return 405;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddItemToObject(o, "profiles", lab_profiles_json());
  cJSON_AddStringToObject(o, "default", lab_profile_default()->name);
  int rc = srv_send_json(conn, 200, o);
  cJSON_Delete(o);
  return rc;
}
