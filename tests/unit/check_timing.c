/* `timing`: parameter bounds, the simulated envelope's shape, and the
 * asynchronous-timing physics on every built-in profile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "exp_test.h"
#include "gpu_model.h"
#include "profiles.h"
#include "suites.h"
#include "timing.h"

START_TEST(timing_rejects_a_batch_too_big_to_run) {
  lab_error err;
  ck_assert_ptr_null(test_exp_simulate("timing", "{\"size\":8192,\"repeats\":100}", NULL, &err));
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(err.param, "repeats");
  ck_assert_ptr_nonnull(strstr(err.message, "at most 3 repeats"));
}
END_TEST

START_TEST(timing_simulated_envelope_has_its_shape) {
  lab_error err;
  cJSON *env = test_exp_simulate("timing", "{\"repeats\":60}", "t4", &err);
  ck_assert_ptr_nonnull(env);
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  const char *keys[] = {"events_ms", "host_nosync_ms", "host_sync_ms", "nosync_pct_of_events", "cold_ms", "warm_ms",
                        "cold_over_warm", "launch_us", "sgemm_ms", "tflops"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) ck_assert(test_exp_metric(env, keys[i]) > 0);
  test_exp_metric(env, "sync_error_pct");
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "events")), 7);
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "host_sync")), 7);
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "host_nosync")), 7);
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "runs")), 1 + LAB_TIMING_WARMUP + 7);
  /* 50 drawn launches (the cap), each on both lanes, and the synchronize. */
  cJSON *tl = cJSON_GetObjectItemCaseSensitive(env, "timeline");
  ck_assert_int_eq(cJSON_GetArraySize(tl), 2 * LAB_TIMING_MAX_LAUNCHES + 1);
  cJSON *stats = cJSON_GetObjectItemCaseSensitive(env, "stats");
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(stats, "median_of")->valuestring, "events_ms");
  ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(stats, "warmup")->valueint, LAB_TIMING_WARMUP);
  cJSON_Delete(env);
}
END_TEST

/* The physics the GPU check also asserts, on a batch of ≥1 ms matmuls. */
START_TEST(timing_host_timer_without_sync_misses_the_work_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    ck_assert(lab_gemm_us(p, 4096, 4096, 4096) >= 1000);
    lab_error err;
    cJSON *env = test_exp_simulate("timing", "{\"size\":4096,\"repeats\":10}", p->name, &err);
    ck_assert_ptr_nonnull(env);
    double ev = test_exp_metric(env, "events_ms");
    ck_assert(test_exp_metric(env, "host_nosync_ms") < 0.10 * ev);
    ck_assert(fabs(test_exp_metric(env, "host_sync_ms") - ev) < 0.05 * ev);
    ck_assert(test_exp_metric(env, "host_sync_ms") >= ev); /* the host cannot see the end before it happens */
    /* The events cover the ten sgemms, give or take the jitter. */
    ck_assert(fabs(ev - 10 * lab_gemm_us(p, 4096, 4096, 4096) / 1e3) < 0.03 * ev);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(timing_cold_run_pays_the_library_load_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    lab_error err;
    cJSON *env = test_exp_simulate("timing", NULL, p->name, &err);
    ck_assert_ptr_nonnull(env);
    ck_assert(test_exp_metric(env, "cold_ms") > test_exp_metric(env, "warm_ms") + 0.8 * p->cold_start_ms);
    ck_assert(test_exp_metric(env, "cold_over_warm") > 2);
    /* Run 1 of the runs series is the cold one and the slowest. */
    for (int r = 1; r < cJSON_GetArraySize(test_exp_series(env, "runs")); r++)
      ck_assert(test_exp_y(env, "runs", r) < test_exp_y(env, "runs", 0));
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(timing_timeline_shows_launches_ahead_of_the_gpu) {
  lab_error err;
  cJSON *env = test_exp_simulate("timing", "{\"size\":1024,\"repeats\":5}", "rtx-4090", &err);
  ck_assert_ptr_nonnull(env);
  cJSON *tl = cJSON_GetObjectItemCaseSensitive(env, "timeline");
  double last_launch_end = 0, last_gpu_end = 0, sync_start = -1, sync_end = -1;
  const cJSON *e;
  cJSON_ArrayForEach(e, tl) {
    const char *lane = cJSON_GetObjectItemCaseSensitive(e, "lane")->valuestring;
    const char *label = cJSON_GetObjectItemCaseSensitive(e, "label")->valuestring;
    double s = cJSON_GetObjectItemCaseSensitive(e, "start_us")->valuedouble;
    double t = cJSON_GetObjectItemCaseSensitive(e, "end_us")->valuedouble;
    ck_assert(t >= s);
    if (!strcmp(lane, "cpu") && !strncmp(label, "launch", 6)) last_launch_end = t;
    else if (!strcmp(lane, "cpu")) sync_start = s, sync_end = t;
    else last_gpu_end = t;
  }
  ck_assert(last_launch_end < last_gpu_end); /* the host is done launching long before the GPU is done */
  ck_assert(sync_start >= last_launch_end);
  ck_assert(sync_end >= last_gpu_end); /* the synchronize ends after the GPU's last sgemm */
  cJSON_Delete(env);
}
END_TEST

START_TEST(timing_findings_quote_the_measured_numbers) {
  lab_error err;
  cJSON *env = test_exp_simulate("timing", "{\"size\":4096}", "h100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  char want[96];
  snprintf(want, sizeof want, "host timer saw %.3f ms while the GPU worked %.2f ms",
           test_exp_metric(env, "host_nosync_ms"), test_exp_metric(env, "events_ms"));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  snprintf(want, sizeof want, "The first run took %.1f ms", test_exp_metric(env, "cold_ms"));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  cJSON_Delete(env);
}
END_TEST

START_TEST(timing_samples_have_a_spread) {
  lab_error err;
  cJSON *env = test_exp_simulate("timing", "{\"samples\":9}", "t4", &err);
  ck_assert_ptr_nonnull(env);
  double lo = 1e30, hi = 0;
  for (int i = 0; i < 9; i++) {
    double y = test_exp_y(env, "host_nosync", i);
    lo = y < lo ? y : lo;
    hi = y > hi ? y : hi;
  }
  ck_assert(hi > lo);
  cJSON_Delete(env);
}
END_TEST

Suite *make_timing_suite(void) {
  Suite *s = suite_create("timing");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, timing_rejects_a_batch_too_big_to_run);
  tcase_add_test(tc, timing_simulated_envelope_has_its_shape);
  tcase_add_test(tc, timing_host_timer_without_sync_misses_the_work_on_every_profile);
  tcase_add_test(tc, timing_cold_run_pays_the_library_load_on_every_profile);
  tcase_add_test(tc, timing_timeline_shows_launches_ahead_of_the_gpu);
  tcase_add_test(tc, timing_findings_quote_the_measured_numbers);
  tcase_add_test(tc, timing_samples_have_a_spread);
  suite_add_tcase(s, tc);
  return s;
}
