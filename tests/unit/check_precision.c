/* `precision`: parameter bounds, the rounding helpers, the simulated
 * envelope's shape, the throughput model on every profile (tensor cores win
 * at large N, fall back where the profile has none), the real errors within
 * their bounds, and the training run's underflow with and without scaling. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf16.h"
#include "envelope.h"
#include "exp_test.h"
#include "precision.h"
#include "profiles.h"
#include "suites.h"

START_TEST(precision_rejects_a_non_boolean_loss_scale) {
  lab_error err;
  ck_assert_ptr_null(test_exp_simulate("precision", "{\"loss_scale\":\"yes\"}", NULL, &err));
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(err.param, "loss_scale");
}
END_TEST

START_TEST(rounding_keeps_each_formats_bits) {
  ck_assert(lab_round_bf16(1.0f + 0x1p-9f) == 1.0f);           /* below half an ulp (2^-7) */
  ck_assert(lab_round_bf16(1.0f + 0x1p-7f) == 1.0f + 0x1p-7f); /* representable */
  ck_assert(lab_round_bf16(1.0f + 3 * 0x1p-9f) == 1.0f + 0x1p-7f);
  ck_assert(lab_round_tf32(1.0f + 0x1p-12f) == 1.0f);
  ck_assert(lab_round_tf32(1.0f + 0x1p-10f) == 1.0f + 0x1p-10f);
  ck_assert(lab_round_bf16(1e-30f) != 0);                      /* bf16 keeps fp32's range */
  ck_assert(lab_round_fp16(1e-8f) == 0);                       /* below half of 2^-24 */
  ck_assert(lab_round_fp16(0x1p-24f) == 0x1p-24f);             /* the smallest subnormal */
  ck_assert(lab_round_fp16(1e-6f) != 0 && fabsf(lab_round_fp16(1e-6f) - 1e-6f) <= 0x1p-25f);
  ck_assert(isinf(lab_round_fp16(70000.0f)) && lab_round_fp16(65504.0f) == 65504.0f);
  ck_assert(lab_round_fp16(-3.0f) == -3.0f);
}
END_TEST

START_TEST(precision_defaults_and_shape) {
  lab_error err;
  cJSON *env = test_exp_simulate("precision", NULL, NULL, &err);
  ck_assert_ptr_nonnull(env);
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  cJSON *p = cJSON_GetObjectItemCaseSensitive(env, "params");
  ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(p, "max_size")->valueint, 4096);
  ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(p, "train_steps")->valueint, 200);
  const char *ids[] = {"tflops_fp32", "tflops_tf32", "tflops_bf16", "err_fp32", "err_tf32", "err_bf16"};
  for (int i = 0; i < 6; i++) ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, ids[i])), 6); /* 128…4096 */
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "loss_fp16")), 200);
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "flushed_fp16")), 200);
  const char *keys[] = {"fp32_tflops", "tf32_tflops", "bf16_tflops", "bf16_speedup", "bf16_max_rel_err",
                        "tf32_mean_rel_err", "train_fp16_flushed_pct", "train_bf16_final_loss"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) ck_assert(test_exp_metric(env, keys[i]) > 0);
  cJSON_Delete(env);
}
END_TEST

START_TEST(precision_sizes_double_and_end_at_max_size) {
  int s[LAB_PREC_MAX_SIZES];
  ck_assert_int_eq(lab_precision_sizes(8192, s), 7);
  ck_assert_int_eq(s[0], 128);
  ck_assert_int_eq(s[6], 8192);
  ck_assert_int_eq(lab_precision_sizes(3000, s), 6);
  ck_assert_int_eq(s[5], 3000);
  ck_assert_int_eq(lab_precision_repeats(8192), 1);
  ck_assert_int_eq(lab_precision_repeats(128), LAB_PREC_MAX_REPEATS);
}
END_TEST

/* The physics the GPU check asserts, and the fallback where there are no tensor cores. */
START_TEST(precision_tensor_cores_win_at_large_sizes_on_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    lab_error err;
    cJSON *env = test_exp_simulate("precision", "{\"max_size\":4096,\"samples\":3,\"train_steps\":10}", p->name, &err);
    ck_assert_ptr_nonnull(env);
    double f = test_exp_metric(env, "fp32_tflops"), t = test_exp_metric(env, "tf32_tflops");
    double h = test_exp_metric(env, "bf16_tflops");
    if (p->bf16_tflops > 1.2 * p->fp32_tflops) ck_assert_msg(h > 1.2 * f, "%s: bf16 %g fp32 %g", p->name, h, f);
    else ck_assert(fabs(h - f) < 0.1 * f);
    if (p->tf32_tflops > 1.2 * p->fp32_tflops) ck_assert(t > 1.2 * f);
    else ck_assert(fabs(t - f) < 0.1 * f);
    ck_assert_int_eq((int)test_exp_metric(env, "tf32_tensor_cores"), p->tf32_tflops > 0);
    if (p->tf32_tflops == 0) ck_assert(test_exp_finding_has(env, "no TF32 tensor cores"));
    /* Small matrices gain less than large ones. */
    ck_assert(test_exp_y(env, "tflops_fp32", 0) < f);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(precision_errors_are_within_their_bounds_and_ordered) {
  lab_error err;
  cJSON *env = test_exp_simulate("precision", "{\"max_size\":8192,\"samples\":3,\"train_steps\":10}", "h100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  double e32 = test_exp_metric(env, "fp32_max_rel_err"), etf = test_exp_metric(env, "tf32_max_rel_err");
  double ebf = test_exp_metric(env, "bf16_max_rel_err");
  ck_assert(e32 < LAB_PREC_FP32_BOUND && etf < LAB_PREC_TF32_BOUND && ebf < LAB_PREC_BF16_BOUND);
  ck_assert(e32 < etf && etf < ebf);
  ck_assert(ebf > 1e-3); /* bf16's 7 bits show */
  cJSON_Delete(env);
}
END_TEST

START_TEST(precision_fp16_gradients_underflow_without_loss_scaling) {
  lab_error err;
  cJSON *off = test_exp_simulate("precision", "{\"max_size\":256,\"samples\":3}", "t4", &err);
  cJSON *on = test_exp_simulate("precision", "{\"max_size\":256,\"samples\":3,\"loss_scale\":true}", "t4", &err);
  ck_assert_ptr_nonnull(off);
  ck_assert_ptr_nonnull(on);
  ck_assert(test_exp_metric(off, "train_fp16_flushed_pct") > 5);
  ck_assert(test_exp_metric(off, "train_bf16_flushed_pct") < 0.01);
  ck_assert(test_exp_metric(on, "train_fp16_flushed_pct") < 0.1 * test_exp_metric(off, "train_fp16_flushed_pct"));
  ck_assert(test_exp_metric(on, "train_fp32_final_loss") < 0.1 * test_exp_metric(on, "train_fp32_final_loss") + 0.01);
  ck_assert(test_exp_metric(off, "train_fp32_final_loss") < 0.05 * test_exp_y(off, "loss_fp32", 0));
  char want[96];
  snprintf(want, sizeof want, "%.2f%% of the FP16 gradient values were flushed",
           test_exp_metric(off, "train_fp16_flushed_pct"));
  ck_assert_msg(test_exp_finding_has(off, want), "no finding has '%s'", want);
  ck_assert(test_exp_finding_has(on, "With dynamic loss scaling"));
  cJSON_Delete(off);
  cJSON_Delete(on);
}
END_TEST

START_TEST(precision_findings_quote_the_measured_numbers) {
  lab_error err;
  cJSON *env = test_exp_simulate("precision", "{\"samples\":3,\"train_steps\":10}", "a100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  char want[96];
  snprintf(want, sizeof want, "FP32 reached %.1f TFLOPS, TF32 %.1f", test_exp_metric(env, "fp32_tflops"),
           test_exp_metric(env, "tf32_tflops"));
  ck_assert_msg(test_exp_finding_has(env, want), "no finding has '%s'", want);
  cJSON_Delete(env);
}
END_TEST

Suite *make_precision_suite(void) {
  Suite *s = suite_create("precision");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, precision_rejects_a_non_boolean_loss_scale);
  tcase_add_test(tc, rounding_keeps_each_formats_bits);
  tcase_add_test(tc, precision_defaults_and_shape);
  tcase_add_test(tc, precision_sizes_double_and_end_at_max_size);
  tcase_add_test(tc, precision_tensor_cores_win_at_large_sizes_on_every_profile);
  tcase_add_test(tc, precision_errors_are_within_their_bounds_and_ordered);
  tcase_add_test(tc, precision_fp16_gradients_underflow_without_loss_scaling);
  tcase_add_test(tc, precision_findings_quote_the_measured_numbers);
  suite_add_tcase(s, tc);
  return s;
}
