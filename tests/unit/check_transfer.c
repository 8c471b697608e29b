/* `transfer`: parameter bounds, the simulated envelope's shape, and the
 * physics the lesson relies on, on every built-in profile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "exp_test.h"
#include "profiles.h"
#include "suites.h"
#include "units.h"
#include "transfer.h"

static const char *const series_ids[] = {"h2d_pageable", "h2d_pinned", "d2h_pageable", "d2h_pinned"};

START_TEST(transfer_rejects_negative_size) {
  lab_error err;
  ck_assert_ptr_null(test_exp_simulate("transfer", "{\"max_bytes\":-4096}", NULL, &err));
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(err.param, "max_bytes");
}
END_TEST

START_TEST(transfer_rejects_small_copies_larger_than_max_bytes) {
  lab_error err;
  ck_assert_ptr_null(
      test_exp_simulate("transfer", "{\"max_bytes\":1048576,\"small_copies\":1000,\"small_bytes\":4096}", NULL, &err));
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(err.param, "small_copies");
}
END_TEST

START_TEST(transfer_sweep_goes_by_four_up_to_max) {
  double b[LAB_TRANSFER_MAX_SIZES];
  ck_assert_int_eq(lab_transfer_sizes(268435456, b, LAB_TRANSFER_MAX_SIZES), 9);
  ck_assert_double_eq(b[0], 4096);
  ck_assert_double_eq(b[8], 268435456);
  int n = lab_transfer_sizes(3e6, b, LAB_TRANSFER_MAX_SIZES);
  ck_assert_double_eq(b[n - 1], 3e6);
  ck_assert_double_eq(b[n - 2], 1048576);
  ck_assert_int_eq(lab_transfer_sizes(1073741824, b, LAB_TRANSFER_MAX_SIZES), 10);
}
END_TEST

START_TEST(transfer_simulated_envelope_has_its_shape) {
  lab_error err;
  cJSON *env = test_exp_simulate("transfer", NULL, "h100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(env, "backend")->valuestring, "simulated");
  const char *keys[] = {"h2d_pinned_gbps", "h2d_pageable_gbps", "d2h_pinned_gbps", "d2h_pageable_gbps",
                        "pinned_speedup", "largest_bytes", "small_copy_gbps", "half_peak_bytes", "pin_ms",
                        "pin_gbps", "small_copies_ms", "batched_copy_ms", "per_copy_overhead_us",
                        "batching_speedup"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) ck_assert(test_exp_metric(env, keys[i]) > 0);
  for (int k = 0; k < 4; k++) ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, series_ids[k])), 9);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(env, "timeline")), 2);
  cJSON *stats = cJSON_GetObjectItemCaseSensitive(env, "stats");
  ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(stats, "samples")->valueint, 5);
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(stats, "median_of")->valuestring, "h2d_pinned_gbps");
  ck_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(stats, "method")));
  ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(env, "validated")); /* nothing ran, nothing validated */
  cJSON_Delete(env);
}
END_TEST

START_TEST(transfer_pinned_beats_pageable_at_64mb_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
      if (!test_exp_applies("transfer", i)) continue; /* no such thing on that GPU */
    lab_error err;
    cJSON *env = test_exp_simulate("transfer", NULL, lab_profile_at(i)->name, &err);
    ck_assert_ptr_nonnull(env);
    const cJSON *pts = test_exp_series(env, "h2d_pinned");
    for (int k = 0; k < cJSON_GetArraySize(pts); k++) {
      double bytes = cJSON_GetArrayItem(cJSON_GetArrayItem(pts, k), 0)->valuedouble;
      if (bytes < 64e6) continue;
      ck_assert(test_exp_y(env, "h2d_pinned", k) > test_exp_y(env, "h2d_pageable", k));
      ck_assert(test_exp_y(env, "d2h_pinned", k) > test_exp_y(env, "d2h_pageable", k));
    }
    ck_assert(test_exp_metric(env, "pinned_speedup") > 1.5);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(transfer_bandwidth_grows_with_size_and_stays_under_the_link) {
  for (int i = 0; i < lab_profile_count(); i++) {
      if (!test_exp_applies("transfer", i)) continue; /* no such thing on that GPU */
    const lab_profile *p = lab_profile_at(i);
    lab_error err;
    cJSON *env = test_exp_simulate("transfer", NULL, p->name, &err);
    ck_assert_ptr_nonnull(env);
    for (int k = 0; k < 4; k++) {
      int n = cJSON_GetArraySize(test_exp_series(env, series_ids[k]));
      for (int j = 1; j < n; j++)
        ck_assert(test_exp_y(env, series_ids[k], j) > 0.95 * test_exp_y(env, series_ids[k], j - 1));
      /* 5x: a real H100's pageable host→device copies went from 1.21 GB/s at 4 KB to 7.09 at 256 MiB (5.9x,
         web/recorded/transfer.json); pinned ones 35x. */
      ck_assert(test_exp_y(env, series_ids[k], n - 1) > 5 * test_exp_y(env, series_ids[k], 0));
    }
    ck_assert(test_exp_metric(env, "h2d_pinned_gbps") <= p->h2d_pinned_gbps * 1.03);
    ck_assert(test_exp_metric(env, "h2d_pinned_gbps") > p->h2d_pinned_gbps * 0.9);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(transfer_many_small_copies_cost_more_than_one_batched) {
  for (int i = 0; i < lab_profile_count(); i++) {
      if (!test_exp_applies("transfer", i)) continue; /* no such thing on that GPU */
    const lab_profile *p = lab_profile_at(i);
    lab_error err;
    cJSON *env = test_exp_simulate("transfer", NULL, p->name, &err);
    ck_assert_ptr_nonnull(env);
    ck_assert(test_exp_metric(env, "batching_speedup") > 5);
    double over = test_exp_metric(env, "per_copy_overhead_us");
    /* The overhead per copy is the larger of the GPU's per-copy latency and
     * the host's enqueue cost, give or take the jitter. */
    double expect = p->copy_latency_us > p->launch_us ? p->copy_latency_us : p->launch_us;
    ck_assert(over > 0.8 * expect && over < 1.5 * expect + 1);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(transfer_pinning_is_slower_than_copying) {
  for (int i = 0; i < lab_profile_count(); i++) {
      if (!test_exp_applies("transfer", i)) continue; /* no such thing on that GPU */
    lab_error err;
    cJSON *env = test_exp_simulate("transfer", NULL, lab_profile_at(i)->name, &err);
    ck_assert_ptr_nonnull(env);
    double copy_ms = test_exp_metric(env, "largest_bytes") / (test_exp_metric(env, "h2d_pinned_gbps") * 1e6);
    ck_assert(test_exp_metric(env, "pin_ms") > copy_ms);
    ck_assert(fabs(test_exp_metric(env, "pin_gbps") - lab_profile_at(i)->pin_gbps) < 0.1 * lab_profile_at(i)->pin_gbps);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(transfer_findings_quote_the_measured_numbers) {
  lab_error err;
  cJSON *env = test_exp_simulate("transfer", NULL, "a100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  char want[64];
  snprintf(want, sizeof want, "reached %.1f GB/s", test_exp_metric(env, "h2d_pinned_gbps"));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  snprintf(want, sizeof want, "about %.1f µs of overhead per copy", test_exp_metric(env, "per_copy_overhead_us"));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  snprintf(want, sizeof want, "took %s", LAB_MS(test_exp_metric(env, "pin_ms")));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  /* against the pinned copy it makes possible: the H100 lease's host
   * pinned at 14 GB/s, faster than its 7.1 GB/s pageable copy */
  ck_assert_msg(test_exp_finding_has(env, "longer than the pinned copy it makes possible"), "pinning vs the copy");
  cJSON_Delete(env);
}
END_TEST

START_TEST(transfer_builder_marks_validation_of_real_runs) {
  lab_params p;
  const lab_experiment *e = lab_experiment_find("transfer");
  lab_params_init(&p, e->params, e->n_params);
  lab_transfer_measure m;
  memset(&m, 0, sizeof m);
  m.n_sizes = lab_transfer_sizes(1048576, m.bytes, LAB_TRANSFER_MAX_SIZES);
  for (int k = 0; k < LAB_XFER_KINDS; k++)
    for (int i = 0; i < m.n_sizes; i++) m.gbps[k][i] = (k + 1) * (i + 1);
  m.samples = 3;
  m.small_copies = 10;
  m.small_bytes = 4096;
  m.small_total_ms = 1;
  m.batched_ms = 0.1;
  m.validated = 1;
  cJSON *env = lab_transfer_envelope(&p, &m, "cuda", "NVIDIA H100 80GB HBM3", NULL);
  ck_assert_int_eq(lab_envelope_check(env, NULL), 0);
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(env, "validated")));
  ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "device"), "profile")));
  ck_assert_double_eq_tol(test_exp_metric(env, "per_copy_overhead_us"), 90, 1e-9);
  cJSON_Delete(env);
}
END_TEST

TEST_EXPERIMENT_SUITE(transfer);

TEST_EXPERIMENT_SUITE(transfer) {
  Suite *s = suite_create("transfer");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, transfer_rejects_negative_size);
  tcase_add_test(tc, transfer_rejects_small_copies_larger_than_max_bytes);
  tcase_add_test(tc, transfer_sweep_goes_by_four_up_to_max);
  tcase_add_test(tc, transfer_simulated_envelope_has_its_shape);
  tcase_add_test(tc, transfer_pinned_beats_pageable_at_64mb_on_every_profile);
  tcase_add_test(tc, transfer_bandwidth_grows_with_size_and_stays_under_the_link);
  tcase_add_test(tc, transfer_many_small_copies_cost_more_than_one_batched);
  tcase_add_test(tc, transfer_pinning_is_slower_than_copying);
  tcase_add_test(tc, transfer_findings_quote_the_measured_numbers);
  tcase_add_test(tc, transfer_builder_marks_validation_of_real_runs);
  suite_add_tcase(s, tc);
  return s;
}
