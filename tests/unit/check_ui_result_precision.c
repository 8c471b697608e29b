/* The precision result renderer: drawn from a simulated envelope of every
 * profile it is well-formed markup with four charts (throughput, error,
 * loss, underflow), and its tables hold a cell for every point. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "suites.h"
#include "ui_test.h"
#include "chart.h"
#include "result.h"

#define ck_has(hay, needle) ck_assert_msg(strstr((hay), (needle)) != NULL, "missing \"%s\"", (needle))

static cJSON *simulate(const char *profile) {
  cJSON *params = cJSON_Parse("{\"max_size\":1024,\"samples\":3,\"train_steps\":40}"), *env = NULL;
  lab_error err;
  memset(&err, 0, sizeof err);
  int rc = lab_simulate(lab_experiment_find("precision"), params, profile, &env, &err);
  cJSON_Delete(params);
  ck_assert_msg(rc == 0, "precision on %s: %s", profile, err.message);
  return env;
}

START_TEST(ui_result_precision_renders_from_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    cJSON *env = simulate(lab_profile_at(i)->name);
    ui_buf b;
    ui_buf_init(&b);
    ui_render_result(&b, env, true, NULL);
    const char *out = ui_buf_str(&b), *why = test_ui_markup_problem(out);
    ck_assert(!b.failed);
    ck_assert_msg(why == NULL, "%s: %s", lab_profile_at(i)->name, why);
    ck_assert_int_eq(test_ui_count(out, "role=\"img\""), 4);
    ck_assert_int_eq(test_ui_count(out, "Show the numbers"), 4);
    ck_has(out, "Throughput by size and precision");
    ck_has(out, "Gradients lost to underflow");
    ck_assert_ptr_null(strstr(out, "nan"));
    ck_assert_msg(!strstr(out, "COMPUTE_32F"), "a legend in cuBLAS's names, not plain words"); /* issue 37 */
    ui_buf_free(&b);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(ui_result_precision_tables_hold_every_point) {
  cJSON *env = simulate("h100-sxm"), *s, *pt;
  ui_buf b;
  char t[32], cell[48];
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  const char *out = ui_buf_str(&b);
  ck_has(out, "TF32 tensor cores"); /* the H100 has them: its TF32 line says so in plain words */
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(env, "series")) {
    cJSON_ArrayForEach(pt, cJSON_GetObjectItem(s, "points")) {
      snprintf(cell, sizeof cell, "<td>%s</td>", ui_fmt_value(cJSON_GetArrayItem(pt, 1)->valuedouble, UI_UNIT_PLAIN, t));
      ck_assert_msg(strstr(out, cell) != NULL, "series %s has no cell %s", cJSON_GetObjectItem(s, "id")->valuestring,
                    cell);
    }
  }
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

Suite *make_ui_result_precision_suite(void) {
  Suite *s = suite_create("ui_result_precision");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, ui_result_precision_renders_from_every_profile);
  tcase_add_test(tc, ui_result_precision_tables_hold_every_point);
  suite_add_tcase(s, tc);
  return s;
}
