/* The streams result view: drawn from a simulated envelope of every
 * profile, its markup is well formed, every chart is an image with a text
 * alternative, and the tables hold a row per timeline span and per sample. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "suites.h"
#include "ui_test.h"
#include "views/chart.h"
#include "views/result.h"

#define ck_has(hay, needle) ck_assert_msg(strstr((hay), (needle)) != NULL, "missing \"%s\"", (needle))

static cJSON *simulate(const char *params_json, const char *profile) {
  cJSON *env = NULL, *params = cJSON_Parse(params_json);
  lab_error err;
  ck_assert_int_eq(lab_simulate(lab_experiment_find("streams"), params, profile, &env, &err), 0);
  cJSON_Delete(params);
  return env;
}

START_TEST(ui_result_streams_renders_from_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    const char *profile = lab_profile_at(i)->name;
    cJSON *env = simulate("{\"chunks\":6,\"streams\":3,\"kernel_us\":50}", profile);
    ui_buf b;
    ui_buf_init(&b);
    ui_view_result(&b, env, true, NULL);
    const char *out = ui_buf_str(&b), *why = test_ui_markup_problem(out);
    ck_assert_msg(!b.failed, "%s: out of memory", profile);
    ck_assert_msg(why == NULL, "%s: %s", profile, why);
    /* Bars, the run asked for, its one-stream twin and the race. */
    ck_assert_int_eq(test_ui_count(out, "role=\"img\""), 4);
    ck_assert_int_eq(test_ui_count(out, "Show the numbers"), 4);
    ck_has(out, "stream 2");
    ck_has(out, "H2D engine");
    ck_has(out, "D2H engine");
    ck_has(out, "3 streams, pinned");
    /* A table row per span: 6 chunks × 3 ops × (stream + engine lanes), baseline and race. */
    ck_assert_int_eq(test_ui_count(out, "scope=\"row\">H2D "), 6 * 4);
    ck_assert_int_eq(test_ui_count(out, "scope=\"row\">D2H "), 6 * 4);
    ui_buf_free(&b);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(ui_result_streams_marks_the_stale_kernels) {
  cJSON *env = simulate("{\"kernel_us\":20}", "t4");
  ui_buf b;
  ui_buf_init(&b);
  ui_view_result(&b, env, true, NULL);
  const char *out = ui_buf_str(&b);
  int stale = cJSON_GetObjectItem(cJSON_GetObjectItem(env, "metrics"), "stale_chunks")->valueint;
  ck_assert_int_gt(stale, 0);
  ck_assert_int_eq(test_ui_count(out, "(read stale data)</th>"), stale);
  ck_has(out, "kernel that read stale data");
  ck_assert(strstr(out, "bar c3") != NULL);
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

START_TEST(ui_result_streams_one_stream_has_no_twin) {
  cJSON *env = simulate("{\"streams\":1,\"memory\":\"pageable\"}", "h100-sxm");
  ui_buf b;
  ui_buf_init(&b);
  ui_view_result(&b, env, true, NULL);
  const char *out = ui_buf_str(&b);
  ck_assert_ptr_null(test_ui_markup_problem(out));
  ck_assert_int_eq(test_ui_count(out, "role=\"img\""), 3);
  ck_assert_ptr_null(strstr(out, "The same chunks on one stream"));
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

Suite *make_ui_result_streams_suite(void) {
  Suite *s = suite_create("ui_result_streams");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, ui_result_streams_renders_from_every_profile);
  tcase_add_test(tc, ui_result_streams_marks_the_stale_kernels);
  tcase_add_test(tc, ui_result_streams_one_stream_has_no_twin);
  suite_add_tcase(s, tc);
  return s;
}
