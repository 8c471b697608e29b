/* `streams`: parameter bounds, the simulated envelope's shape, and the
 * overlap and race physics on every built-in profile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "exp_test.h"
#include "profiles.h"
#include "stream_sim.h"
#include "streams.h"
#include "suites.h"

START_TEST(streams_rejects_bad_memory_and_wait) {
  lab_error err;
  ck_assert_ptr_null(test_exp_simulate("streams", "{\"memory\":\"managed\"}", NULL, &err));
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(err.param, "memory");
  ck_assert_ptr_null(test_exp_simulate("streams", "{\"wait\":1}", NULL, &err));
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(err.param, "wait");
}
END_TEST

START_TEST(streams_rejects_too_much_data) {
  lab_error err;
  ck_assert_ptr_null(test_exp_simulate("streams", "{\"chunks\":32,\"chunk_mib\":64}", NULL, &err));
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(err.param, "chunk_mib");
  ck_assert_ptr_nonnull(strstr(err.message, "chunk_mib <= 16"));
}
END_TEST

START_TEST(streams_simulated_envelope_has_its_shape) {
  lab_error err;
  cJSON *env = test_exp_simulate("streams", "{\"chunks\":8,\"streams\":3}", "t4", &err);
  ck_assert_ptr_nonnull(env);
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  const char *keys[] = {"total_ms", "one_stream_ms", "speedup", "one_stream_pinned_ms", "streams_pinned_ms",
                        "one_stream_pageable_ms", "streams_pageable_ms", "bound_ms", "stages_sum_ms", "h2d_us",
                        "kernel_run_us", "d2h_us", "h2d_gbps", "d2h_gbps", "race_chunks", "checked_elements", "race_ms"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) ck_assert(test_exp_metric(env, keys[i]) > 0);
  test_exp_metric(env, "stale_chunks");
  test_exp_metric(env, "overlap_pct");
  const char *series[] = {"one_stream_pinned", "streams_pinned", "one_stream_pageable", "streams_pageable"};
  for (int i = 0; i < 4; i++) ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, series[i])), LAB_STREAMS_SAMPLES);
  /* 8 chunks × 3 ops on the stream lanes, the engine lanes, the baseline and the race. */
  int streams[3] = {0}, engines = 0, baseline = 0, race = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(env, "timeline")) {
    const char *lane = cJSON_GetObjectItemCaseSensitive(e, "lane")->valuestring;
    int s;
    ck_assert(cJSON_GetObjectItemCaseSensitive(e, "end_us")->valuedouble >=
              cJSON_GetObjectItemCaseSensitive(e, "start_us")->valuedouble);
    if (sscanf(lane, "gpu:0/stream%d", &s) == 1) streams[s]++;
    else if (!strncmp(lane, "gpu:0/engine/", 13)) engines++;
    else if (!strncmp(lane, "baseline:", 9)) baseline++;
    else if (!strncmp(lane, "race:", 5)) race++;
    else ck_abort_msg("unexpected lane %s", lane);
  }
  ck_assert_int_eq(streams[0], 9);
  ck_assert_int_eq(streams[1], 9);
  ck_assert_int_eq(streams[2], 6);
  ck_assert_int_eq(engines, 24);
  ck_assert_int_eq(baseline, 24);
  ck_assert_int_eq(race, 24);
  cJSON *stats = cJSON_GetObjectItemCaseSensitive(env, "stats");
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(stats, "median_of")->valuestring, "total_ms");
  cJSON_Delete(env);
}
END_TEST

/* The physics the GPU check also asserts: ≥ 4 streams with pinned memory
 * clearly beat one stream; pageable memory gains nothing. */
START_TEST(streams_overlap_pays_only_with_pinned_memory_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
      if (!test_exp_applies("streams", i)) continue; /* no such thing on that GPU */
    const lab_profile *p = lab_profile_at(i);
    lab_error err;
    cJSON *env = test_exp_simulate("streams", "{\"streams\":4}", p->name, &err);
    ck_assert_ptr_nonnull(env);
    ck_assert_msg(test_exp_metric(env, "streams_pinned_ms") < 0.7 * test_exp_metric(env, "one_stream_pinned_ms"),
                  "%s: no overlap", p->name);
    ck_assert(test_exp_metric(env, "pageable_speedup") < 1.1);
    ck_assert(test_exp_metric(env, "one_stream_pageable_ms") > test_exp_metric(env, "one_stream_pinned_ms"));
    /* No schedule beats the busiest engine, and one stream is the sum of the stages. */
    ck_assert(test_exp_metric(env, "total_ms") >= 0.97 * test_exp_metric(env, "bound_ms"));
    ck_assert(fabs(test_exp_metric(env, "one_stream_ms") - test_exp_metric(env, "stages_sum_ms")) <
              0.1 * test_exp_metric(env, "one_stream_ms"));
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(streams_more_streams_never_slower_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
      if (!test_exp_applies("streams", i)) continue; /* no such thing on that GPU */
    const lab_profile *p = lab_profile_at(i);
    double prev = 1e30;
    for (int k = 1; k <= 4; k++) {
      char json[64];
      lab_error err;
      snprintf(json, sizeof json, "{\"streams\":%d}", k);
      cJSON *env = test_exp_simulate("streams", json, p->name, &err);
      ck_assert_ptr_nonnull(env);
      double t = test_exp_metric(env, "total_ms");
      ck_assert_msg(t < prev * 1.03, "%s: %d streams %.3f ms, fewer %.3f ms", p->name, k, t, prev);
      prev = t;
      cJSON_Delete(env);
    }
  }
}
END_TEST

START_TEST(streams_race_reads_stale_data_without_wait_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
      if (!test_exp_applies("streams", i)) continue; /* no such thing on that GPU */
    const lab_profile *p = lab_profile_at(i);
    lab_error err;
    cJSON *env = test_exp_simulate("streams", "{\"kernel_us\":20,\"wait\":false}", p->name, &err);
    ck_assert_ptr_nonnull(env);
    ck_assert(test_exp_metric(env, "stale_chunks") >= 1);
    ck_assert(test_exp_metric(env, "stale_elements") > 0);
    cJSON_Delete(env);
    env = test_exp_simulate("streams", "{\"kernel_us\":20,\"wait\":true}", p->name, &err);
    ck_assert_ptr_nonnull(env);
    ck_assert(test_exp_metric(env, "stale_chunks") == 0);
    ck_assert(test_exp_metric(env, "stale_elements") == 0);
    /* Every kernel of the race starts after its copy ended. */
    const cJSON *e;
    double copy_end[LAB_STREAMS_MAX_CHUNKS] = {0};
    int c;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(env, "timeline")) {
      const char *lane = cJSON_GetObjectItemCaseSensitive(e, "lane")->valuestring;
      const char *label = cJSON_GetObjectItemCaseSensitive(e, "label")->valuestring;
      if (strncmp(lane, "race:", 5)) continue;
      if (sscanf(label, "H2D %d", &c) == 1) copy_end[c] = cJSON_GetObjectItemCaseSensitive(e, "end_us")->valuedouble;
      if (sscanf(label, "kernel %d", &c) == 1)
        ck_assert(cJSON_GetObjectItemCaseSensitive(e, "start_us")->valuedouble >= copy_end[c]);
    }
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(streams_timeline_shows_engines_busy_at_once) {
  lab_error err;
  cJSON *env = test_exp_simulate("streams", NULL, "h100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  /* Some H2D copy overlaps some kernel, and no two kernels overlap. */
  double ks[64], ke[64], hs[64], he[64];
  int nk = 0, nh = 0, overlap = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(env, "timeline")) {
    const char *lane = cJSON_GetObjectItemCaseSensitive(e, "lane")->valuestring;
    double s = cJSON_GetObjectItemCaseSensitive(e, "start_us")->valuedouble;
    double t = cJSON_GetObjectItemCaseSensitive(e, "end_us")->valuedouble;
    if (!strcmp(lane, "gpu:0/engine/compute") && nk < 64) ks[nk] = s, ke[nk++] = t;
    if (!strcmp(lane, "gpu:0/engine/h2d") && nh < 64) hs[nh] = s, he[nh++] = t;
  }
  ck_assert_int_eq(nk, 16);
  for (int i = 1; i < nk; i++) ck_assert(ks[i] >= ke[i - 1] - 1e-9);
  for (int i = 0; i < nk; i++)
    for (int j = 0; j < nh; j++) overlap += hs[j] < ke[i] && he[j] > ks[i];
  ck_assert_int_gt(overlap, 0);
  cJSON_Delete(env);
}
END_TEST

START_TEST(streams_findings_quote_the_measured_numbers) {
  lab_error err;
  cJSON *env = test_exp_simulate("streams", "{\"kernel_us\":20}", "a100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  char want[160];
  snprintf(want, sizeof want, "On one stream the 16 chunks took %.2f ms", test_exp_metric(env, "one_stream_ms"));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  snprintf(want, sizeof want, "%.0f of 16 chunks read stale data", test_exp_metric(env, "stale_chunks"));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  cJSON_Delete(env);
  env = test_exp_simulate("streams", "{\"memory\":\"pageable\",\"wait\":true}", "a100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  ck_assert(test_exp_finding_has(env, "Race fixed"));
  ck_assert(test_exp_metric(env, "speedup") < 1.1);
  cJSON_Delete(env);
}
END_TEST

START_TEST(streams_sim_engines_serve_ops_in_order) {
  const lab_profile *p = lab_profile_find("t4");
  lab_streams_sim s;
  lab_streams_init(&s, p, 3, NULL);
  double s0, s1;
  double e0 = lab_streams_op(&s, 0, LAB_ENGINE_COMPUTE, "a", 100, 0, &s0);
  double e1 = lab_streams_op(&s, 1, LAB_ENGINE_COMPUTE, "b", 100, 0, &s1);
  ck_assert(s1 >= e0); /* one compute engine: the second kernel waits */
  double c0;
  lab_streams_op(&s, 2, LAB_ENGINE_H2D, "copy", 50, 0, &c0);
  ck_assert(c0 < e1); /* the copy engine is free: the copy runs beside the kernels */
  lab_streams_wait(&s, 0, 1e4);
  lab_streams_op(&s, 0, LAB_ENGINE_D2H, "d", 10, 0, &s0);
  ck_assert(s0 >= 1e4);
  ck_assert_double_eq_tol(lab_streams_end(&s), 1e4 + 10, 1e-9);
}
END_TEST

TEST_EXPERIMENT_SUITE(streams);

TEST_EXPERIMENT_SUITE(streams) {
  Suite *s = suite_create("streams");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, streams_rejects_bad_memory_and_wait);
  tcase_add_test(tc, streams_rejects_too_much_data);
  tcase_add_test(tc, streams_simulated_envelope_has_its_shape);
  tcase_add_test(tc, streams_overlap_pays_only_with_pinned_memory_on_every_profile);
  tcase_add_test(tc, streams_more_streams_never_slower_on_every_profile);
  tcase_add_test(tc, streams_race_reads_stale_data_without_wait_on_every_profile);
  tcase_add_test(tc, streams_timeline_shows_engines_busy_at_once);
  tcase_add_test(tc, streams_findings_quote_the_measured_numbers);
  tcase_add_test(tc, streams_sim_engines_serve_ops_in_order);
  suite_add_tcase(s, tc);
  return s;
}
