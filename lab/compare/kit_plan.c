/* The plan run of a kit file (kit_plan.h): each counter's id one of the
 * eight the kit reads, once; numbers finite, non-negative and below 1e15
 * (bytes or milliseconds); a band [low, high] with low <= high; texts
 * bounded by the file's own rule (values_ok in kit_file.c); lists short. */
#include "kit_plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const COUNTERS[LAB_KIT_PLAN_COUNTERS] = {
    "weights", "gradients", "optimizer_state", "activations", "allocated", "reserved", "device", "step_ms"};

static int bad(lab_error *err, const char *where, const char *what) {
  return lab_fail(err, LAB_E_KIT_INVALID, NULL, "Not a measurement kit file gpulab can read: %.80s %.200s", where, what);
}

static int counter_index(const cJSON *id) {
  const char *s = cJSON_GetStringValue(id);
  for (int i = 0; s && i < LAB_KIT_PLAN_COUNTERS; i++)
    if (!strcmp(s, COUNTERS[i])) return i;
  return -1;
}

/* absent, null, or a finite number in [0, 1e15) */
static int amount_ok(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return !v || cJSON_IsNull(v) || (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0 &&
                                   v->valuedouble < 1e15);
}

static int band_ok(const cJSON *band) {
  if (!band || cJSON_IsNull(band)) return 1;
  if (!cJSON_IsArray(band) || cJSON_GetArraySize(band) != 2) return 0;
  const cJSON *lo = cJSON_GetArrayItem(band, 0), *hi = cJSON_GetArrayItem(band, 1);
  return cJSON_IsNumber(lo) && cJSON_IsNumber(hi) && isfinite(lo->valuedouble) && isfinite(hi->valuedouble) &&
         lo->valuedouble >= 0 && lo->valuedouble <= hi->valuedouble && hi->valuedouble < 1e15;
}

static int text_or_null(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return !v || cJSON_IsNull(v) || cJSON_IsString(v);
}

static int counters_ok(const cJSON *list, lab_error *err) {
  char where[64];
  int seen[LAB_KIT_PLAN_COUNTERS] = {0}, i = 0;
  const cJSON *c;
  if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > LAB_KIT_PLAN_COUNTERS)
    return bad(err, "plan_run.counters", "must be a list of at most 8 counters");
  cJSON_ArrayForEach(c, list) {
    snprintf(where, sizeof where, "plan_run.counters[%d]", i++);
    int k = counter_index(cJSON_GetObjectItemCaseSensitive(c, "id"));
    if (!cJSON_IsObject(c) || k < 0)
      return bad(err, where, "must name one of weights, gradients, optimizer_state, activations, allocated, "
                             "reserved, device, step_ms");
    if (seen[k]++) return bad(err, where, "repeats a counter already in the plan run");
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(c, "what")) || !text_or_null(c, "note"))
      return bad(err, where, "must say what it read (\"what\", a text)");
    if (!amount_ok(c, "measured") || !amount_ok(c, "predicted") || !amount_ok(c, "ratio"))
      return bad(err, where, "measured, predicted and ratio must be numbers from 0 to 1e15, or null");
    if (!band_ok(cJSON_GetObjectItemCaseSensitive(c, "band")))
      return bad(err, where, "band must be [low, high] with 0 <= low <= high, or null");
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(c, "in_band");
    if (in && !cJSON_IsNull(in) && !cJSON_IsBool(in)) return bad(err, where, "in_band must be true, false or null");
  }
  return 0;
}

int lab_kit_plan_check(const cJSON *pr, lab_error *err) {
  if (!cJSON_IsObject(pr)) return bad(err, "plan_run", "must be an object (or null)");
  if (counters_ok(cJSON_GetObjectItemCaseSensitive(pr, "counters"), err)) return -1;
  const cJSON *u = cJSON_GetObjectItemCaseSensitive(pr, "unavailable"), *it;
  if (u && (!cJSON_IsArray(u) || cJSON_GetArraySize(u) > LAB_KIT_PLAN_COUNTERS))
    return bad(err, "plan_run.unavailable", "must be a list of at most 8 entries");
  cJSON_ArrayForEach(it, u) if (counter_index(cJSON_GetObjectItemCaseSensitive(it, "id")) < 0 ||
                                !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(it, "why")))
      return bad(err, "plan_run.unavailable", "entries must name a counter and say why (\"why\", a text)");
  const cJSON *notes = cJSON_GetObjectItemCaseSensitive(pr, "notes");
  if (notes && (!cJSON_IsArray(notes) || cJSON_GetArraySize(notes) > 8))
    return bad(err, "plan_run.notes", "must be a list of at most 8 texts");
  cJSON_ArrayForEach(it, notes) if (!cJSON_IsString(it)) return bad(err, "plan_run.notes", "must hold texts only");
  if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(pr, "verdict")))
    return bad(err, "plan_run.verdict", "must be a text");
  const cJSON *oom = cJSON_GetObjectItemCaseSensitive(pr, "oom");
  if (oom && !cJSON_IsNull(oom)) {
    const cJSON *step = cJSON_GetObjectItemCaseSensitive(oom, "step");
    if (!cJSON_IsObject(oom) || !cJSON_IsNumber(step) || step->valuedouble < 0 || step->valuedouble > 1000 ||
        !cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(oom, "predicted")) ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(oom, "message")) || !text_or_null(oom, "phase"))
      return bad(err, "plan_run.oom", "must give the step (0 to 1000), whether it was predicted and the message");
  }
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(pr, "settings");
  if (s && !cJSON_IsObject(s)) return bad(err, "plan_run.settings", "must be an object");
  return 0;
}

static void add_copy(cJSON *to, const cJSON *from, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, key);
  cJSON_AddItemToObject(to, key, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
}

static cJSON *counter_report(const cJSON *c) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  add_copy(o, c, "id");
  add_copy(o, c, "what");
  add_copy(o, c, "measured");
  add_copy(o, c, "predicted");
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(c, "measured"), *p = cJSON_GetObjectItemCaseSensitive(c, "predicted");
  const cJSON *band = cJSON_GetObjectItemCaseSensitive(c, "band");
  /* a counter the kit says is not the plan's (a CPU step, a Mac's lower bound) comes with a null ratio */
  int scored = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(c, "ratio"));
  if (scored && cJSON_IsNumber(m) && cJSON_IsNumber(p) && p->valuedouble > 0)
    cJSON_AddNumberToObject(o, "ratio", m->valuedouble / p->valuedouble);
  else cJSON_AddNullToObject(o, "ratio");
  add_copy(o, c, "band");
  if (scored && cJSON_IsNumber(m) && cJSON_IsArray(band))
    cJSON_AddBoolToObject(o, "in_band", cJSON_GetArrayItem(band, 0)->valuedouble <= m->valuedouble &&
                                            m->valuedouble <= cJSON_GetArrayItem(band, 1)->valuedouble);
  else cJSON_AddNullToObject(o, "in_band");
  return o;
}

cJSON *lab_kit_plan_report(const cJSON *pr) {
  cJSON *o = cJSON_CreateObject(), *list;
  const cJSON *c, *s = cJSON_GetObjectItemCaseSensitive(pr, "settings");
  if (!o) return NULL;
  const cJSON *model = cJSON_GetObjectItemCaseSensitive(s, "model");
  cJSON_AddItemToObject(o, "model", cJSON_IsString(model) ? cJSON_Duplicate(model, 0) : cJSON_CreateNull());
  add_copy(o, s, "arch");
  add_copy(o, pr, "profile");
  add_copy(o, pr, "device");
  add_copy(o, pr, "verdict");
  add_copy(o, pr, "oom");
  list = cJSON_AddArrayToObject(o, "counters");
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(pr, "counters")) cJSON_AddItemToArray(list, counter_report(c));
  add_copy(o, pr, "unavailable");
  add_copy(o, pr, "notes");
  add_copy(o, pr, "steps");
  return o;
}
