/* The "Read your profile" page's markup (wasm/pages/doctor_page.c), rendered
 * natively from the doctor's own answer to a fixture trace (lab/doctor/doctor.h,
 * as the browser's worker gives it): the summary, the steps table, each
 * finding with its certainty, lesson link and pre-filled experiment
 * button; a canned answer with a "timeline" draws the experiments' lane
 * chart; an error shows its stable code in an alert. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"
#include "suites.h"
#include "ui_test.h"
#include "doctor_page.h"

static char *render(cJSON *env) {
  ui_buf b;
  ui_buf_init(&b);
  ui_render_doctor_answer(&b, env);
  char *out = strdup(ui_buf_str(&b));
  ui_buf_free(&b);
  cJSON_Delete(env);
  return out;
}

static cJSON *read_fixture(const char *path) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  static char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  lab_error err = {0};
  cJSON *env = lab_doctor_read(buf, n, &err);
  ck_assert_msg(env != NULL, "%s", err.message);
  return env;
}

START_TEST(ui_doctor_idle_item_shows_steps_findings_lesson_and_experiment) {
  char *h = render(read_fixture("tests/doctor/fixtures/idle_item.json"));
  const char *why = test_ui_markup_problem(h);
  ck_assert_msg(why == NULL, "%s", why ? why : "");
  ck_assert_ptr_nonnull(strstr(h, "class=\"doctor-steps\""));
  ck_assert_ptr_nonnull(strstr(h, "data-id=\"gpu_idle\""));
  ck_assert_ptr_nonnull(strstr(h, "class=\"badge certainty-"));
  ck_assert_ptr_nonnull(strstr(h, "href=\"#lesson/01-cuda-intuition/async\""));
  ck_assert_ptr_nonnull(strstr(h, ">Read in the lesson: The GPU runs behind your Python</a>"));
  /* the numbers in plain words, never the answer's keys */
  ck_assert_ptr_null(strstr(h, "<dt>gpu_busy_pct"));
  ck_assert_ptr_null(strstr(h, "_ms</dt>"));
  ck_assert_ptr_nonnull(strstr(h, "<dt>GPU busy (% of the step)</dt>"));
  ck_assert_ptr_nonnull(strstr(h, "data-action=\"doctor-open\""));
  ck_assert_ptr_nonnull(strstr(h, "from your trace"));
  ck_assert_ptr_nonnull(strstr(h, "href=\"#lab/profile?log_every=10\"")); /* its page, pre-filled too */
  /* the doctor draws its idlest step, ProfilerStep#12, with the experiments' lane chart */
  ck_assert_ptr_nonnull(strstr(h, "chart-timeline"));
  ck_assert_ptr_nonnull(strstr(h, "ProfilerStep#12"));
  /* its gap in the steps table with the operator the host was in */
  ck_assert_ptr_nonnull(strstr(h, "7.000 ms (item, in aten::item → cudaStreamSynchronize)"));
  ck_assert_ptr_nonnull(strstr(h, "time since the step began")); /* not "since the first launch" */
  free(h);
}
END_TEST

START_TEST(ui_doctor_timeline_in_the_answer_draws_the_lane_chart) {
  cJSON *env = cJSON_Parse("{\"doctor\":1,\"trace\":{\"events\":4,\"gpu_events\":2,\"span_ms\":1,\"profiler_steps\":1},"
                           "\"steps\":[],\"findings\":[],\"timeline_of\":{\"step\":\"ProfilerStep#2\",\"why\":\"the least "
                           "busy step\",\"spans_left_out\":3},\"timeline\":["
                           "{\"lane\":\"cpu\",\"label\":\"aten::item\",\"start_us\":0,\"end_us\":700},"
                           "{\"lane\":\"cpu:op\",\"label\":\"aten::nonzero\",\"start_us\":0,\"end_us\":600},"
                           "{\"lane\":\"gpu:0/stream7\",\"label\":\"gemm <b>\",\"start_us\":0,\"end_us\":300},"
                           "{\"lane\":\"gpu:0/stream7\",\"label\":\"relu\",\"start_us\":710,\"end_us\":800}]}");
  char *h = render(env);
  const char *why = test_ui_markup_problem(h);
  ck_assert_msg(why == NULL, "%s", why ? why : "");
  ck_assert_ptr_nonnull(strstr(h, "chart-timeline"));
  ck_assert_ptr_nonnull(strstr(h, "ProfilerStep#2 on a timeline"));
  ck_assert_ptr_nonnull(strstr(h, "relu"));
  ck_assert_ptr_nonnull(strstr(h, "GPU 0, stream 7"));
  ck_assert_ptr_nonnull(strstr(h, "CPU (host)"));
  ck_assert_ptr_nonnull(strstr(h, "CPU operator named")); /* the doctor's cpu:op lane: the operator its finding names */
  ck_assert_ptr_nonnull(strstr(h, "aten::nonzero"));
  ck_assert_ptr_nonnull(strstr(h, "the least busy step (3 shorter spans left out.)"));
  ck_assert_ptr_null(strstr(h, "<b>"));
  free(h);
}
END_TEST

START_TEST(ui_doctor_error_shows_its_code_in_an_alert) {
  lab_error err = {0};
  cJSON *env = lab_doctor_read("{\"hello\":1}", 11, &err);
  ck_assert_ptr_null(env);
  char *h = render(lab_error_json(&err));
  ck_assert_ptr_nonnull(strstr(h, "role=\"alert\""));
  ck_assert_ptr_nonnull(strstr(h, lab_err_code(err.code)));
  free(h);
}
END_TEST

Suite *make_ui_doctor_suite(void) {
  Suite *s = suite_create("ui_doctor");
  TCase *tc = tcase_create("render");
  tcase_add_test(tc, ui_doctor_idle_item_shows_steps_findings_lesson_and_experiment);
  tcase_add_test(tc, ui_doctor_timeline_in_the_answer_draws_the_lane_chart);
  tcase_add_test(tc, ui_doctor_error_shows_its_code_in_an_alert);
  suite_add_tcase(s, tc);
  return s;
}
