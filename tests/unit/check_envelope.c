/* The result envelope: builders, the shape check, the error table. */
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "registry.h"
#include "suites.h"

START_TEST(envelope_new_has_every_key) {
  cJSON *env = lab_envelope_new("timing", "simulated", "NVIDIA H100", "h100-sxm", NULL);
  lab_error err;
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  ck_assert_int_eq(cJSON_GetObjectItem(env, "schema")->valueint, LAB_SCHEMA_VERSION);
  ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(env, "device"), "profile")->valuestring, "h100-sxm");
  cJSON_Delete(env);
}
END_TEST

/* The fourth producer: a learner's run with the measurement kit. */
START_TEST(envelope_check_takes_the_four_backends) {
  static const char *const ok[] = {"cuda", "simulated", "recorded", "pytorch"};
  lab_error err;
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    cJSON *env = lab_envelope_new("timing", ok[i], "Tesla T4", NULL, NULL);
    ck_assert_msg(lab_envelope_check(env, &err) == 0, "%s refused", ok[i]);
    cJSON_Delete(env);
  }
  cJSON *env = lab_envelope_new("timing", "torch", "Tesla T4", NULL, NULL);
  ck_assert_int_eq(lab_envelope_check(env, &err), -1);
  ck_assert_ptr_nonnull(strstr(err.message, "pytorch"));
  cJSON_Delete(env);
}
END_TEST

START_TEST(envelope_builders_fill_the_golden_shape) {
  cJSON *env = lab_envelope_new("timing", "cuda", "GPU", NULL, cJSON_CreateObject());
  lab_env_metric(env, "events_ms", 40.1);
  lab_env_metric(env, "events_ms", 40.2); /* replaced, not duplicated */
  cJSON *pts = lab_env_series(env, "pinned", "pinned", "bytes", "GB/s");
  lab_series_point(pts, 4096, 1.9);
  lab_env_event(env, "cpu", "launch sgemm", 0, 6);
  lab_env_finding(env, "The GPU worked %.1f ms.", 40.2);
  lab_env_stats(env, 20, 3, "events_ms", 1.2, "CUDA events around 20 batches");
  lab_env_validation(env, 1, 1e-5);
  char *text = cJSON_PrintUnformatted(env);
  const char *golden =
      "{\"experiment\":\"timing\",\"schema\":1,\"backend\":\"cuda\",\"device\":{\"name\":\"GPU\",\"profile\":null},"
      "\"params\":{},\"metrics\":{\"events_ms\":40.2},\"series\":[{\"id\":\"pinned\",\"label\":\"pinned\","
      "\"x_unit\":\"bytes\",\"y_unit\":\"GB/s\",\"points\":[[4096,1.9]]}],\"timeline\":[{\"lane\":\"cpu\","
      "\"label\":\"launch sgemm\",\"start_us\":0,\"end_us\":6}],\"findings\":[\"The GPU worked 40.2 ms.\"],"
      "\"stats\":{\"samples\":20,\"warmup\":3,\"median_of\":\"events_ms\",\"iqr_pct\":1.2,"
      "\"method\":\"CUDA events around 20 batches\"},\"validated\":true,\"max_abs_err\":1e-05}";
  ck_assert_str_eq(text, golden);
  cJSON_free(text);
  cJSON_Delete(env);
}
END_TEST

START_TEST(envelope_check_rejects_bad_shapes) {
  lab_error err;
  const char *bad[] = {
      "[]",
      "{\"experiment\":\"x\"}",
      "{\"experiment\":\"x\",\"schema\":1,\"backend\":\"gpu\",\"device\":{},\"params\":{},\"metrics\":{},"
      "\"series\":[],\"timeline\":[],\"findings\":[],\"stats\":{}}",
      "{\"experiment\":\"x\",\"schema\":1,\"backend\":\"cuda\",\"device\":{},\"params\":{},\"metrics\":{\"a\":\"1\"},"
      "\"series\":[],\"timeline\":[],\"findings\":[],\"stats\":{}}",
      "{\"experiment\":\"x\",\"schema\":1,\"backend\":\"cuda\",\"device\":{},\"params\":{},\"metrics\":{},"
      "\"series\":[{\"id\":\"a\",\"x_unit\":\"b\",\"y_unit\":\"c\",\"points\":[[1]]}],\"timeline\":[],"
      "\"findings\":[],\"stats\":{}}",
      "{\"experiment\":\"x\",\"schema\":1,\"backend\":\"cuda\",\"device\":{},\"params\":{},\"metrics\":{},"
      "\"series\":[],\"timeline\":[{\"lane\":\"cpu\"}],\"findings\":[],\"stats\":{}}",
      "{\"experiment\":\"x\",\"schema\":1,\"backend\":\"cuda\",\"device\":{},\"params\":{},\"metrics\":{},"
      "\"series\":[],\"timeline\":[],\"findings\":[3],\"stats\":{}}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cJSON *o = cJSON_Parse(bad[i]);
    ck_assert_msg(lab_envelope_check(o, &err) == -1, "accepted bad envelope %zu", i);
    cJSON_Delete(o);
  }
}
END_TEST

START_TEST(error_table_codes_are_stable) {
  ck_assert_str_eq(lab_err_code(LAB_E_INVALID_PARAM), "invalid_param");
  ck_assert_int_eq(lab_err_http_status(LAB_E_BODY_TOO_LARGE), 413);
  ck_assert_int_eq(lab_err_http_status(LAB_E_NO_GPU), 503);
  ck_assert_int_eq(lab_err_from_code("deadline_exceeded"), LAB_E_DEADLINE);
  ck_assert_int_eq(lab_err_from_code("no-such-code"), LAB_E_INTERNAL);
  for (int i = 0; i < LAB_ERR_COUNT; i++) {
    ck_assert_int_eq(lab_err_from_code(lab_err_code((lab_err)i)), i);
    ck_assert(strlen(lab_err_advice((lab_err)i)) > 5);
  }
}
END_TEST

START_TEST(error_json_round_trips) {
  lab_error err, back;
  lab_fail(&err, LAB_E_INVALID_PARAM, "size", "size must be between %d and %d", 1, 16384);
  cJSON *o = lab_error_json(&err);
  char *text = cJSON_PrintUnformatted(o);
  ck_assert_str_eq(text,
                   "{\"error\":{\"code\":\"invalid_param\",\"message\":\"size must be between 1 and 16384\","
                   "\"param\":\"size\"}}");
  ck_assert_int_eq(lab_error_from_json(o, &back), 0);
  ck_assert_int_eq(back.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(back.param, "size");
  cJSON_free(text);
  cJSON_Delete(o);
}
END_TEST

START_TEST(registry_lists_every_experiment_with_valid_simulation) {
  ck_assert_int_ge(lab_experiment_count(), 1);
  ck_assert_ptr_nonnull(lab_experiment_find("device"));
  ck_assert_ptr_null(lab_experiment_find("nope"));
  for (int i = 0; i < lab_experiment_count(); i++) {
    const lab_experiment *e = lab_experiment_at(i);
    for (int k = 0; k < e->n_params; k++) {
      const lab_param_spec *s = &e->params[k];
      ck_assert_msg(s->help && s->help[0], "%s.%s has no help", e->name, s->name);
      if (s->type == LAB_P_INT || s->type == LAB_P_NUM)
        ck_assert_msg(s->min <= s->def && s->def <= s->max, "%s.%s default out of bounds", e->name, s->name);
    }
    if (!e->simulate) continue;
    cJSON *out = NULL;
    lab_error err = {0};
    ck_assert_msg(lab_simulate(e, NULL, "t4", &out, &err) == 0, "%s: %s", e->name, err.message);
    ck_assert_int_eq(lab_envelope_check(out, &err), 0);
    ck_assert_str_eq(cJSON_GetObjectItem(out, "backend")->valuestring, "simulated");
    ck_assert_int_ge(cJSON_GetArraySize(cJSON_GetObjectItem(out, "findings")), 1);
    cJSON_Delete(out);
  }
}
END_TEST

START_TEST(simulate_rejects_unknown_profile) {
  cJSON *out = NULL;
  lab_error err = {0};
  ck_assert_int_eq(lab_simulate(lab_experiment_find("device"), NULL, "gtx-480", &out, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_UNKNOWN_PROFILE);
  ck_assert_ptr_null(out);
}
END_TEST

Suite *make_envelope_suite(void) {
  Suite *s = suite_create("envelope");
  TCase *t = tcase_create("core");
  tcase_add_test(t, envelope_new_has_every_key);
  tcase_add_test(t, envelope_check_takes_the_four_backends);
  tcase_add_test(t, envelope_builders_fill_the_golden_shape);
  tcase_add_test(t, envelope_check_rejects_bad_shapes);
  tcase_add_test(t, error_table_codes_are_stable);
  tcase_add_test(t, error_json_round_trips);
  tcase_add_test(t, registry_lists_every_experiment_with_valid_simulation);
  tcase_add_test(t, simulate_rejects_unknown_profile);
  suite_add_tcase(s, t);
  return s;
}
