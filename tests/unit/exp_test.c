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
