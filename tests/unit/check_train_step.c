/* train_step: parameter bounds, the CPU reference step (gradients against
 * finite differences), the genuine loss curve, the envelope's shape, and
 * the sync physics — reading every step costs more — on every profile. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "exp_test.h"
#include "suites.h"
#include "train_step.h"

#define SMALL "{\"batch\":64,\"features\":16,\"classes\":4,\"steps\":40,\"read_every\":8}"

static cJSON *sim(const char *json, const char *profile) {
  lab_error err;
  memset(&err, 0, sizeof err);
  cJSON *env = test_exp_simulate("train_step", json, profile, &err);
  ck_assert_msg(env != NULL, "simulate failed: %s", err.message);
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  return env;
}

START_TEST(train_step_cpu_gradients_match_finite_differences) {
  enum { B = 12, F = 5, C = 3 };
  float x[B * F], w[C * F], b[C];
  int y[B];
  double dw[C * F], db[C], z[C], dw2[C * F], db2[C];
  lab_train_data(B, F, C, 7, x, y);
  lab_train_init(F, C, 8, w, b);
  for (int i = 0; i < C * F; i++) w[i] *= 30; /* away from the flat start */
  lab_train_cpu_step(x, y, w, b, B, F, C, 0, dw, db, z);
  const float h = 1e-2f;
  for (int i = 0; i < C * F; i += 4) {
    float keep = w[i];
    w[i] = keep + h;
    double up = lab_train_cpu_step(x, y, w, b, B, F, C, 0, dw2, db2, z);
    w[i] = keep - h;
    double down = lab_train_cpu_step(x, y, w, b, B, F, C, 0, dw2, db2, z);
    w[i] = keep;
    ck_assert_double_eq_tol((up - down) / (2 * h), dw[i], 2e-4);
  }
  float keep = b[1];
  b[1] = keep + h;
  double up = lab_train_cpu_step(x, y, w, b, B, F, C, 0, dw2, db2, z);
  b[1] = keep - h;
  double down = lab_train_cpu_step(x, y, w, b, B, F, C, 0, dw2, db2, z);
  ck_assert_double_eq_tol((up - down) / (2 * h), db[1], 2e-4);
}
END_TEST

START_TEST(train_step_first_loss_is_near_log_classes) {
  cJSON *env = sim(SMALL, NULL);
  /* weights start at N(0, 0.01²): every class is about equally likely */
  ck_assert_double_eq_tol(test_exp_metric(env, "first_loss"), log(4.0), 0.05);
  ck_assert(test_exp_metric(env, "final_loss") < 0.8 * test_exp_metric(env, "first_loss"));
  cJSON_Delete(env);
}
END_TEST

START_TEST(train_step_loss_curve_is_a_real_cpu_run) {
  enum { B = 64, F = 16, C = 4, S = 40 };
  float x[B * F], w[C * F], b[C];
  int y[B];
  double dw[C * F], db[C], z[C];
  lab_train_data(B, F, C, LAB_TRAIN_SEED, x, y);
  lab_train_init(F, C, LAB_TRAIN_SEED + 1, w, b);
  cJSON *env = sim(SMALL, "t4");
  for (int s = 0; s < S; s++) {
    double loss = lab_train_cpu_step(x, y, w, b, B, F, C, 0.5f, dw, db, z);
    ck_assert_double_eq_tol(test_exp_y(env, "loss", s), (float)loss, 1e-6);
  }
  cJSON_Delete(env);
}
END_TEST

START_TEST(train_step_envelope_has_the_keys_the_client_draws) {
  cJSON *env = sim(SMALL, NULL);
  const char *keys[] = {"every_step_ms", "every_n_ms", "per_step_every_step_us", "per_step_every_n_us",
                        "cost_per_read_us", "slowdown", "syncs_every_step", "syncs_every_n", "gpu_step_us",
                        "first_loss", "final_loss", "final_accuracy"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) test_exp_metric(env, keys[i]);
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "loss")), 40);
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "host_every_step")), 40);
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "host_every_n")), 40);
  const cJSON *tl = cJSON_GetObjectItemCaseSensitive(env, "timeline");
  ck_assert_int_gt(cJSON_GetArraySize(tl), 10);
  ck_assert_int_eq((int)test_exp_metric(env, "syncs_every_step"), 40);
  ck_assert_int_eq((int)test_exp_metric(env, "syncs_every_n"), 5);
  ck_assert(test_exp_finding_has(env, "real training run"));
  cJSON_Delete(env);
}
END_TEST

START_TEST(train_step_reading_every_step_costs_more_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    const char *name = lab_profile_at(i)->name;
    cJSON *env = sim(SMALL, name);
    double a = test_exp_metric(env, "every_step_ms"), b = test_exp_metric(env, "every_n_ms");
    ck_assert_msg(a > 1.2 * b, "%s: every step %.3f ms vs every N %.3f ms", name, a, b);
    ck_assert_msg(test_exp_metric(env, "cost_per_read_us") > lab_profile_at(i)->sync_us, "%s", name);
    /* the cumulative host-time curves end at the totals */
    ck_assert_double_eq_tol(test_exp_y(env, "host_every_step", 39), a, 1e-3);
    ck_assert_double_eq_tol(test_exp_y(env, "host_every_n", 39), b, 1e-3);
    char want[48];
    snprintf(want, sizeof want, "took %.2f ms for 40 steps", a);
    ck_assert_msg(test_exp_finding_has(env, want), "%s: finding lacks '%s'", name, want);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(train_step_reading_more_rarely_saves_more) {
  cJSON *a = sim("{\"batch\":64,\"features\":16,\"classes\":4,\"steps\":40,\"read_every\":2}", "a100-sxm");
  cJSON *b = sim("{\"batch\":64,\"features\":16,\"classes\":4,\"steps\":40,\"read_every\":20}", "a100-sxm");
  ck_assert(test_exp_metric(b, "every_n_ms") < test_exp_metric(a, "every_n_ms"));
  cJSON_Delete(a);
  cJSON_Delete(b);
}
END_TEST

START_TEST(train_step_large_problems_train_a_smaller_cpu_curve) {
  cJSON *env = sim("{\"batch\":8192,\"features\":2048,\"classes\":256,\"steps\":2}", NULL);
  const cJSON *lc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "details"), "loss_curve");
  ck_assert_int_lt(cJSON_GetObjectItemCaseSensitive(lc, "rows")->valueint, 8192);
  ck_assert(test_exp_finding_has(env, "fewer than the batch"));
  cJSON_Delete(env);
}
END_TEST

/* At batch 8192 the CPU curve trains a few samples (312 of 8192 at the
 * default sizes): their accuracy is not "accuracy on the batch", and a
 * handful of samples fitted perfectly must be said to be learnt by heart. */
START_TEST(train_step_a_smaller_cpu_curve_never_claims_the_batch) {
  cJSON *env = sim("{\"batch\":8192}", NULL);
  const cJSON *lc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "details"), "loss_curve");
  int rows = cJSON_GetObjectItemCaseSensitive(lc, "rows")->valueint;
  ck_assert_int_lt(rows, 8192);
  ck_assert(!test_exp_finding_has(env, "accuracy on the batch"));
  char want[96];
  snprintf(want, sizeof want, "accuracy on the %d samples trained", rows);
  ck_assert_msg(test_exp_finding_has(env, want), "no '%s'", want);
  ck_assert(test_exp_finding_has(env, "by heart"));
  cJSON_Delete(env);
}
END_TEST

TEST_EXPERIMENT_SUITE(train_step);

TEST_EXPERIMENT_SUITE(train_step) {
  Suite *s = suite_create("train_step");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, train_step_cpu_gradients_match_finite_differences);
  tcase_add_test(tc, train_step_first_loss_is_near_log_classes);
  tcase_add_test(tc, train_step_loss_curve_is_a_real_cpu_run);
  tcase_add_test(tc, train_step_envelope_has_the_keys_the_client_draws);
  tcase_add_test(tc, train_step_reading_every_step_costs_more_on_every_profile);
  tcase_add_test(tc, train_step_reading_more_rarely_saves_more);
  tcase_add_test(tc, train_step_large_problems_train_a_smaller_cpu_curve);
  tcase_add_test(tc, train_step_a_smaller_cpu_curve_never_claims_the_batch);
  suite_add_tcase(s, tc);
  return s;
}
