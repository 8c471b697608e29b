/* Parameter validation: types, bounds, unknown names, CLI text, JSON out. */
#include <math.h>
#include <string.h>

#include "cjson_compat.h"
#include "params.h"
#include "suites.h"

static const char *const modes[] = {"pinned", "pageable", NULL};
/* Declared as an experiment declares its parameters (lab/face/params.h). */
#define LAB_PARAMS_demo(X)                        \
  X(size, INT, 1, 16384, 1024, "elements", "n", NULL) \
  X(ratio, NUM, 0, 1, 0.5, NULL, "r", NULL)       \
  X(sync, BOOL, 0, 1, 1, NULL, "s", NULL)         \
  X(mode, ENUM, 0, 1, 0, NULL, "m", modes)
LAB_PARAMS_STRUCT(demo)
LAB_PARAMS_DEFINE(demo)
#define spec lab_params_demo_spec

static int from(const char *json, lab_params *p, lab_error *err) {
  cJSON *o = cJSON_Parse(json);
  lab_params_init(p, spec, 4);
  int rc = lab_params_from_json(p, o, err);
  cJSON_Delete(o);
  return rc;
}

START_TEST(params_defaults_when_absent) {
  lab_params p;
  lab_error err;
  lab_params_init(&p, spec, 4);
  ck_assert_int_eq(lab_params_from_json(&p, NULL, &err), 0);
  const lab_params_demo t = lab_params_demo_of(&p);
  ck_assert_int_eq(t.size, 1024);
  ck_assert(t.sync);
  ck_assert_str_eq(modes[t.mode], "pinned");
  ck_assert_double_eq(t.ratio, 0.5);
}
END_TEST

START_TEST(params_accepts_valid_values) {
  lab_params p;
  lab_error err;
  ck_assert_int_eq(from("{\"size\":16384,\"ratio\":0,\"sync\":false,\"mode\":\"pageable\"}", &p, &err), 0);
  const lab_params_demo t = lab_params_demo_of(&p);
  ck_assert_int_eq(t.size, 16384);
  ck_assert(!t.sync);
  ck_assert_str_eq(modes[t.mode], "pageable");
}
END_TEST

static void expect_invalid(const char *json, const char *param) {
  lab_params p;
  lab_error err = {0};
  ck_assert_int_eq(from(json, &p, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(err.param, param);
  ck_assert(strlen(err.message) > 10);
}

START_TEST(params_rejects_out_of_bounds) {
  expect_invalid("{\"size\":0}", "size");
  expect_invalid("{\"size\":16385}", "size");
  expect_invalid("{\"ratio\":-0.1}", "ratio");
  expect_invalid("{\"size\":-5}", "size");
}
END_TEST

START_TEST(params_rejects_wrong_types) {
  expect_invalid("{\"size\":\"12\"}", "size");
  expect_invalid("{\"size\":1.5}", "size");
  expect_invalid("{\"size\":true}", "size");
  expect_invalid("{\"sync\":1}", "sync");
  expect_invalid("{\"mode\":3}", "mode");
  expect_invalid("{\"mode\":\"managed\"}", "mode");
  expect_invalid("{\"size\":1e400}", "size");
  expect_invalid("[1,2]", "params");
  /* "an integer", not "a integer" */
  lab_params p;
  lab_error err = {0};
  ck_assert_int_ne(from("{\"size\":\"12\"}", &p, &err), 0);
  ck_assert_ptr_nonnull(strstr(err.message, "size must be an integer between"));
}
END_TEST

START_TEST(params_rejects_unknown_name_listing_known) {
  lab_params p;
  lab_error err = {0};
  ck_assert_int_eq(from("{\"sise\":3}", &p, &err), -1);
  ck_assert_str_eq(err.param, "sise");
  ck_assert_ptr_nonnull(strstr(err.message, "size, ratio, sync, mode"));
}
END_TEST

START_TEST(params_message_names_bounds_and_unit) {
  lab_params p;
  lab_error err = {0};
  ck_assert_int_eq(from("{\"size\":99999}", &p, &err), -1);
  ck_assert_ptr_nonnull(strstr(err.message, "between 1 and 16384 elements"));
}
END_TEST

START_TEST(params_parse_cli_text) {
  lab_params p;
  lab_error err = {0};
  lab_params_init(&p, spec, 4);
  ck_assert_int_eq(lab_params_set_text(&p, "size", "2048", &err), 0);
  ck_assert_int_eq(lab_params_set_text(&p, "sync", "false", &err), 0);
  ck_assert_int_eq(lab_params_set_text(&p, "mode", "pageable", &err), 0);
  ck_assert_int_eq(lab_params_demo_of(&p).size, 2048);
  ck_assert_int_eq(lab_params_set_text(&p, "size", "12abc", &err), -1);
  ck_assert_int_eq(lab_params_set_text(&p, "size", "", &err), -1);
  ck_assert_int_eq(lab_params_set_text(&p, "sync", "maybe", &err), -1);
  ck_assert_int_eq(lab_params_set_text(&p, "nope", "1", &err), -1);
  ck_assert_int_eq(lab_params_set_text(&p, "ratio", "nan", &err), -1);
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
}
END_TEST

START_TEST(params_round_trip_to_json) {
  lab_params p;
  lab_error err;
  ck_assert_int_eq(from("{\"size\":7,\"mode\":\"pageable\"}", &p, &err), 0);
  cJSON *o = lab_params_to_json(&p);
  ck_assert_int_eq(cJSON_GetObjectItem(o, "size")->valueint, 7);
  ck_assert_str_eq(cJSON_GetObjectItem(o, "mode")->valuestring, "pageable");
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(o, "sync")));
  lab_params q;
  lab_params_init(&q, spec, 4);
  ck_assert_int_eq(lab_params_from_json(&q, o, &err), 0);
  ck_assert(memcmp(p.v, q.v, sizeof p.v) == 0);
  cJSON_Delete(o);
}
END_TEST

/* By name only where code is generic: an unknown name is -1, not a 0. */
START_TEST(params_index_by_name_knows_unknown) {
  lab_params p;
  lab_params_init(&p, spec, 4);
  ck_assert_int_eq(lab_param_index(&p, "mode"), 3);
  ck_assert_int_eq(lab_param_index(&p, "sizee"), -1);
}
END_TEST

/* Params of another experiment read as this one's defaults, never as a
 * misaligned copy of the other's values. */
START_TEST(params_typed_view_of_other_spec_is_defaults) {
  static const lab_param_spec other[] = {{.name = "n", .type = LAB_P_INT, .min = 0, .max = 9e9, .def = 77}};
  lab_params p;
  lab_params_init(&p, other, 1);
  const lab_params_demo t = lab_params_demo_of(&p);
  ck_assert_int_eq(t.size, 1024);
  ck_assert(t.sync);
}
END_TEST

START_TEST(params_spec_json_lists_bounds) {
  cJSON *o = lab_param_spec_json(&spec[0]);
  ck_assert_str_eq(cJSON_GetObjectItem(o, "type")->valuestring, "integer");
  ck_assert_int_eq(cJSON_GetObjectItem(o, "max")->valueint, 16384);
  ck_assert_str_eq(cJSON_GetObjectItem(o, "unit")->valuestring, "elements");
  cJSON_Delete(o);
  o = lab_param_spec_json(&spec[3]);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "choices")), 2);
  cJSON_Delete(o);
}
END_TEST

Suite *make_params_suite(void) {
  Suite *s = suite_create("params");
  TCase *t = tcase_create("core");
  tcase_add_test(t, params_defaults_when_absent);
  tcase_add_test(t, params_accepts_valid_values);
  tcase_add_test(t, params_rejects_out_of_bounds);
  tcase_add_test(t, params_rejects_wrong_types);
  tcase_add_test(t, params_rejects_unknown_name_listing_known);
  tcase_add_test(t, params_message_names_bounds_and_unit);
  tcase_add_test(t, params_parse_cli_text);
  tcase_add_test(t, params_round_trip_to_json);
  tcase_add_test(t, params_spec_json_lists_bounds);
  tcase_add_test(t, params_index_by_name_knows_unknown);
  tcase_add_test(t, params_typed_view_of_other_spec_is_defaults);
  suite_add_tcase(s, t);
  return s;
}
