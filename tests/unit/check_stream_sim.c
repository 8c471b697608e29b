/* The simulator's building blocks: the one-stream discrete-event model, the
 * copy-time and sgemm models, and the seeded PRNG. */
#include <math.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "gpu_model.h"
#include "profiles.h"
#include "rng.h"
#include "stream_sim.h"
#include "suites.h"

static const lab_profile *t4(void) { return lab_profile_find("t4"); }

START_TEST(stream_kernel_returns_to_host_before_gpu_finishes) {
  lab_stream_sim s;
  lab_stream_init(&s, t4(), NULL);
  double end = lab_stream_kernel(&s, "k", 1000);
  ck_assert_double_eq_tol(s.host_us, t4()->launch_us, 1e-9);
  ck_assert_double_eq_tol(end, t4()->launch_us + 1000, 1e-9);
  ck_assert_double_eq_tol(s.gpu_free_us, end, 1e-9);
}
END_TEST

START_TEST(stream_kernels_run_back_to_back_in_order) {
  lab_stream_sim s;
  lab_stream_init(&s, t4(), NULL);
  lab_stream_kernel(&s, "a", 100);
  double end = lab_stream_kernel(&s, "b", 100);
  ck_assert_double_eq_tol(end, t4()->launch_us + 200, 1e-9);
  ck_assert_double_eq_tol(s.host_us, 2 * t4()->launch_us, 1e-9);
}
END_TEST

/* lab_stream_kernels is count calls of lab_stream_kernel in one loop: the
 * same clocks, and the same events while a timeline is kept (a cap of 5
 * stops recording part-way through). */
START_TEST(stream_kernels_in_one_call_match_one_call_each) {
  cJSON *e1 = lab_envelope_new("t", "simulated", NULL, NULL, NULL);
  cJSON *e2 = lab_envelope_new("t", "simulated", NULL, NULL, NULL);
  lab_stream_sim a, b;
  lab_stream_init(&a, t4(), e1);
  lab_stream_init(&b, t4(), e2);
  a.max_events = b.max_events = 5;
  lab_stream_host(&a, "python", 7);
  lab_stream_host(&b, "python", 7);
  double first = 0, end_a = lab_stream_kernels(&a, "k", 1.5, 40, &first), end_b = 0;
  for (int i = 0; i < 40; i++) end_b = lab_stream_kernel(&b, "k", 1.5);
  ck_assert_double_eq_tol(end_a, end_b, 1e-9);
  ck_assert_double_eq_tol(a.host_us, b.host_us, 1e-9);
  ck_assert_double_eq_tol(first, 7 + t4()->launch_us, 1e-9);
  char *ta = cJSON_PrintUnformatted(cJSON_GetObjectItem(e1, "timeline"));
  char *tb = cJSON_PrintUnformatted(cJSON_GetObjectItem(e2, "timeline"));
  ck_assert_str_eq(ta, tb);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(e1, "timeline")), 5);
  cJSON_free(ta);
  cJSON_free(tb);
  cJSON_Delete(e1);
  cJSON_Delete(e2);
  lab_stream_init(&a, t4(), NULL);
  lab_stream_kernels(&a, "k", 1, 0, &first);
  ck_assert_double_eq(first, -1);
}
END_TEST

START_TEST(stream_gpu_waits_for_late_launch) {
  lab_stream_sim s;
  lab_stream_init(&s, t4(), NULL);
  lab_stream_host(&s, "python", 500);
  double end = lab_stream_kernel(&s, "k", 10);
  ck_assert_double_eq_tol(end, 500 + t4()->launch_us + 10, 1e-9);
}
END_TEST

START_TEST(stream_kernel_never_shorter_than_min) {
  lab_stream_sim s;
  lab_stream_init(&s, t4(), NULL);
  double end = lab_stream_kernel(&s, "tiny", 0.001);
  ck_assert_double_eq_tol(end, t4()->launch_us + t4()->kernel_min_us, 1e-9);
}
END_TEST

START_TEST(stream_sync_waits_for_gpu_and_costs_sync_us) {
  lab_stream_sim s;
  lab_stream_init(&s, t4(), NULL);
  double gpu_end = lab_stream_kernel(&s, "k", 2000);
  double host = lab_stream_sync(&s, "sync");
  ck_assert_double_eq_tol(host, gpu_end + t4()->sync_us, 1e-9);
  /* Nothing queued: a synchronize still costs sync_us. */
  ck_assert_double_eq_tol(lab_stream_sync(&s, "again"), host + t4()->sync_us, 1e-9);
}
END_TEST

START_TEST(stream_pinned_copy_is_async_pageable_blocks) {
  const lab_profile *p = t4();
  lab_stream_sim s;
  lab_stream_init(&s, p, NULL);
  double end = lab_stream_copy(&s, "pinned", 1e6, p->h2d_pinned_gbps, 1);
  ck_assert_double_eq_tol(s.host_us, p->launch_us, 1e-9);
  ck_assert_double_eq_tol(end, p->launch_us + lab_copy_us(p, 1e6, p->h2d_pinned_gbps), 1e-9);
  lab_stream_init(&s, p, NULL);
  end = lab_stream_copy(&s, "pageable", 1e6, p->h2d_pageable_gbps, 0);
  ck_assert_double_eq_tol(s.host_us, end, 1e-9);
  ck_assert_double_eq_tol(end, p->launch_us + p->copy_latency_us + lab_copy_us(p, 1e6, p->h2d_pageable_gbps), 1e-9);
}
END_TEST

START_TEST(copy_time_is_latency_plus_bytes_over_bandwidth) {
  const lab_profile *p = t4();
  ck_assert_double_eq_tol(lab_copy_us(p, 0, 10), p->copy_latency_us, 1e-12);
  ck_assert_double_eq_tol(lab_copy_us(p, 1e9, 10), p->copy_latency_us + 1e5, 1e-6); /* 1 GB at 10 GB/s = 0.1 s */
  /* Small copies reach only a fraction of the link's bandwidth. */
  double small_gbps = 4096 / (lab_copy_us(p, 4096, p->h2d_pinned_gbps) * 1e3);
  ck_assert(small_gbps < 0.1 * p->h2d_pinned_gbps);
}
END_TEST

START_TEST(stream_records_timeline_on_both_lanes) {
  cJSON *env = lab_envelope_new("timing", "simulated", "x", "t4", NULL);
  lab_stream_sim s;
  lab_stream_init(&s, t4(), env);
  lab_stream_kernel(&s, "sgemm", 50);
  lab_stream_sync(&s, "synchronize");
  cJSON *tl = cJSON_GetObjectItemCaseSensitive(env, "timeline");
  ck_assert_int_eq(cJSON_GetArraySize(tl), 3);
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(tl, 0), "lane")->valuestring, "cpu");
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(tl, 1), "lane")->valuestring, "gpu:0/stream0");
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(tl, 1), "label")->valuestring, "sgemm");
  ck_assert_int_eq(lab_envelope_check(env, NULL), 0);
  cJSON_Delete(env);
}
END_TEST

START_TEST(stream_stops_recording_past_max_events) {
  cJSON *env = lab_envelope_new("timing", "simulated", "x", "t4", NULL);
  lab_stream_sim s;
  lab_stream_init(&s, t4(), env);
  s.max_events = 5;
  for (int i = 0; i < 10; i++) lab_stream_kernel(&s, "k", 10);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(env, "timeline")), 5);
  /* The clocks keep running after recording stops. */
  ck_assert_double_eq_tol(s.host_us, 10 * t4()->launch_us, 1e-9);
  cJSON_Delete(env);
}
END_TEST

START_TEST(stream_without_env_records_nothing) {
  lab_stream_sim s;
  lab_stream_init(&s, t4(), NULL);
  lab_stream_kernel(&s, "k", 10);
  ck_assert_int_eq(s.events, 0);
}
END_TEST

START_TEST(gemm_model_small_matrices_are_less_efficient_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    double e64 = lab_gemm_efficiency(p, 64, 64, 64), e4k = lab_gemm_efficiency(p, 4096, 4096, 4096);
    ck_assert(e64 > 0 && e64 < e4k);
    /* A power-limited card (L4) holds only power_cap of its clock through a large sgemm. */
    ck_assert(e4k <= p->gemm_efficiency && e4k > 0.8 * p->gemm_efficiency * fmin(1, p->power_cap));
    double prev = 0;
    for (int n = 64; n <= 8192; n *= 2) {
      double us = lab_gemm_us(p, n, n, n);
      ck_assert(us > prev);
      ck_assert(us >= p->kernel_min_us);
      prev = us;
    }
    /* A big sgemm runs at most at the profile's sustained rate. */
    double flops = 2.0 * 4096 * 4096 * 4096;
    ck_assert(flops / (lab_gemm_us(p, 4096, 4096, 4096) * 1e-6) <= p->fp32_tflops * 1e12 * p->gemm_efficiency);
  }
}
END_TEST

START_TEST(rng_is_deterministic_and_seed_dependent) {
  lab_rng a, b, c;
  lab_rng_seed(&a, 42);
  lab_rng_seed(&b, 42);
  lab_rng_seed(&c, 43);
  int differ = 0;
  for (int i = 0; i < 100; i++) {
    double x = lab_rng_uniform(&a), y = lab_rng_uniform(&b), z = lab_rng_uniform(&c);
    ck_assert(x >= 0 && x < 1);
    ck_assert(x == y);
    differ += x != z;
  }
  ck_assert_int_gt(differ, 90);
}
END_TEST

START_TEST(rng_jitter_stays_within_its_percentage) {
  lab_rng r;
  lab_rng_seed(&r, 7);
  double lo = 2, hi = 0;
  for (int i = 0; i < 1000; i++) {
    double j = lab_rng_jitter(&r, 5);
    lo = j < lo ? j : lo;
    hi = j > hi ? j : hi;
  }
  ck_assert(lo >= 0.95 && hi <= 1.05);
  ck_assert(lo < 0.96 && hi > 1.04); /* and it does spread */
}
END_TEST

START_TEST(rng_normal_fill_has_mean_zero_and_unit_variance) {
  static float x[20001];
  lab_fill_normal(x, 20001, 1);
  double sum = 0, sq = 0;
  for (int i = 0; i < 20001; i++) {
    ck_assert(isfinite(x[i]));
    sum += x[i];
    sq += (double)x[i] * x[i];
  }
  double mean = sum / 20001, var = sq / 20001 - mean * mean;
  ck_assert(fabs(mean) < 0.05);
  ck_assert(fabs(var - 1) < 0.05);
}
END_TEST

Suite *make_stream_sim_suite(void) {
  Suite *s = suite_create("stream_sim");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, stream_kernel_returns_to_host_before_gpu_finishes);
  tcase_add_test(tc, stream_kernels_run_back_to_back_in_order);
  tcase_add_test(tc, stream_kernels_in_one_call_match_one_call_each);
  tcase_add_test(tc, stream_gpu_waits_for_late_launch);
  tcase_add_test(tc, stream_kernel_never_shorter_than_min);
  tcase_add_test(tc, stream_sync_waits_for_gpu_and_costs_sync_us);
  tcase_add_test(tc, stream_pinned_copy_is_async_pageable_blocks);
  tcase_add_test(tc, copy_time_is_latency_plus_bytes_over_bandwidth);
  tcase_add_test(tc, stream_records_timeline_on_both_lanes);
  tcase_add_test(tc, stream_stops_recording_past_max_events);
  tcase_add_test(tc, stream_without_env_records_nothing);
  tcase_add_test(tc, gemm_model_small_matrices_are_less_efficient_on_every_profile);
  tcase_add_test(tc, rng_is_deterministic_and_seed_dependent);
  tcase_add_test(tc, rng_jitter_stays_within_its_percentage);
  tcase_add_test(tc, rng_normal_fill_has_mean_zero_and_unit_variance);
  suite_add_tcase(s, tc);
  return s;
}
