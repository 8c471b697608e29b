/* Builders and the shape check for the result envelope. */
#include "envelope.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"

cJSON *lab_envelope_new(const char *experiment, const char *backend, const char *device_name,
                        const char *profile, cJSON *params) {
  cJSON *env = cJSON_CreateObject();
  if (!env) {
    cJSON_Delete(params);
    return NULL;
  }
  cJSON_AddStringToObject(env, "experiment", experiment);
  cJSON_AddNumberToObject(env, "schema", LAB_SCHEMA_VERSION);
  cJSON_AddStringToObject(env, "backend", backend);
  cJSON *dev = cJSON_AddObjectToObject(env, "device");
  if (device_name) cJSON_AddStringToObject(dev, "name", device_name);
  else cJSON_AddNullToObject(dev, "name");
  if (profile) cJSON_AddStringToObject(dev, "profile", profile);
  else cJSON_AddNullToObject(dev, "profile");
  if (!params) params = cJSON_CreateObject();
  cJSON_AddItemToObject(env, "params", params);
  cJSON_AddObjectToObject(env, "metrics");
  cJSON_AddArrayToObject(env, "series");
  cJSON_AddArrayToObject(env, "timeline");
  cJSON_AddArrayToObject(env, "findings");
  cJSON *stats = cJSON_AddObjectToObject(env, "stats");
  cJSON_AddNumberToObject(stats, "samples", 0);
  cJSON_AddNumberToObject(stats, "warmup", 0);
  cJSON_AddNullToObject(stats, "median_of");
  cJSON_AddNullToObject(stats, "iqr_pct");
  return env;
}

void lab_env_metric(cJSON *env, const char *key, double value) {
  cJSON *m = cJSON_GetObjectItemCaseSensitive(env, "metrics");
  cJSON_DeleteItemFromObjectCaseSensitive(m, key);
  cJSON_AddNumberToObject(m, key, value);
}

cJSON *lab_env_series(cJSON *env, const char *id, const char *label, const char *x_unit, const char *y_unit) {
  cJSON *s = cJSON_CreateObject();
  cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(env, "series"), s);
  cJSON_AddStringToObject(s, "id", id);
  cJSON_AddStringToObject(s, "label", label);
  cJSON_AddStringToObject(s, "x_unit", x_unit);
  cJSON_AddStringToObject(s, "y_unit", y_unit);
  return cJSON_AddArrayToObject(s, "points");
}

void lab_env_series_source(cJSON *env, const char *id, const char *source) {
  cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(env, "series")) {
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(s, "id");
    if (!cJSON_IsString(sid) || strcmp(sid->valuestring, id) != 0) continue;
    cJSON_DeleteItemFromObjectCaseSensitive(s, "source");
    cJSON_AddStringToObject(s, "source", source);
    return;
  }
}

void lab_series_point(cJSON *points, double x, double y) {
  cJSON *pt = cJSON_CreateArray();
  cJSON_AddItemToArray(pt, cJSON_CreateNumber(x));
  cJSON_AddItemToArray(pt, cJSON_CreateNumber(y));
  cJSON_AddItemToArray(points, pt);
}

void lab_env_event(cJSON *env, const char *lane, const char *label, double start_us, double end_us) {
  cJSON *e = cJSON_CreateObject();
  cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(env, "timeline"), e);
  cJSON_AddStringToObject(e, "lane", lane);
  cJSON_AddStringToObject(e, "label", label);
  cJSON_AddNumberToObject(e, "start_us", start_us);
  cJSON_AddNumberToObject(e, "end_us", end_us);
}

void lab_env_finding(cJSON *env, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(env, "findings"), cJSON_CreateString(buf));
}

void lab_env_stats(cJSON *env, int samples, int warmup, const char *median_of, double iqr_pct, const char *method) {
  cJSON *s = cJSON_CreateObject();
  cJSON_AddNumberToObject(s, "samples", samples);
  cJSON_AddNumberToObject(s, "warmup", warmup);
  if (median_of) cJSON_AddStringToObject(s, "median_of", median_of);
  else cJSON_AddNullToObject(s, "median_of");
  if (median_of) cJSON_AddNumberToObject(s, "iqr_pct", iqr_pct);
  else cJSON_AddNullToObject(s, "iqr_pct");
  if (method) cJSON_AddStringToObject(s, "method", method);
  cJSON_ReplaceItemInObjectCaseSensitive(env, "stats", s);
}

void lab_env_validation(cJSON *env, int validated, double max_abs_err) {
  cJSON_DeleteItemFromObjectCaseSensitive(env, "validated");
  cJSON_DeleteItemFromObjectCaseSensitive(env, "max_abs_err");
  cJSON_AddBoolToObject(env, "validated", validated);
  cJSON_AddNumberToObject(env, "max_abs_err", max_abs_err);
}

cJSON *lab_env_details(cJSON *env) {
  cJSON *d = cJSON_GetObjectItemCaseSensitive(env, "details");
  return d ? d : cJSON_AddObjectToObject(env, "details");
}

static int need(const cJSON *env, const char *key, int (*is)(const cJSON *), const char *what, lab_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(env, key);
  if (v && is(v)) return 0;
  return lab_fail(err, LAB_E_INTERNAL, key, "result envelope: '%s' must be %s", key, what);
}

static int is_obj(const cJSON *v) { return cJSON_IsObject(v); }
static int is_arr(const cJSON *v) { return cJSON_IsArray(v); }
static int is_str(const cJSON *v) { return cJSON_IsString(v); }
static int is_num(const cJSON *v) { return cJSON_IsNumber(v); }

int lab_envelope_check(const cJSON *env, lab_error *err) {
  if (!cJSON_IsObject(env)) return lab_fail(err, LAB_E_INTERNAL, NULL, "result envelope must be an object");
  if (need(env, "experiment", is_str, "a string", err) || need(env, "schema", is_num, "a number", err) ||
      need(env, "backend", is_str, "a string", err) || need(env, "device", is_obj, "an object", err) ||
      need(env, "params", is_obj, "an object", err) || need(env, "metrics", is_obj, "an object", err) ||
      need(env, "series", is_arr, "an array", err) || need(env, "timeline", is_arr, "an array", err) ||
      need(env, "findings", is_arr, "an array", err) || need(env, "stats", is_obj, "an object", err))
    return -1;
  const char *backend = cJSON_GetObjectItemCaseSensitive(env, "backend")->valuestring;
  if (strcmp(backend, "cuda") && strcmp(backend, "simulated") && strcmp(backend, "recorded") && strcmp(backend, "pytorch"))
    return lab_fail(err, LAB_E_INTERNAL, "backend", "backend must be cuda, simulated, recorded or pytorch");
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(env, "metrics")) if (!cJSON_IsNumber(m)) return lab_fail(
      err, LAB_E_INTERNAL, m->string, "metric '%s' must be a number", m->string ? m->string : "");
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(env, "series")) {
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(s, "points");
    if (need(s, "id", is_str, "a string", err) || need(s, "x_unit", is_str, "a string", err) ||
        need(s, "y_unit", is_str, "a string", err) || !cJSON_IsArray(pts))
      return lab_fail(err, LAB_E_INTERNAL, "series", "each series needs id, x_unit, y_unit and points");
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(s, "source");
    if (src && !(cJSON_IsString(src) && (!strcmp(src->valuestring, "measured") || !strcmp(src->valuestring, "computed"))))
      return lab_fail(err, LAB_E_INTERNAL, "series", "a series' source is \"measured\" or \"computed\"");
    const cJSON *pt;
    cJSON_ArrayForEach(pt, pts) if (cJSON_GetArraySize(pt) != 2 || !cJSON_IsNumber(pt->child) ||
                                    !cJSON_IsNumber(pt->child->next)) return lab_fail(err, LAB_E_INTERNAL, "series",
                                                                                      "each point must be [x, y]");
  }
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(env, "timeline")) {
    if (need(e, "lane", is_str, "a string", err) || need(e, "label", is_str, "a string", err) ||
        need(e, "start_us", is_num, "a number", err) || need(e, "end_us", is_num, "a number", err))
      return -1;
  }
  const cJSON *f;
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(env, "findings")) if (!cJSON_IsString(f)) return lab_fail(
      err, LAB_E_INTERNAL, "findings", "each finding must be a sentence");
  return 0;
}
