/* The shared experiment-suite helpers (see exp_test.h). */
#include "exp_test.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "memory.h"
#include "sim_mem.h"

cJSON *test_exp_simulate(const char *name, const char *params_json, const char *profile, lab_error *err) {
  const lab_experiment *e = lab_experiment_find(name);
  ck_assert_ptr_nonnull(e);
  cJSON *params = params_json ? cJSON_Parse(params_json) : NULL;
  if (params_json) ck_assert_ptr_nonnull(params);
  cJSON *out = NULL;
  int rc = lab_simulate(e, params, profile, &out, err);
  cJSON_Delete(params);
  if (rc) {
    ck_assert_ptr_null(out);
    return NULL;
  }
  return out;
}

double test_exp_metric(const cJSON *env, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "metrics"), key);
  ck_assert_msg(cJSON_IsNumber(v), "metric %s is missing", key);
  return v->valuedouble;
}

const cJSON *test_exp_series(const cJSON *env, const char *id) {
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(env, "series")) {
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(s, "id");
    if (cJSON_IsString(sid) && strcmp(sid->valuestring, id) == 0) return cJSON_GetObjectItemCaseSensitive(s, "points");
  }
  return NULL;
}

double test_exp_y(const cJSON *env, const char *id, int i) {
  const cJSON *pts = test_exp_series(env, id);
  ck_assert_msg(pts != NULL, "series %s is missing", id);
  const cJSON *pt = cJSON_GetArrayItem(pts, i);
  ck_assert_msg(pt != NULL, "series %s has no point %d", id, i);
  return cJSON_GetArrayItem(pt, 1)->valuedouble;
}

static void expect_reject(const char *name, const char *json, const char *param) {
  lab_error err;
  memset(&err, 0, sizeof err);
  cJSON *env = test_exp_simulate(name, json, "t4", &err);
  ck_assert_msg(env == NULL, "%s accepted %s", name, json);
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(err.param, param);
  ck_assert_msg(strlen(err.message) > 10, "message too short: %s", err.message);
}

void test_exp_check_bounds(const char *name) {
  const lab_experiment *e = lab_experiment_find(name);
  ck_assert_ptr_nonnull(e);
  char json[160];
  for (int i = 0; i < e->n_params; i++) {
    const lab_param_spec *s = &e->params[i];
    if (s->type == LAB_P_BOOL || s->type == LAB_P_ENUM) { /* a flag is true/false, a choice one of its words */
      snprintf(json, sizeof json, "{\"%s\":1}", s->name);
      expect_reject(name, json, s->name);
      snprintf(json, sizeof json, "{\"%s\":\"%s\"}", s->name, s->type == LAB_P_BOOL ? "yes" : "no-such-choice");
      expect_reject(name, json, s->name);
      continue;
    }
    snprintf(json, sizeof json, "{\"%s\":%.17g}", s->name, s->min - 1);
    expect_reject(name, json, s->name);
    snprintf(json, sizeof json, "{\"%s\":%.17g}", s->name, s->max + 1);
    expect_reject(name, json, s->name);
    if (s->min > -1) { /* a negative size is refused */
      snprintf(json, sizeof json, "{\"%s\":-1}", s->name);
      expect_reject(name, json, s->name);
    }
    snprintf(json, sizeof json, "{\"%s\":\"%.17g\"}", s->name, s->def);
    expect_reject(name, json, s->name);
    if (s->type == LAB_P_INT) {
      snprintf(json, sizeof json, "{\"%s\":%.17g}", s->name, s->min + 0.5);
      expect_reject(name, json, s->name);
    }
  }
  expect_reject(name, "{\"bogus\":1}", "bogus");
}

int test_exp_finding_has(const cJSON *env, const char *text) {
  const cJSON *f;
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(env, "findings")) if (cJSON_IsString(f) &&
                                                                              strstr(f->valuestring, text)) return 1;
  return 0;
}

cJSON *test_exp_memory_capped(const char *params_json, const char *profile) {
  lab_error err;
  memset(&err, 0, sizeof err);
  cJSON *in = params_json ? cJSON_Parse(params_json) : NULL;
  lab_params p;
  ck_assert_int_eq(lab_experiment_params(lab_experiment_find("memory"), in, &p, &err), 0);
  cJSON_Delete(in);
  const lab_profile *prof = profile ? lab_profile_find(profile) : lab_profile_default();
  lab_sim_mem mem;
  lab_sim_mem_init(&mem, prof);
  lab_pool_device dev = lab_sim_mem_device(&mem);
  lab_pool *pool = malloc(sizeof *pool);
  lab_memory_measure *m = malloc(sizeof *m);
  ck_assert(pool && m);
  lab_memory_walk(&p, pool, &dev, m);
  cJSON *env = lab_memory_envelope(&p, m, "cuda", prof->device_name, prof);
  free(pool);
  free(m);
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  return env;
}

bool test_exp_applies(const char *name, int i) {
  const lab_experiment *e = lab_experiment_find(name);
  ck_assert_ptr_nonnull(e);
  ck_assert_ptr_nonnull(lab_profile_at(i));
  return lab_experiment_applies(e, lab_profile_at(i));
}

cJSON *test_kit_of(const char *device, const char *cc, const char *profile, const char *const *exps, int n) {
  cJSON *kit = cJSON_CreateObject(), *prov = cJSON_AddObjectToObject(kit, "provenance");
  cJSON_AddStringToObject(kit, "gpulab_measure", "1.0");
  cJSON *dev = cJSON_AddObjectToObject(prov, "device");
  cJSON_AddStringToObject(dev, "kind", "cuda");
  cJSON_AddStringToObject(dev, "name", device);
  if (cc) cJSON_AddStringToObject(dev, "compute_capability", cc);
  else cJSON_AddNullToObject(dev, "compute_capability");
  cJSON_AddStringToObject(prov, "torch", "2.5.1+cu121");
  cJSON_AddStringToObject(prov, "platform", "Colab");
  cJSON *results = cJSON_AddArrayToObject(kit, "results");
  for (int i = 0; i < n; i++) {
    cJSON *env = NULL, *params = cJSON_Parse(!strcmp(exps[i], "timing") ? "{\"view\":\"pytorch\"}" : "{}");
    lab_error err;
    ck_assert_int_eq(lab_simulate(lab_experiment_find(exps[i]), params, profile, &env, &err), 0);
    cJSON_Delete(params);
    cJSON_ReplaceItemInObject(env, "backend", cJSON_CreateString("pytorch"));
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(env, "device"), "name", cJSON_CreateString(device));
    cJSON_AddItemToObject(env, "measured_with", cJSON_Parse("{\"kit\":\"1.0\",\"torch\":\"2.5.1+cu121\","
                                                            "\"platform\":\"Colab\",\"date\":\"2026-11-20\"}"));
    cJSON_AddItemToArray(results, env);
  }
  return kit;
}

/* A plan run as kit/measure.py --plan writes it on a T4, doctored: the file's
 * ratio and in_band for allocated are wrong, reserved's in_band claims a
 * figure outside its band is inside. */
const char TEST_PLAN_RUN[] =
    "{\"gpulab_measure\":\"1.0\",\"provenance\":{\"torch\":\"2.5.1+cu121\",\"device\":{\"kind\":\"cuda\",\"name\":"
    "\"Tesla T4\",\"compute_capability\":\"7.5\"}},\"results\":[],\"skipped\":[],\"failed\":[],\"plan_run\":{"
    "\"settings\":{\"model\":\"gpt2-124m\",\"arch\":\"gpt2\",\"seq\":128},\"profile\":\"t4\",\"device\":\"cuda\","
    "\"verdict\":\"3 of 4 counters within the plan's band\",\"oom\":null,\"counters\":["
    "{\"id\":\"allocated\",\"what\":\"torch.cuda.max_memory_allocated()\",\"measured\":2600000000,"
    "\"predicted\":2500000000,\"band\":[2390000000,2770000000],\"ratio\":9,\"in_band\":false},"
    "{\"id\":\"reserved\",\"what\":\"torch.cuda.max_memory_reserved()\",\"measured\":3000000000,"
    "\"predicted\":2600000000,\"band\":[2360000000,2900000000],\"ratio\":1.15,\"in_band\":true},"
    "{\"id\":\"step_ms\",\"what\":\"the median step, CUDA events\",\"measured\":100,\"predicted\":90,"
    "\"band\":[72,112],\"ratio\":1.11,\"in_band\":true}],"
    "\"unavailable\":[],\"notes\":[],\"steps\":{\"warmup\":2,\"measured\":5}}}";

cJSON *test_json_file(const char *path) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s (run from the repository root)", path);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  ck_assert(len > 0);
  char *b = malloc((size_t)len + 1);
  ck_assert_ptr_nonnull(b);
  ck_assert_int_eq(fread(b, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  b[len] = '\0';
  cJSON *j = cJSON_Parse(b);
  free(b);
  ck_assert_msg(j != NULL, "%s is not JSON", path);
  return j;
}
