/* The `profile` result renderer: rendered from a simulated envelope of every
 * profile, well-formed markup, the bar chart with the profiler table (a
 * row per phase), the busy/idle chart and the one-step timeline. */
#include <stdio.h>
#include <string.h>

#include "profile.h"
#include "registry.h"
#include "suites.h"
#include "ui_test.h"
#include "result.h"

#define ck_has(hay, needle) ck_assert_msg(strstr((hay), (needle)) != NULL, "missing \"%s\"", (needle))

START_TEST(ui_profile_renders_every_profile) {
  const lab_experiment *e = lab_experiment_find("profile");
  ck_assert_ptr_nonnull(e);
  for (int i = 0; i < lab_profile_count(); i++) {
    cJSON *env = NULL;
    lab_error err;
    ck_assert_int_eq(lab_simulate(e, NULL, lab_profile_at(i)->name, &env, &err), 0);
    ui_buf b;
    ui_buf_init(&b);
    ui_render_result(&b, env, true, NULL);
    const char *html = ui_buf_str(&b);
    ck_assert_ptr_nonnull(html);
    const char *why = test_ui_markup_problem(html);
    ck_assert_msg(why == NULL, "%s: %s", lab_profile_at(i)->name, why);
    ck_assert_int_eq(test_ui_count(html, "<svg"), 3); /* phase bars, busy/idle, timeline */
    ck_has(html, "Profiler table");
    ck_has(html, "% of step");
    /* The profiler table has a row per phase, in step order. */
    const char *at = html;
    for (int p = 0; p < LAB_PHASES_PHASES; p++) {
      char cell[64];
      snprintf(cell, sizeof cell, "<tr><th scope=\"row\">%s</th>", lab_phases_phase_names[p]);
      const char *found = strstr(at, cell);
      ck_assert_msg(found != NULL, "%s: no table row for %s", lab_profile_at(i)->name, lab_phases_phase_names[p]);
      at = found;
    }
    ck_has(html, "GPU idle");
    ck_has(html, "CPU (host)");
    ck_has(html, "GPU 0, stream 0");
    ck_has(html, "sgemm fc1");
    ck_has(html, "synchronize() called");
    ck_has(html, "Nsight Systems");
    ui_buf_free(&b);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(ui_profile_survives_an_envelope_without_details) {
  cJSON *env = cJSON_Parse("{\"experiment\":\"profile\",\"backend\":\"simulated\",\"metrics\":{},\"series\":[],"
                           "\"timeline\":[],\"findings\":[]}");
  ck_assert_ptr_nonnull(env);
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  ck_assert_ptr_nonnull(ui_buf_str(&b));
  ck_assert_ptr_null(test_ui_markup_problem(ui_buf_str(&b)));
  ck_assert_int_eq(test_ui_count(ui_buf_str(&b), "<svg"), 0);
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

Suite *make_ui_result_profile_suite(void) {
  Suite *s = suite_create("ui_result_profile");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, ui_profile_renders_every_profile);
  tcase_add_test(tc, ui_profile_survives_an_envelope_without_details);
  suite_add_tcase(s, tc);
  return s;
}
