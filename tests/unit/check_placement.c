/* placement: parameter bounds, the preflight (which field, which devices),
 * a caught mismatch being a result and not an error, the envelope's shape,
 * and the copy/layer model on every built-in profile. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "exp_test.h"
#include "placement.h"
#include "suites.h"
#include "units.h"

static cJSON *sim(const char *json, const char *profile) {
  lab_error err;
  memset(&err, 0, sizeof err);
  cJSON *env = test_exp_simulate("placement", json, profile, &err);
  ck_assert_msg(env != NULL, "simulate failed: %s", err.message);
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  return env;
}

static const cJSON *details(const cJSON *env, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "details"), key);
}

static const char *tensor_device(const cJSON *env, const char *name) {
  const cJSON *t;
  cJSON_ArrayForEach(t, details(env, "tensors")) {
    if (strcmp(cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring, name) == 0)
      return cJSON_GetObjectItemCaseSensitive(t, "device")->valuestring;
  }
  return NULL;
}

START_TEST(placement_rejects_a_number_for_a_flag) {
  lab_error err;
  memset(&err, 0, sizeof err);
  ck_assert_ptr_null(test_exp_simulate("placement", "{\"move_labels\":1}", NULL, &err));
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(err.param, "move_labels");
}
END_TEST

START_TEST(placement_defaults_put_every_tensor_on_the_gpu) {
  cJSON *env = sim(NULL, NULL);
  ck_assert_int_eq((int)test_exp_metric(env, "preflight_ok"), 1);
  ck_assert_int_eq((int)test_exp_metric(env, "tensors_on_gpu"), LAB_T_COUNT);
  ck_assert_int_eq((int)test_exp_metric(env, "output_rows"), 64);
  ck_assert_int_eq((int)test_exp_metric(env, "output_cols"), 3);
  ck_assert_str_eq(tensor_device(env, "labels"), "cuda:0");
  const cJSON *shape = cJSON_GetObjectItemCaseSensitive(details(env, "output"), "shape");
  ck_assert_int_eq(cJSON_GetArraySize(shape), 2);
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(details(env, "output"), "device")->valuestring, "cuda:0");
  cJSON_Delete(env);
}
END_TEST

START_TEST(placement_preflight_names_the_stray_field_and_both_devices) {
  cJSON *env = sim("{\"move_labels\":false}", "t4");
  ck_assert_int_eq((int)test_exp_metric(env, "preflight_ok"), 0);
  ck_assert_int_eq((int)test_exp_metric(env, "kernels_run"), 0);
  const cJSON *pf = details(env, "preflight");
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(pf, "field")->valuestring, "labels");
  const char *msg = cJSON_GetObjectItemCaseSensitive(pf, "message")->valuestring;
  ck_assert_ptr_nonnull(strstr(msg, "'labels'"));
  ck_assert_ptr_nonnull(strstr(msg, "cpu"));
  ck_assert_ptr_nonnull(strstr(msg, "cuda:0"));
  /* the fix binds the copy, as the lesson teaches (.to() returns a new tensor) */
  ck_assert_ptr_nonnull(strstr(msg, "labels = labels.to(\"cuda\")"));
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(pf, "devices")), 2);
  ck_assert_str_eq(tensor_device(env, "labels"), "cpu");
  ck_assert(test_exp_finding_has(env, "'labels' stayed on cpu"));
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(details(env, "output"), "computed")));
  /* A caught mismatch is the lesson's result: no forward time, no shape. */
  ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "metrics"), "forward_ms"));
  cJSON_Delete(env);
}
END_TEST

START_TEST(placement_preflight_catches_a_field_moved_while_the_model_stays) {
  cJSON *env = sim("{\"model_on_gpu\":false,\"move_mask\":false,\"move_labels\":false}", NULL);
  const cJSON *pf = details(env, "preflight");
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(pf, "field")->valuestring, "features");
  ck_assert_ptr_nonnull(strstr(cJSON_GetObjectItemCaseSensitive(pf, "message")->valuestring, "model's weight is on cpu"));
  cJSON_Delete(env);
}
END_TEST

START_TEST(placement_nothing_moved_runs_on_the_cpu) {
  cJSON *env = sim("{\"model_on_gpu\":false,\"move_features\":false,\"move_mask\":false,\"move_labels\":false}", NULL);
  ck_assert_int_eq((int)test_exp_metric(env, "preflight_ok"), 1);
  ck_assert_int_eq((int)test_exp_metric(env, "copied_bytes"), 0);
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(details(env, "output"), "device")->valuestring, "cpu");
  ck_assert(test_exp_finding_has(env, "ran on the CPU"));
  cJSON_Delete(env);
}
END_TEST

START_TEST(placement_preflight_reports_the_first_stray_only_once) {
  lab_tensor_info t[3] = {{.name = "weight", .where = LAB_ON_GPU},
                          {.name = "features", .where = LAB_ON_GPU},
                          {.name = "mask", .where = LAB_ON_CPU}};
  int stray = 7;
  char msg[320];
  ck_assert_int_eq(lab_placement_preflight(t, 3, &stray, msg, sizeof msg), 0);
  ck_assert_int_eq(stray, 2);
  ck_assert_ptr_nonnull(strstr(msg, "'mask' is on cpu"));
  t[2].where = LAB_ON_GPU;
  ck_assert_int_eq(lab_placement_preflight(t, 3, &stray, msg, sizeof msg), 1);
  ck_assert_int_eq(stray, -1);
  ck_assert_str_eq(msg, "");
}
END_TEST

START_TEST(placement_copies_grow_with_the_batch_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    const char *name = lab_profile_at(i)->name;
    cJSON *small = sim("{\"batch\":16}", name), *big = sim("{\"batch\":4096}", name);
    cJSON *fewer = sim("{\"batch\":4096,\"move_features\":false,\"model_on_gpu\":false,\"move_mask\":false,"
                       "\"move_labels\":false}", name);
    ck_assert_msg(test_exp_metric(big, "copy_ms") > test_exp_metric(small, "copy_ms"), "%s", name);
    ck_assert_msg(test_exp_metric(big, "copied_bytes") > 100 * test_exp_metric(small, "copied_bytes") / 4, "%s", name);
    /* The layer on the GPU beats the same layer on one CPU core at this size. */
    ck_assert_msg(test_exp_metric(big, "forward_ms") < test_exp_metric(fewer, "forward_ms"), "%s", name);
    ck_assert(test_exp_finding_has(big, "GB/s"));
    cJSON_Delete(small);
    cJSON_Delete(big);
    cJSON_Delete(fewer);
  }
}
END_TEST

START_TEST(placement_findings_quote_this_runs_numbers) {
  cJSON *env = sim("{\"batch\":128}", "a100-sxm");
  ck_assert(test_exp_finding_has(env, "128×3 output"));
  char copied[32];
  lab_fmt_bytes_si(test_exp_metric(env, "copied_bytes"), copied, sizeof copied);
  ck_assert(test_exp_finding_has(env, copied));
  cJSON_Delete(env);
}
END_TEST

TEST_EXPERIMENT_SUITE(placement);

TEST_EXPERIMENT_SUITE(placement) {
  Suite *s = suite_create("placement");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, placement_rejects_a_number_for_a_flag);
  tcase_add_test(tc, placement_defaults_put_every_tensor_on_the_gpu);
  tcase_add_test(tc, placement_preflight_names_the_stray_field_and_both_devices);
  tcase_add_test(tc, placement_preflight_catches_a_field_moved_while_the_model_stays);
  tcase_add_test(tc, placement_nothing_moved_runs_on_the_cpu);
  tcase_add_test(tc, placement_preflight_reports_the_first_stray_only_once);
  tcase_add_test(tc, placement_copies_grow_with_the_batch_on_every_profile);
  tcase_add_test(tc, placement_findings_quote_this_runs_numbers);
  suite_add_tcase(s, tc);
  return s;
}
