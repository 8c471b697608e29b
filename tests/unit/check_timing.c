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
#include "units.h"

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
                        "cold_over_warm", "launch_us", "sgemm_ms", "tflops", "gpu_busy_ms"};
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
  char want[96], a[24], b[24];
  snprintf(want, sizeof want, "host timer saw %s while the GPU worked %s",
           lab_fmt_ms(test_exp_metric(env, "host_nosync_ms"), a, sizeof a),
           lab_fmt_ms(test_exp_metric(env, "events_ms"), b, sizeof b));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  snprintf(want, sizeof want, "the first run took %s", lab_fmt_ms(test_exp_metric(env, "cold_ms"), a, sizeof a));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  snprintf(want, sizeof want, "starting CUDA (creating its context at the first CUDA call, not at import torch) took %s",
           lab_fmt_ms(test_exp_metric(env, "context_ms"), a, sizeof a));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  cJSON_Delete(env);
}
END_TEST

/* The cold bar's first part is starting CUDA (starting ROCm under ROCm),
 * the profile's context_ms within its ±10% jitter, its share of the first
 * call what the metric says, and the parts add up to the whole first call;
 * on the Mac there is no context: no such part, and the finding says why. */
START_TEST(timing_cold_bar_has_its_start_part_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    lab_error err;
    cJSON *env = test_exp_simulate("timing", NULL, p->name, &err);
    ck_assert_ptr_nonnull(env);
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "details"),
                                                          "first_call");
    double cold = test_exp_metric(env, "cold_ms"), sum = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, parts) sum += cJSON_GetObjectItemCaseSensitive(it, "ms")->valuedouble;
    const char *first = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(parts, 0), "part")->valuestring;
    if (p->platform == LAB_PLATFORM_MPS) {
      ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "metrics"), "context_ms"));
      ck_assert_str_eq(first, "setting up Metal and loading its kernels");
      ck_assert(fabs(sum - cold) < 1e-9 * cold);
      ck_assert(test_exp_finding_has(env, "MPS has no CUDA context to start"));
    } else {
      double ctx = test_exp_metric(env, "context_ms");
      ck_assert_msg(ctx >= 0.89 * p->context_ms && ctx <= 1.11 * p->context_ms, "%s: context %g ms", p->name, ctx);
      ck_assert(p->context_ms >= 50 && p->context_ms <= 1000); /* the figures' bounds: a published 124-152 ms */
      ck_assert_str_eq(first, p->platform == LAB_PLATFORM_ROCM ? "starting ROCm" : "starting CUDA");
      ck_assert(fabs(test_exp_metric(env, "context_share_pct") - 100 * ctx / (ctx + cold)) < 1e-9);
      ck_assert(fabs(sum - (ctx + cold)) < 1e-9 * (ctx + cold));
    }
    cJSON_Delete(env);
  }
}
END_TEST

/* A profile file's context_ms is a figure like the others: 0 (none, as on
 * MPS) is taken, a negative one is refused naming it. */
START_TEST(timing_profile_file_context_ms_is_bounded) {
  lab_profile back;
  lab_error err;
  cJSON *j = lab_profile_json(lab_profile_find("t4"));
  cJSON_ReplaceItemInObject(j, "context_ms", cJSON_CreateNumber(0));
  ck_assert_int_eq(lab_profile_from_json(j, &back, &err), 0);
  ck_assert(back.context_ms == 0);
  cJSON_ReplaceItemInObject(j, "context_ms", cJSON_CreateNumber(-5));
  ck_assert_int_eq(lab_profile_from_json(j, &back, &err), -1);
  ck_assert_str_eq(err.param, "context_ms");
  cJSON_Delete(j);
}
END_TEST

/* A real fresh process's times (kernels/cold.cu) name the same parts. */
START_TEST(timing_real_cold_start_names_the_same_parts) {
  lab_timing_measure m;
  memset(&m, 0, sizeof m);
  m.samples = 1;
  m.host_sync_ms = m.sync_ms[0] = 2;
  m.cold_ms = 300;
  m.context_ms = 100;
  m.cold_fresh = 1;
  cJSON *env = lab_envelope_new("timing", "cuda", "test GPU", NULL, cJSON_CreateObject());
  lab_timing_findings(env, &m);
  char want[160], a[24], b[24];
  snprintf(want, sizeof want, "starting CUDA (creating its context at the first CUDA call, not at import torch) took "
           "%s, %s%% of the first call", lab_fmt_ms(100, a, sizeof a), lab_fmt_num(25, b, sizeof b));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s': %s", want,
                cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(env, "findings")));
  cJSON_Delete(env);
}
END_TEST

/* A made-up measure: every clock given, one sample each. */
static lab_timing_measure made(double nosync, double sync, double ev, double busy, double cold, int fresh) {
  lab_timing_measure m;
  memset(&m, 0, sizeof m);
  m.size = 512, m.repeats = 4, m.samples = 1, m.warmup = 2;
  m.host_nosync_ms = nosync, m.host_sync_ms = sync, m.events_ms = ev, m.busy_ms = busy;
  m.cold_ms = cold, m.cold_fresh = fresh, m.context_ms = fresh == 1 ? 250 : 0;
  return m;
}

/* Findings of m as one string (caller frees). */
static char *findings_of(const lab_timing_measure *m) {
  cJSON *env = lab_envelope_new("timing", "cuda", "test GPU", NULL, cJSON_CreateObject());
  lab_timing_findings(env, m);
  char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(env, "findings"));
  cJSON_Delete(env);
  return text;
}

static void assert_no_nonsense(const char *f) {
  ck_assert_msg(!strstr(f, "0.00 ms") && !strstr(f, " 0.00 ") && !strstr(f, "nan") && !strstr(f, "inf") &&
                    !strstr(f, "e+") && !strstr(f, "e-"),
                "a finding rounds to zero or prints nonsense: %s", f);
}

START_TEST(timing_findings_claim_only_what_the_numbers_show) {
  /* The case: size 64, 1 repeat, the no-sync time slightly above the events. */
  lab_timing_measure m = made(0.0401, 0.0450, 0.0400, 0.0200, 300, -1);
  char *f = findings_of(&m);
  assert_no_nonsense(f);
  ck_assert_msg(!strstr(f, "returned before the work was done"), "claimed an early stop it cannot show: %s", f);
  ck_assert_msg(strstr(f, "40.1 µs") && strstr(f, "40.0 µs"), "times in µs, not 0.04 ms: %s", f);
  free(f);
  /* The trap: the events far above the no-sync time. */
  m = made(0.05, 40.3, 40.1, 40.0, 300, 1);
  f = findings_of(&m);
  assert_no_nonsense(f);
  ck_assert(strstr(f, "returned before the work was done") != NULL);
  ck_assert(strstr(f, "more than the CUDA events") != NULL);
  ck_assert(strstr(f, "In a fresh process") != NULL && strstr(f, "250 ms") != NULL);
  free(f);
  /* Equal clocks, and a host clock below the events (it can happen by rounding). */
  m = made(1.0, 1.0, 1.0, 1.0, 1.0, 0);
  f = findings_of(&m);
  assert_no_nonsense(f);
  ck_assert(strstr(f, "about as long as a warm batch") != NULL);
  ck_assert(strstr(f, "may have loaded cuBLAS") != NULL);
  free(f);
  m = made(0.5, 0.9, 1.0, 1.0, 5, -1);
  f = findings_of(&m);
  ck_assert(strstr(f, "less than the CUDA events") != NULL);
  free(f);
  /* Zero everywhere, and huge. */
  m = made(0, 0, 0, 0, 0, -1);
  f = findings_of(&m);
  assert_no_nonsense(f);
  free(f);
  m = made(1e-4, 9e6, 9e6, 9e6, 1e7, 1);
  f = findings_of(&m);
  assert_no_nonsense(f);
  ck_assert(strstr(f, "100 ns") != NULL && strstr(f, "9000 s") != NULL);
  free(f);
}
END_TEST

START_TEST(timing_launch_bound_finding_needs_the_numbers) {
  /* per sgemm 1 µs vs launch 5 µs: launch-bound; per sgemm 1 ms: not. */
  lab_timing_measure m = made(0.020, 0.030, 0.025, 0.004, 300, -1);
  char *f = findings_of(&m);
  ck_assert(strstr(f, "launch-bound") != NULL);
  free(f);
  m = made(0.020, 4.1, 4.0, 4.0, 300, -1);
  f = findings_of(&m);
  ck_assert(strstr(f, "launch-bound") == NULL && strstr(f, "hardly longer") == NULL);
  free(f);
}
END_TEST

START_TEST(timing_cli_size_64_prints_no_zero_times) {
  lab_error err;
  cJSON *env = test_exp_simulate("timing", "{\"size\":64,\"repeats\":1}", NULL, &err);
  ck_assert_ptr_nonnull(env);
  char *f = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(env, "findings"));
  assert_no_nonsense(f);
  free(f);
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

TEST_EXPERIMENT_SUITE(timing);

TEST_EXPERIMENT_SUITE(timing) {
  Suite *s = suite_create("timing");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, timing_rejects_a_batch_too_big_to_run);
  tcase_add_test(tc, timing_simulated_envelope_has_its_shape);
  tcase_add_test(tc, timing_host_timer_without_sync_misses_the_work_on_every_profile);
  tcase_add_test(tc, timing_cold_run_pays_the_library_load_on_every_profile);
  tcase_add_test(tc, timing_timeline_shows_launches_ahead_of_the_gpu);
  tcase_add_test(tc, timing_findings_quote_the_measured_numbers);
  tcase_add_test(tc, timing_cold_bar_has_its_start_part_on_every_profile);
  tcase_add_test(tc, timing_real_cold_start_names_the_same_parts);
  tcase_add_test(tc, timing_profile_file_context_ms_is_bounded);
  tcase_add_test(tc, timing_findings_claim_only_what_the_numbers_show);
  tcase_add_test(tc, timing_launch_bound_finding_needs_the_numbers);
  tcase_add_test(tc, timing_cli_size_64_prints_no_zero_times);
  tcase_add_test(tc, timing_samples_have_a_spread);
  suite_add_tcase(s, tc);
  return s;
}
