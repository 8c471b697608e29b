/* The graphs result renderer: drawn from a simulated envelope of every profile
 * it is well-formed markup with four charts (bars, timeline, sweep,
 * payback), each an image with a summary, and its tables hold a cell for
 * every point of every series and a row for every timeline span. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "exp_test.h"
#include "registry.h"
#include "suites.h"
#include "ui_test.h"
#include "chart.h"
#include "result.h"

#define ck_has(hay, needle) ck_assert_msg(strstr((hay), (needle)) != NULL, "missing \"%s\"", (needle))

static cJSON *simulate(const char *params_json, const char *profile) {
  cJSON *params = params_json ? cJSON_Parse(params_json) : NULL, *env = NULL;
  lab_error err;
  memset(&err, 0, sizeof err);
  int rc = lab_simulate(lab_experiment_find("graphs"), params, profile, &env, &err);
  cJSON_Delete(params);
  ck_assert_msg(rc == 0, "graphs on %s: %s", profile, err.message);
  return env;
}

START_TEST(ui_result_graphs_renders_from_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
      if (!test_exp_applies("graphs", i)) continue; /* no such thing on that GPU */
    cJSON *env = simulate(NULL, lab_profile_at(i)->name);
    ui_buf b;
    ui_buf_init(&b);
    ui_render_result(&b, env, true, NULL);
    const char *out = ui_buf_str(&b), *why = test_ui_markup_problem(out);
    ck_assert(!b.failed);
    ck_assert_msg(why == NULL, "%s: %s", lab_profile_at(i)->name, why);
    ck_assert_int_eq(test_ui_count(out, "role=\"img\""), 4);
    ck_assert_int_eq(test_ui_count(out, "Show the numbers"), 4);
    ck_has(out, "When a graph stops helping");
    ck_has(out, "When capturing pays back");
    ck_has(out, "cudaGraphLaunch (12 kernels)");
    ck_has(out, "gain under 10%");
    ck_has(out, "paid back after");
    ck_assert_ptr_null(strstr(out, "nan"));
    ck_assert_ptr_null(strstr(out, "inf<"));
    ui_buf_free(&b);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(ui_result_graphs_tables_hold_every_point) {
  cJSON *env = simulate(NULL, "h100-sxm"), *s, *pt;
  ui_buf b;
  char t[32], cell[48];
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  const char *out = ui_buf_str(&b);
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(env, "series")) {
    cJSON_ArrayForEach(pt, cJSON_GetObjectItem(s, "points")) {
      snprintf(cell, sizeof cell, "<td>%s</td>", ui_fmt_value(cJSON_GetArrayItem(pt, 1)->valuedouble, UI_UNIT_PLAIN, t));
      ck_assert_msg(strstr(out, cell) != NULL, "series %s has no cell %s", cJSON_GetObjectItem(s, "id")->valuestring,
                    cell);
    }
  }
  /* the spans table: a row per timeline event, beside the rows of the other tables */
  int rows = test_ui_count(out, "<tr");
  ck_assert_int_ge(rows, cJSON_GetArraySize(cJSON_GetObjectItem(env, "timeline")));
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

START_TEST(ui_result_graphs_summaries_quote_the_run) {
  cJSON *env = simulate("{\"sweep\":false}", "t4");
  ui_buf b;
  char want[96];
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  const char *out = ui_buf_str(&b);
  /* without a sweep: bars, timeline and payback only */
  ck_assert_int_eq(test_ui_count(out, "role=\"img\""), 3);
  ck_assert_ptr_null(strstr(out, "When a graph stops helping"));
  double r = cJSON_GetObjectItem(cJSON_GetObjectItem(env, "metrics"), "payback_replays")->valuedouble;
  snprintf(want, sizeof want, "is ahead from %.0f replays on", r);
  ck_has(out, want);
  ck_has(out, "Over a chain of 1000 kernels");
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

Suite *make_ui_result_graphs_suite(void) {
  Suite *s = suite_create("ui_result_graphs");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, ui_result_graphs_renders_from_every_profile);
  tcase_add_test(tc, ui_result_graphs_tables_hold_every_point);
  tcase_add_test(tc, ui_result_graphs_summaries_quote_the_run);
  suite_add_tcase(s, tc);
  return s;
}
