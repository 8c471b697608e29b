/* The allocator's result renderer: drawn from a simulated envelope of every
 * profile, its markup is well formed, each chart is an image with a text
 * alternative, and the events table has a row per point of the timeline. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "suites.h"
#include "ui_test.h"
#include "chart.h"
#include "result.h"

#define ck_has(hay, needle) ck_assert_msg(strstr((hay), (needle)) != NULL, "missing \"%s\"", (needle))

START_TEST(ui_result_allocator_renders_from_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    const char *profile = lab_profile_at(i)->name;
    cJSON *env = NULL, *params = cJSON_Parse("{\"steps\":2,\"layers\":3}");
    lab_error err;
    ck_assert_int_eq(lab_simulate(lab_experiment_find("allocator"), params, profile, &env, &err), 0);
    cJSON_Delete(params);
    ui_buf b;
    ui_buf_init(&b);
    ui_render_result(&b, env, true, NULL);
    const char *out = ui_buf_str(&b), *why = test_ui_markup_problem(out);
    ck_assert_msg(!b.failed, "%s: out of memory", profile);
    ck_assert_msg(why == NULL, "%s: %s", profile, why);
    ck_assert_int_eq(test_ui_count(out, "role=\"img\""), 3);
    /* the event axis counts events: no tick at "0.5" or "1.5" */
    ck_assert_ptr_null(strstr(out, "<text class=\"tick\" x=\"") ? strstr(out, ".5</text>") : NULL);
    ck_assert_msg(test_ui_svg_label_problem(out, 390) == NULL, "%s", test_ui_svg_label_problem(out, 390));
    ck_assert_int_eq(test_ui_count(out, "Show the numbers"), 3);
    ck_has(out, "Allocated vs reserved over training steps");
    ck_has(out, "What one allocation costs: the driver vs the cache");
    ck_has(out, "Fragmentation: enough free memory, in pieces too small");
    ck_has(out, "empty_cache()");
    ck_has(out, "step 2 backward");
    ck_assert_ptr_null(strstr(out, "nan"));
    /* One events row per timeline point: start, weights, 2 × (3 + 3), empty_cache, freed. */
    int points = cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(env, "details"), "events"));
    ck_assert_int_eq(points, 16);
    char last[48];
    snprintf(last, sizeof last, "<tr><th scope=\"row\">%d</th><td>everything freed", points - 1);
    ck_has(out, last);
    ck_assert(test_ui_count(out, "<th scope=\"row\">") >= points + 4 + 6);
    ui_buf_free(&b);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(ui_result_allocator_survives_an_envelope_without_numbers) {
  cJSON *env = cJSON_Parse("{\"experiment\":\"allocator\",\"backend\":\"cuda\",\"metrics\":{},\"series\":[]}");
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, false, NULL);
  ck_assert_ptr_null(test_ui_markup_problem(ui_buf_str(&b)));
  ck_assert_ptr_null(strstr(ui_buf_str(&b), "role=\"img\""));
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

Suite *make_ui_result_allocator_suite(void) {
  Suite *s = suite_create("ui_result_allocator");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, ui_result_allocator_renders_from_every_profile);
  tcase_add_test(tc, ui_result_allocator_survives_an_envelope_without_numbers);
  suite_add_tcase(s, tc);
  return s;
}
