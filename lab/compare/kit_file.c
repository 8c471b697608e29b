/* The measurement kit's file, read as untrusted input: at most 1 MiB of
 * UTF-8 JSON nested at most 64 deep; a "gpulab_measure" version, a
 * provenance with a device, and results that are each a well-formed
 * envelope of a known experiment with backend "pytorch", parameters the
 * experiment accepts, finite numbers and bounded texts; each experiment at
 * most once; a plan run (--plan) checked by kit_plan.c, with which the
 * results may be none. What fails is named with its place in the file. */
#include "kit_file.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "json.h"
#include "kit_plan.h"
#include "registry.h"

static int bad(lab_error *err, const char *where, const char *what) {
  return lab_fail(err, LAB_E_KIT_INVALID, NULL, "Not a measurement kit file gpulab can read: %.80s %.200s", where, what);
}

/* Every number finite and every text bounded, at any depth (the nesting is already bounded). */
static int values_ok(const cJSON *v, const char *where, lab_error *err) {
  if (cJSON_IsNumber(v) && !isfinite(v->valuedouble)) return bad(err, where, "holds a number that is not finite");
  if (cJSON_IsString(v) && strlen(v->valuestring) > LAB_KIT_MAX_STRING)
    return bad(err, where, "holds a text longer than 4 KiB");
  if (v->string && strlen(v->string) > LAB_KIT_MAX_NAME) return bad(err, where, "has a key longer than 200 bytes");
  const cJSON *c;
  cJSON_ArrayForEach(c, v) if (values_ok(c, where, err)) return -1;
  return 0;
}

static int short_text(const cJSON *o, const char *key, int required) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!v || cJSON_IsNull(v)) return !required;
  return cJSON_IsString(v) && strlen(v->valuestring) <= LAB_KIT_MAX_NAME;
}

static int provenance_ok(const cJSON *kit, lab_error *err) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(kit, "provenance");
  const cJSON *dev = cJSON_GetObjectItemCaseSensitive(p, "device");
  if (!cJSON_IsObject(p) || !cJSON_IsObject(dev)) return bad(err, "provenance", "must be an object with a device");
  const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dev, "kind"));
  if (!kind || (strcmp(kind, "cuda") && strcmp(kind, "rocm") && strcmp(kind, "mps") && strcmp(kind, "cpu")))
    return bad(err, "provenance.device.kind", "must be cuda, rocm, mps or cpu");
  if (!short_text(dev, "name", 0) || !short_text(dev, "compute_capability", 0) || !short_text(dev, "gpu_arch", 0))
    return bad(err, "provenance.device", "name, compute_capability and gpu_arch are texts of at most 200 bytes");
  static const char *const texts[] = {"torch", "cuda_runtime", "hip_runtime", "driver", "platform", "date", "kit_version"};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
    if (!short_text(p, texts[i], !strcmp(texts[i], "torch")))
      return bad(err, "provenance", "must give torch, and its other fields as texts of at most 200 bytes");
  const cJSON *mem = cJSON_GetObjectItemCaseSensitive(dev, "memory_bytes");
  if (mem && !cJSON_IsNull(mem) && !(cJSON_IsNumber(mem) && mem->valuedouble >= 0 && mem->valuedouble < 1e15))
    return bad(err, "provenance.device.memory_bytes", "must be a number of bytes");
  return 0;
}

static int result_ok(const cJSON *env, int i, const char **seen, lab_error *err) {
  char where[64];
  lab_error why = {0};
  snprintf(where, sizeof where, "results[%d]", i);
  if (lab_envelope_check(env, &why)) return bad(err, where, why.message);
  const char *exp = cJSON_GetObjectItemCaseSensitive(env, "experiment")->valuestring;
  const char *backend = cJSON_GetObjectItemCaseSensitive(env, "backend")->valuestring;
  const lab_experiment *e = lab_experiment_find(exp);
  if (!e) return bad(err, where, "names an experiment gpulab does not have");
  snprintf(where, sizeof where, "results[%d] (%s)", i, e->name);
  if (strcmp(backend, "pytorch") != 0) return bad(err, where, "must have backend \"pytorch\": the kit's runs are the learner's own");
  for (int k = 0; k < i; k++)
    if (seen[k] && !strcmp(seen[k], e->name)) return bad(err, where, "repeats an experiment already in the file");
  seen[i] = e->name;
  lab_params p;
  if (lab_experiment_params(e, cJSON_GetObjectItemCaseSensitive(env, "params"), &p, &why))
    return bad(err, where, why.message);
  if (!short_text(cJSON_GetObjectItemCaseSensitive(env, "device"), "name", 0))
    return bad(err, where, "device.name must be a text of at most 200 bytes");
  return values_ok(env, where, err);
}

static int list_ok(const cJSON *kit, const char *key, const char *text_key, lab_error *err) {
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(kit, key), *it;
  if (!list || cJSON_IsNull(list)) return 0;
  if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > 32) return bad(err, key, "must be a list of at most 32 entries");
  cJSON_ArrayForEach(it, list) {
    if (!short_text(it, "experiment", 1) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(it, text_key)))
      return bad(err, key, "entries must give the experiment and a text");
  }
  return values_ok(list, key, err);
}

cJSON *lab_kit_read(const char *text, size_t len, lab_error *err) {
  if (len > LAB_KIT_MAX_BYTES) {
    lab_fail(err, LAB_E_KIT_TOO_LARGE, NULL, "The file is over 1 MiB (%zu bytes or more); the measurement kit "
             "never writes one that large, so this is not its file as written.", len);
    return NULL;
  }
  size_t at = 0;
  cJSON *kit = text ? lab_json_parse(text, len, LAB_JSON_MAX_DEPTH, &at) : NULL;
  if (!kit) {
    lab_fail(err, LAB_E_KIT_NOT_JSON, NULL, "The file is not JSON from byte %zu on (cut short, edited, nested "
             "deeper than 64, or not UTF-8 text).", at);
    return NULL;
  }
  const cJSON *results = cJSON_GetObjectItemCaseSensitive(kit, "results"), *env;
  /* kit/measure.py --plan writes "plan_run" (null when the run failed, its error in "failed") and no results */
  const cJSON *plan_run = cJSON_GetObjectItemCaseSensitive(kit, "plan_run");
  int planned = plan_run != NULL;
  if (cJSON_IsNull(plan_run)) plan_run = NULL;
  const char *seen[32] = {0};
  int i = 0, rc = 0;
  if (!cJSON_IsObject(kit) || !short_text(kit, "gpulab_measure", 1)) rc = bad(err, "the file", "has no \"gpulab_measure\" version");
  else if (provenance_ok(kit, err)) rc = -1;
  else if (!cJSON_IsArray(results) || cJSON_GetArraySize(results) < (planned ? 0 : 1) || cJSON_GetArraySize(results) > 32)
    rc = bad(err, "results", "must be a list of 1 to 32 result envelopes (0 to 32 with a plan run)");
  else if (plan_run && lab_kit_plan_check(plan_run, err)) rc = -1;
  else if (list_ok(kit, "skipped", "why", err) || list_ok(kit, "failed", "error", err)) rc = -1;
  else if (values_ok(cJSON_GetObjectItemCaseSensitive(kit, "provenance"), "provenance", err)) rc = -1;
  else if (plan_run && values_ok(plan_run, "plan_run", err)) rc = -1;
  else
    cJSON_ArrayForEach(env, results) if (!rc && result_ok(env, i++, seen, err)) rc = -1;
  if (rc) {
    cJSON_Delete(kit);
    return NULL;
  }
  return kit;
}

const char *lab_kit_kind(const cJSON *kit) {
  const cJSON *dev = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(kit, "provenance"), "device");
  const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dev, "kind"));
  return kind ? kind : "cpu";
}

const cJSON *lab_kit_result(const cJSON *kit, const char *experiment) {
  const cJSON *env;
  cJSON_ArrayForEach(env, cJSON_GetObjectItemCaseSensitive(kit, "results")) {
    const char *e = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(env, "experiment"));
    if (e && !strcmp(e, experiment)) return env;
  }
  return NULL;
}
