/* The planner's page markup (wasm/render/plan_view.c) from what the
 * simulation module answers (wasm/sim/plan_run.c, run here natively): the
 * verdict, three counters with bands, levers as "saves …, costs … % step
 * time", the sweep chart with the card as its limit and the presets; an
 * error's JSON is an alert; what an OOM message said shows beside the
 * counters. */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "plan_run.h"
#include "plan_view.h"
#include "suites.h"

static char *render(const char *settings, const ui_plan_oom *oom, int *status) {
  char *text = NULL;
  *status = ui_plan_run(settings, &text);
  ck_assert_ptr_nonnull(text);
  cJSON *a = lab_json_parse(text, strlen(text), LAB_JSON_MAX_DEPTH, NULL);
  ck_assert_ptr_nonnull(a);
  ui_buf b;
  ui_buf_init(&b);
  ui_render_plan(&b, a, oom);
  ui_render_plan_presets(&b, a, "gpt2-124m");
  char *out = strdup(ui_buf_str(&b));
  ui_buf_free(&b);
  cJSON_Delete(a);
  free(text);
  return out;
}

START_TEST(ui_plan_draws_verdict_counters_levers_and_sweep) {
  int status;
  char *h = render("{\"preset\":\"gpt2-124m\",\"seq\":512,\"batch\":4,\"profile\":\"t4\"}", NULL, &status);
  ck_assert_int_eq(status, 200);
  ck_assert_ptr_nonnull(strstr(h, "class=\"plan-verdict plan-fits\""));
  ck_assert_ptr_nonnull(strstr(h, "max_memory_allocated()"));
  ck_assert_ptr_nonnull(strstr(h, "max_memory_reserved()"));
  ck_assert_ptr_nonnull(strstr(h, "<code>nvidia-smi</code>"));
  ck_assert_ptr_nonnull(strstr(h, "% step time"));
  ck_assert_ptr_nonnull(strstr(h, "memory for each micro-batch"));
  ck_assert_ptr_nonnull(strstr(h, "<svg"));
  ck_assert_ptr_nonnull(strstr(h, "the card: "));
  ck_assert_ptr_nonnull(strstr(h, "<option value=\"gpt2-124m\" selected>"));
  ck_assert_ptr_null(strstr(h, "your error said"));
  free(h);
}
END_TEST

START_TEST(ui_plan_sweep_goes_past_the_largest_micro_batch_that_fits) {
  char *text = NULL;
  ck_assert_int_eq(ui_plan_run("{\"preset\":\"gpt2-124m\",\"seq\":1024,\"batch\":2,\"profile\":\"t4\"}", &text), 200);
  cJSON *a = lab_json_parse(text, strlen(text), LAB_JSON_MAX_DEPTH, NULL);
  const cJSON *sw = cJSON_GetObjectItemCaseSensitive(a, "sweep"), *p;
  double best = cJSON_GetObjectItemCaseSensitive(a, "max_batch")->valuedouble, cap =
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(a, "memory"), "capacity_bytes")->valuedouble;
  double last = 0, prev_dev = 0;
  int over = 0;
  cJSON_ArrayForEach(p, sw) {
    double dev = cJSON_GetObjectItemCaseSensitive(p, "device_bytes")->valuedouble;
    last = cJSON_GetObjectItemCaseSensitive(p, "batch")->valuedouble;
    ck_assert(dev > prev_dev); /* more sequences, more memory */
    prev_dev = dev;
    if (dev > cap) over++;
    else ck_assert(last <= best);
  }
  ck_assert(over >= 1);
  ck_assert(last > best);
  cJSON_Delete(a);
  free(text);
}
END_TEST

START_TEST(ui_plan_error_is_an_alert_and_an_error_said_is_shown) {
  int status;
  char *h = render("{\"preset\":\"gpt2-124m\",\"batch\":-1}", NULL, &status);
  ck_assert_int_eq(status, 400);
  ck_assert_ptr_nonnull(strstr(h, "role=\"alert\""));
  ck_assert_ptr_nonnull(strstr(h, "batch"));
  free(h);
  h = render("{\"preset\":\"<b>\"}", NULL, &status);
  ck_assert_int_eq(status, 400);
  ck_assert_ptr_null(strstr(h, "<b>"));
  free(h);
  ui_plan_oom oom = {.tried = 20971520, .total = 15e9, .allocated = 14e9, .reserved = 14.5e9};
  h = render("{\"preset\":\"gpt2-124m\",\"profile\":\"t4\"}", &oom, &status);
  ck_assert_ptr_nonnull(strstr(h, "your error said"));
  ck_assert_ptr_nonnull(strstr(h, "Your error tried to allocate 20"));
  free(h);
}
END_TEST

Suite *make_ui_plan_suite(void) {
  Suite *s = suite_create("ui_plan");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, ui_plan_draws_verdict_counters_levers_and_sweep);
  tcase_add_test(tc, ui_plan_sweep_goes_past_the_largest_micro_batch_that_fits);
  tcase_add_test(tc, ui_plan_error_is_an_alert_and_an_error_said_is_shown);
  suite_add_tcase(s, tc);
  return s;
}
