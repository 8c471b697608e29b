/* `profile`: parameter bounds, the CPU reference's gradients (against
 * finite differences), the simulated envelope's shape (table, bars, one-step
 * timeline) and the physics of the phases on every built-in profile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "exp_test.h"
#include "profile.h"
#include "profiles.h"
#include "rng.h"
#include "suites.h"

START_TEST(profile_rejects_a_non_boolean_pinned) {
  lab_error err;
  ck_assert_ptr_null(test_exp_simulate("profile", "{\"pinned\":\"yes\"}", NULL, &err));
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(err.param, "pinned");
}
END_TEST

/* The reference the GPU is validated against: its gradients must be the
 * slopes of its loss (central differences on a tiny MLP). */
START_TEST(profile_cpu_gradients_match_finite_differences) {
  const int hidden = 6, batch = 5, F = LAB_PHASES_FEATURES;
  int64_t np = lab_phases_param_count(hidden);
  float *params = malloc((size_t)np * sizeof *params), *x = malloc((size_t)batch * F * sizeof *x);
  double *g = malloc((size_t)np * sizeof *g), *g2 = malloc((size_t)np * sizeof *g2), scratch[2 * 6 + 20];
  int y[5] = {0, 3, 9, 3, 1};
  lab_phases_init(hidden, 7, params);
  for (int i = 0; i < hidden; i++) params[(size_t)hidden * F + i] = 0.05f * (float)(i - 2); /* b1: some units off */
  lab_fill_normal(x, (size_t)batch * F, 3);
  lab_phases_cpu_grads(x, y, params, batch, hidden, g, scratch);
  /* A sample of W1, every b1, W2 and b2 entry. */
  int64_t probe[] = {0, 17, 1023, 2048 + 5, (int64_t)hidden * F - 1};
  int64_t extra_from = (int64_t)hidden * F;
  for (int64_t k = 0; k < (int64_t)(sizeof probe / sizeof probe[0]) + (np - extra_from); k++) {
    int64_t i = k < 5 ? probe[k] : extra_from + (k - 5);
    float keep = params[i];
    const float h = 1e-2f;
    params[i] = keep + h;
    double up = lab_phases_cpu_grads(x, y, params, batch, hidden, g2, scratch);
    params[i] = keep - h;
    double down = lab_phases_cpu_grads(x, y, params, batch, hidden, g2, scratch);
    params[i] = keep;
    double fd = (up - down) / (2.0 * ((double)(keep + h) - (double)keep));
    ck_assert_msg(fabs(fd - g[i]) < 2e-3, "param %ld: analytic %g vs finite difference %g", (long)i, g[i], fd);
  }
  free(params), free(x), free(g), free(g2);
}
END_TEST

START_TEST(profile_simulated_envelope_has_its_shape) {
  lab_error err;
  cJSON *env = test_exp_simulate("profile", "{\"steps\":20,\"log_every\":5}", "t4", &err);
  ck_assert_ptr_nonnull(env);
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  const char *keys[] = {"step_ms", "wall_ms", "gpu_busy_ms", "gpu_step_ms", "data_prep_ms", "data_host_ms",
                        "data_gpu_ms", "forward_host_ms", "forward_gpu_ms", "loss_host_ms", "backward_gpu_ms",
                        "optimizer_host_ms", "logging_host_ms", "logging_gpu_ms", "data_pct"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) ck_assert_msg(test_exp_metric(env, keys[i]) > 0, "%s", keys[i]);
  ck_assert_double_eq(test_exp_metric(env, "data_calls"), 20);
  ck_assert_double_eq(test_exp_metric(env, "logging_calls"), 4);
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "phase_host_ms")), LAB_PHASES_PHASES);
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "phase_gpu_ms")), LAB_PHASES_PHASES);
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "step_host")), 20);
  /* The profiler table: one row per phase, in step order. */
  cJSON *tab = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "details"), "table");
  ck_assert_int_eq(cJSON_GetArraySize(tab), LAB_PHASES_PHASES);
  for (int p = 0; p < LAB_PHASES_PHASES; p++) {
    cJSON *row = cJSON_GetArrayItem(tab, p);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(row, "phase")->valuestring, lab_phases_phase_names[p]);
    ck_assert(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(row, "pct_of_step")));
  }
  /* The timeline: every phase once on the CPU lane, the step's ops on the GPU lane. */
  int cpu = 0, gpu = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(env, "timeline")) {
    const char *lane = cJSON_GetObjectItemCaseSensitive(e, "lane")->valuestring;
    ck_assert(cJSON_GetObjectItemCaseSensitive(e, "end_us")->valuedouble >=
              cJSON_GetObjectItemCaseSensitive(e, "start_us")->valuedouble);
    if (!strcmp(lane, "cpu")) cpu++;
    else if (!strcmp(lane, "gpu:0/stream0")) gpu++;
    else ck_abort_msg("unexpected lane %s", lane);
  }
  ck_assert_int_eq(cpu, LAB_PHASES_PHASES);
  ck_assert_int_ge(gpu, LAB_PHASES_OPS);
  const char *method = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "stats"), "method")->valuestring;
  ck_assert_ptr_nonnull(strstr(method, "Nsight Systems"));
  ck_assert_ptr_nonnull(strstr(method, "NVTX"));
  cJSON_Delete(env);
}
END_TEST

/* Host ranges tile the step; the GPU's busy time is within the wall time. */
START_TEST(profile_phases_account_for_the_run_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    lab_error err;
    cJSON *env = test_exp_simulate("profile", "{\"steps\":20}", p->name, &err);
    ck_assert_ptr_nonnull(env);
    double sum = 0, pct = 0;
    for (int ph = 0; ph < LAB_PHASES_PHASES; ph++) {
      char key[48];
      snprintf(key, sizeof key, "%s_host_ms", lab_phases_phase_keys[ph]);
      sum += test_exp_metric(env, key);
      snprintf(key, sizeof key, "%s_pct", lab_phases_phase_keys[ph]);
      pct += test_exp_metric(env, key);
    }
    double wall = test_exp_metric(env, "wall_ms");
    ck_assert(fabs(sum - wall) < 1e-6 * wall);
    ck_assert(fabs(pct - 100) < 1e-6);
    ck_assert(test_exp_metric(env, "gpu_busy_ms") < wall);
    double idle = test_exp_metric(env, "gpu_idle_pct");
    ck_assert(idle > 0 && idle < 100);
    cJSON_Delete(env);
  }
}
END_TEST

/* The lesson's fix: pinned batches + logging every 10 steps never make a
 * step slower, and make it clearly faster where the host waited. */
START_TEST(profile_pinning_and_logging_less_speed_up_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    lab_error err;
    cJSON *slow = test_exp_simulate("profile", "{\"pinned\":false,\"log_every\":1}", p->name, &err);
    cJSON *fast = test_exp_simulate("profile", "{\"pinned\":true,\"log_every\":10}", p->name, &err);
    ck_assert_ptr_nonnull(slow);
    ck_assert_ptr_nonnull(fast);
    ck_assert_msg(test_exp_metric(fast, "step_ms") < 0.9 * test_exp_metric(slow, "step_ms"), "%s", p->name);
    /* The GPU waits less per step (its idle share may not drop where the
     * host sets the pace: faster pinned copies shrink its busy time too). */
    ck_assert(test_exp_metric(fast, "step_ms") - test_exp_metric(fast, "gpu_step_ms") <
              test_exp_metric(slow, "step_ms") - test_exp_metric(slow, "gpu_step_ms"));
    /* Fewer reads: the logging phase shrinks. */
    ck_assert(test_exp_metric(fast, "logging_host_ms") < test_exp_metric(slow, "logging_host_ms"));
    /* Pinned copies run faster on the GPU too. */
    ck_assert(test_exp_metric(fast, "data_gpu_ms") < test_exp_metric(slow, "data_gpu_ms"));
    cJSON_Delete(slow);
    cJSON_Delete(fast);
  }
}
END_TEST

/* A small MLP on a fast GPU is host-bound (the batch takes longer to gather
 * than to train on); a wide one on a slow GPU is GPU-bound, and then pinned
 * async copies hide the data loading almost entirely. */
START_TEST(profile_host_bound_and_gpu_bound_regimes) {
  lab_error err;
  cJSON *h = test_exp_simulate("profile", "{\"hidden\":256,\"pinned\":true,\"log_every\":10}", "h100-sxm", &err);
  ck_assert_ptr_nonnull(h);
  ck_assert_double_eq(test_exp_metric(h, "biggest_phase"), LAB_PH_DATA);
  ck_assert(test_exp_metric(h, "gpu_idle_pct") > 50);
  ck_assert(test_exp_finding_has(h, "the host, not the GPU, sets the pace"));
  cJSON *g = test_exp_simulate("profile", "{\"hidden\":8192,\"pinned\":true,\"log_every\":10}", "t4", &err);
  ck_assert_ptr_nonnull(g);
  ck_assert(test_exp_metric(g, "gpu_idle_pct") < 10);
  ck_assert(test_exp_finding_has(g, "data loading is hidden behind the GPU's work"));
  cJSON_Delete(h);
  cJSON_Delete(g);
}
END_TEST

/* Logging every step: the host's logging range is where it waits, and it
 * ends only after the GPU's last op of the step. */
START_TEST(profile_timeline_shows_the_host_waiting_at_item) {
  lab_error err;
  cJSON *env = test_exp_simulate("profile", "{\"hidden\":4096}", "a100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  double wait_start = -1, wait_end = -1, gpu_end = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(env, "timeline")) {
    const char *lane = cJSON_GetObjectItemCaseSensitive(e, "lane")->valuestring;
    const char *label = cJSON_GetObjectItemCaseSensitive(e, "label")->valuestring;
    double s = cJSON_GetObjectItemCaseSensitive(e, "start_us")->valuedouble;
    double t = cJSON_GetObjectItemCaseSensitive(e, "end_us")->valuedouble;
    if (!strcmp(lane, "cpu") && strstr(label, "synchronize")) wait_start = s, wait_end = t;
    if (strcmp(lane, "cpu") && t > gpu_end) gpu_end = t;
  }
  ck_assert(wait_start >= 0);
  ck_assert(wait_end >= gpu_end);
  ck_assert(wait_end - wait_start > 10); /* the GPU was still busy when .item() was called */
  cJSON_Delete(env);
}
END_TEST

START_TEST(profile_findings_quote_the_measured_numbers) {
  lab_error err;
  cJSON *env = test_exp_simulate("profile", NULL, "rtx-4090", &err);
  ck_assert_ptr_nonnull(env);
  char want[128];
  snprintf(want, sizeof want, "a step took %.3f ms", test_exp_metric(env, "step_ms"));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  snprintf(want, sizeof want, "it sat idle %.0f%% of the time", test_exp_metric(env, "gpu_idle_pct"));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  ck_assert(test_exp_finding_has(env, "pin_memory=True"));
  ck_assert(test_exp_finding_has(env, "log every 10"));
  cJSON_Delete(env);
}
END_TEST

START_TEST(profile_simulation_is_deterministic_and_has_a_spread) {
  lab_error err;
  cJSON *a = test_exp_simulate("profile", "{\"batch\":128,\"steps\":30}", "h100-sxm", &err);
  cJSON *b = test_exp_simulate("profile", "{\"batch\":128,\"steps\":30}", "h100-sxm", &err);
  char *ta = cJSON_PrintUnformatted(a), *tb = cJSON_PrintUnformatted(b);
  ck_assert_str_eq(ta, tb);
  double lo = 1e30, hi = 0;
  for (int r = 0; r < cJSON_GetArraySize(test_exp_series(a, "runs")); r++) {
    double y = test_exp_y(a, "runs", r);
    lo = y < lo ? y : lo;
    hi = y > hi ? y : hi;
  }
  ck_assert(hi > lo);
  free(ta);
  free(tb);
  cJSON_Delete(a);
  cJSON_Delete(b);
}
END_TEST

TEST_EXPERIMENT_SUITE(profile);

TEST_EXPERIMENT_SUITE(profile) {
  Suite *s = suite_create("profile");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, profile_rejects_a_non_boolean_pinned);
  tcase_add_test(tc, profile_cpu_gradients_match_finite_differences);
  tcase_add_test(tc, profile_simulated_envelope_has_its_shape);
  tcase_add_test(tc, profile_phases_account_for_the_run_on_every_profile);
  tcase_add_test(tc, profile_pinning_and_logging_less_speed_up_every_profile);
  tcase_add_test(tc, profile_host_bound_and_gpu_bound_regimes);
  tcase_add_test(tc, profile_timeline_shows_the_host_waiting_at_item);
  tcase_add_test(tc, profile_findings_quote_the_measured_numbers);
  tcase_add_test(tc, profile_simulation_is_deterministic_and_has_a_spread);
  suite_add_tcase(s, tc);
  return s;
}
