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
#include "platform.h"
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
  const char *ids[] = {"tflops_fp32", "tflops_tf32", "tflops_bf16", "tflops_fp16",
                       "err_fp32",    "err_tf32",    "err_bf16",    "err_fp16"};
  for (int i = 0; i < 8; i++) ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, ids[i])), 6); /* 128…4096 */
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "loss_fp16")), 200);
  ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, "flushed_fp16")), 200);
  const char *keys[] = {"fp32_tflops", "tf32_tflops", "bf16_tflops", "bf16_speedup", "bf16_max_rel_err",
                        "tf32_mean_rel_err", "train_fp16_flushed_pct", "train_bf16_final_loss",
                        "fp16_tflops", "fp16_speedup", "fp16_max_rel_err", "fp16_mean_rel_err"};
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
    double h = test_exp_metric(env, "bf16_tflops"), x = test_exp_metric(env, "fp16_tflops");
    /* With tensor cores for a type it beats FP32 at N = 4096; without, TF32 runs as FP32 and BF16 on slower
       non-tensor kernels (bf16_fallback × FP32). */
    if (p->bf16_tflops > 0) ck_assert_msg(h > 1.2 * f, "%s: bf16 %g fp32 %g", p->name, h, f);
    else ck_assert_msg(h < f && fabs(h / f - p->bf16_fallback) < 0.1, "%s: bf16 %g fp32 %g", p->name, h, f);
    if (p->tf32_tflops > 0) ck_assert_msg(t > 1.2 * f, "%s: tf32 %g fp32 %g", p->name, t, f);
    else ck_assert(fabs(t - f) < 0.1 * f);
    /* FP16 has matrix units wherever the platform has them; an Apple M1 runs it on the same cores as FP32. */
    bool fp16_units = !(lab_platform_lacks(p->platform) & LAB_NEED_MATRIX_UNITS);
    if (fp16_units) ck_assert_msg(x > 2 * f, "%s: fp16 %g fp32 %g", p->name, x, f);
    else ck_assert_msg(p->fp16_tflops > 0 && x > 0.9 * f && x < 1.3 * f, "%s: fp16 %g fp32 %g", p->name, x, f);
    ck_assert_int_eq((int)test_exp_metric(env, "tf32_tensor_cores"), p->tf32_tflops > 0);
    ck_assert_int_eq((int)test_exp_metric(env, "fp32_tensor_cores"), 0); /* FP32 never runs on tensor cores */
    ck_assert_int_eq((int)test_exp_metric(env, "fp16_tensor_cores"), fp16_units);
    if (p->tf32_tflops == 0) ck_assert(test_exp_finding_has(env, "no TF32"));
    /* cuBLAS and compute capabilities are NVIDIA's words: another platform's GPU is told in its own. */
    if (p->tf32_tflops == 0 && p->platform != LAB_PLATFORM_CUDA)
      ck_assert(test_exp_finding_has(env, "allow_tf32 switch changes nothing") && !test_exp_finding_has(env, "cuBLAS"));
    if (!fp16_units) ck_assert(!test_exp_finding_has(env, "on the tensor cores"));
    if (p->bf16_tflops == 0) ck_assert(test_exp_finding_has(env, "no BF16 tensor cores"));
    /* Nothing above a datasheet peak, at any size. */
    for (int k = 0; k < 6; k++) {
      ck_assert(test_exp_y(env, "tflops_fp32", k) <= p->fp32_tflops);
      ck_assert(test_exp_y(env, "tflops_fp16", k) <= p->fp16_tflops);
      if (p->tf32_tflops > 0) ck_assert(test_exp_y(env, "tflops_tf32", k) <= p->tf32_tflops);
      if (p->bf16_tflops > 0) ck_assert(test_exp_y(env, "tflops_bf16", k) <= p->bf16_tflops);
    }
    /* Small matrices gain less than large ones. */
    ck_assert(test_exp_y(env, "tflops_fp32", 0) < f);
    cJSON_Delete(env);
  }
}
END_TEST

/* The "done when": FP16 autocast is the lesson on a T4, and the RTX 4090's TF32 path outruns FP32. */
START_TEST(precision_t4_fp16_is_fast_and_bf16_slow_4090_tf32_beats_fp32) {
  lab_error err;
  cJSON *t4 = test_exp_simulate("precision", "{\"samples\":3,\"train_steps\":10}", "t4", &err);
  ck_assert_ptr_nonnull(t4);
  double f = test_exp_metric(t4, "fp32_tflops");
  ck_assert_msg(test_exp_metric(t4, "fp16_tflops") >= 4 * f, "t4 fp16 %g fp32 %g", test_exp_metric(t4, "fp16_tflops"), f);
  ck_assert(test_exp_metric(t4, "bf16_tflops") < f);
  ck_assert(test_exp_finding_has(t4, "Here FP16 is the fast low precision"));
  cJSON *g = test_exp_simulate("precision", "{\"samples\":3,\"train_steps\":10}", "rtx-4090", &err);
  ck_assert_ptr_nonnull(g);
  ck_assert_msg(test_exp_metric(g, "tf32_tflops") >= 1.3 * test_exp_metric(g, "fp32_tflops"), "4090 tf32 %g fp32 %g",
                test_exp_metric(g, "tf32_tflops"), test_exp_metric(g, "fp32_tflops"));
  cJSON_Delete(t4);
  cJSON_Delete(g);
}
END_TEST

/* Medium sizes fill only part of the last wave of tensor-core tiles: an H100 at N = 1024 reaches a small share
   of what it reaches at 8192 (the published run: 176.6 against 797.5 TFLOPS), and time still grows with N. */
START_TEST(precision_medium_tensor_core_matmuls_are_wave_bound) {
  lab_error err;
  cJSON *env = test_exp_simulate("precision", "{\"max_size\":8192,\"samples\":3,\"train_steps\":10}", "h100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  double small = test_exp_y(env, "tflops_bf16", 3), big = test_exp_y(env, "tflops_bf16", 6); /* 1024, 8192 */
  ck_assert_msg(small < 0.4 * big, "bf16 %g at 1024 vs %g at 8192", small, big);
  const char *ids[] = {"tflops_fp32", "tflops_tf32", "tflops_bf16", "tflops_fp16"};
  for (int q = 0; q < 4; q++)
    for (int k = 1; k < 7; k++) { /* time = 2N³/flops never falls as N grows (equal while host-bound) */
      double n0 = 128 << (k - 1), n1 = 128 << k;
      ck_assert(n1 * n1 * n1 / test_exp_y(env, ids[q], k) >= n0 * n0 * n0 / test_exp_y(env, ids[q], k - 1) * 0.9999);
    }
  cJSON_Delete(env);
}
END_TEST

/* Raw CUDA times cuBLAS alone; a PyTorch loop also waits for the host to issue every torch.mm. */
START_TEST(precision_pytorch_view_is_never_faster_than_raw_cuda) {
  lab_error err;
  cJSON *py = test_exp_simulate("precision", "{\"max_size\":1024,\"samples\":3,\"train_steps\":10}", "h100-sxm", &err);
  cJSON *raw = test_exp_simulate("precision", "{\"max_size\":1024,\"samples\":3,\"train_steps\":10,\"view\":\"cuda\"}",
                                 "h100-sxm", &err);
  ck_assert_ptr_nonnull(py);
  ck_assert_ptr_nonnull(raw);
  for (int k = 0; k < 4; k++) ck_assert(test_exp_y(py, "tflops_bf16", k) <= test_exp_y(raw, "tflops_bf16", k) * 1.0001);
  ck_assert(test_exp_y(py, "tflops_bf16", 0) < 0.9 * test_exp_y(raw, "tflops_bf16", 0)); /* N = 128: host-bound */
  cJSON_Delete(py);
  cJSON_Delete(raw);
}
END_TEST

START_TEST(precision_errors_are_within_their_bounds_and_ordered) {
  lab_error err;
  cJSON *env = test_exp_simulate("precision", "{\"max_size\":8192,\"samples\":3,\"train_steps\":10}", "h100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  double e32 = test_exp_metric(env, "fp32_max_rel_err"), etf = test_exp_metric(env, "tf32_max_rel_err");
  double ebf = test_exp_metric(env, "bf16_max_rel_err"), e16 = test_exp_metric(env, "fp16_max_rel_err");
  ck_assert(e32 < LAB_PREC_FP32_BOUND && etf < LAB_PREC_TF32_BOUND && ebf < LAB_PREC_BF16_BOUND);
  ck_assert(e16 < LAB_PREC_FP16_BOUND);
  ck_assert(e32 < etf && etf < ebf && e32 < e16 && e16 < ebf); /* FP16 keeps TF32's 10 bits, more than BF16's 7 */
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

TEST_EXPERIMENT_SUITE(precision);

TEST_EXPERIMENT_SUITE(precision) {
  Suite *s = suite_create("precision");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, precision_rejects_a_non_boolean_loss_scale);
  tcase_add_test(tc, rounding_keeps_each_formats_bits);
  tcase_add_test(tc, precision_defaults_and_shape);
  tcase_add_test(tc, precision_sizes_double_and_end_at_max_size);
  tcase_add_test(tc, precision_tensor_cores_win_at_large_sizes_on_every_profile);
  tcase_add_test(tc, precision_t4_fp16_is_fast_and_bf16_slow_4090_tf32_beats_fp32);
  tcase_add_test(tc, precision_medium_tensor_core_matmuls_are_wave_bound);
  tcase_add_test(tc, precision_pytorch_view_is_never_faster_than_raw_cuda);
  tcase_add_test(tc, precision_errors_are_within_their_bounds_and_ordered);
  tcase_add_test(tc, precision_fp16_gradients_underflow_without_loss_scaling);
  tcase_add_test(tc, precision_findings_quote_the_measured_numbers);
  suite_add_tcase(s, tc);
  return s;
}
