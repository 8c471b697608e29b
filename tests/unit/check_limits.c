/* Per-run limits: the GPU-seconds quota, and the GPU memory each
 * experiment's parameters ask for against the class's cap. */
#include <string.h>

#include "cjson_compat.h"
#include "run_limits.h"
#include "registry.h"
#include "suites.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

START_TEST(quota_refuses_once_the_gpu_seconds_are_used) {
  lab_error err;
  ck_assert_int_eq(srv_limits_quota(0, 1, &err), 0);
  ck_assert_int_eq(srv_limits_quota(999.9, 1, &err), 0);
  ck_assert_int_eq(srv_limits_quota(1000, 1, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_QUOTA_EXCEEDED);
  ck_assert_ptr_nonnull(strstr(err.message, "simulated"));
}
END_TEST

static void params_of(const char *exp, const char *json, lab_params *p) {
  const lab_experiment *e = lab_experiment_find(exp);
  ck_assert_ptr_nonnull(e);
  cJSON *o = cJSON_Parse(json);
  lab_error err;
  ck_assert_int_eq(lab_experiment_params(e, o, p, &err), 0);
  cJSON_Delete(o);
}

static int gpu_mem(const char *exp, const lab_params *p, double max_gib, lab_error *err) {
  return srv_limits_gpu_mem(lab_experiment_find(exp), p, max_gib, err);
}

static double gpu_bytes(const char *exp, const lab_params *p, const char **param) {
  return lab_experiment_gpu_bytes(lab_experiment_find(exp), p, param);
}

START_TEST(memory_budget_over_the_cap_names_budget_gib) {
  lab_params p;
  lab_error err;
  params_of("memory", "{\"budget_gib\":8,\"force_oom\":true}", &p);
  ck_assert_int_eq(gpu_mem("memory", &p, 4, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_OVER_MEMORY_LIMIT);
  ck_assert_str_eq(err.param, "budget_gib");
  params_of("memory", "{\"budget_gib\":2,\"force_oom\":true}", &p);
  ck_assert_int_eq(gpu_mem("memory", &p, 4, &err), 0); /* the OOM stays inside its budget */
}
END_TEST

START_TEST(transfer_and_timing_sizes_set_their_memory) {
  lab_params p;
  lab_error err;
  const char *param;
  params_of("transfer", "{\"max_bytes\":1073741824}", &p);
  ck_assert_double_eq_tol(gpu_bytes("transfer", &p, &param), GIB, 1);
  ck_assert_str_eq(param, "max_bytes");
  ck_assert_int_eq(gpu_mem("transfer", &p, 0.5, &err), -1);
  ck_assert_str_eq(err.param, "max_bytes");
  ck_assert_int_eq(gpu_mem("transfer", &p, 1, &err), 0);
  params_of("timing", "{\"size\":8192,\"repeats\":1}", &p);
  ck_assert_double_eq_tol(gpu_bytes("timing", &p, &param), 3.0 * 8192 * 8192 * 4, 1);
  ck_assert_str_eq(param, "size");
}
END_TEST

START_TEST(every_gpu_experiment_fits_a_default_cap_with_default_params) {
  for (int i = 0; i < lab_experiment_count(); i++) {
    const lab_experiment *e = lab_experiment_at(i);
    lab_params p;
    lab_error err;
    ck_assert_int_eq(lab_experiment_params(e, NULL, &p, &err), 0);
    ck_assert_msg(srv_limits_gpu_mem(e, &p, 4, &err) == 0, "%s: %s", e->name, err.message);
    /* Every experiment with a GPU side states what it takes: none slips past the cap unmeasured. */
    const char *param = NULL;
    if (lab_experiment_has_kernel(e))
      ck_assert_msg(lab_experiment_gpu_bytes(e, &p, &param) > 0 && param, "%s has no GPU memory estimate", e->name);
  }
}
END_TEST

Suite *make_limits_suite(void) {
  Suite *s = suite_create("limits");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, quota_refuses_once_the_gpu_seconds_are_used);
  tcase_add_test(tc, memory_budget_over_the_cap_names_budget_gib);
  tcase_add_test(tc, transfer_and_timing_sizes_set_their_memory);
  tcase_add_test(tc, every_gpu_experiment_fits_a_default_cap_with_default_params);
  suite_add_tcase(s, tc);
  return s;
}
