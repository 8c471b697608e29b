/* Typed, NULL-safe lookups on cJSON objects for the renderers. */
#include "json_get.h"

const char *ui_json_str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
  return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

const char *ui_json_text(const cJSON *o, const char *key) {
  const char *s = ui_json_str(o, key);
  return s ? s : "";
}

bool ui_json_num(const cJSON *o, const char *key, double *out) {
  const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
  if (!cJSON_IsNumber(v)) return false;
  *out = v->valuedouble;
  return true;
}

int ui_json_bool(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
  return cJSON_IsBool(v) ? cJSON_IsTrue(v) : -1;
}

const cJSON *ui_json_obj(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
  return cJSON_IsObject(v) ? v : NULL;
}

const cJSON *ui_json_arr(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
  return cJSON_IsArray(v) ? v : NULL;
}
