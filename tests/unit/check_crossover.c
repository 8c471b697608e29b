/* `crossover`: parameter bounds, the CPU matmul reference and clock, the
 * crossover rule, and the simulated GPU side's physics on every profile.
 * The CPU side is timed for real, so sizes here stay small. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf16.h"
#include "clock.h"
#include "cpu_gemm.h"
#include "crossover.h"
#include "envelope.h"
#include "exp_test.h"
#include "matmul_cpu.h"
#include "profiles.h"
#include "rng.h"
#include "suites.h"

#define SMALL "{\"max_size\":128,\"samples\":3}"

START_TEST(crossover_sweep_doubles_up_to_max) {
  int n[LAB_CROSSOVER_MAX_SIZES];
  ck_assert_int_eq(lab_crossover_sizes(512, n, LAB_CROSSOVER_MAX_SIZES), 6);
  ck_assert_int_eq(n[0], 16);
  ck_assert_int_eq(n[5], 512);
  ck_assert_int_eq(lab_crossover_sizes(100, n, LAB_CROSSOVER_MAX_SIZES), 4);
  ck_assert_int_eq(n[3], 100);
}
END_TEST

/* An "fp32" result computed from TF32-rounded inputs (what a tensor core
 * does under NVIDIA_TF32_OVERRIDE=1) must fail the fp32 check, at every
 * size; the same products in fp32 pass it. */
START_TEST(matmul_check_catches_a_tf32_slip) {
  const int sizes[] = {64, 256, 1024};
  for (int s = 0; s < 3; s++) {
    int k = sizes[s], rows = 8;
    float *a = malloc(sizeof(float) * rows * k), *b = malloc(sizeof(float) * rows * k);
    float got32[64], got_tf[64];
    double ref[64], rel32 = 0, rel_tf = 0, abs_err = 0;
    lab_fill_normal(a, (size_t)rows * k, 7 + (uint64_t)k);
    lab_fill_normal(b, (size_t)rows * k, 9 + (uint64_t)k);
    for (int i = 0; i < rows; i++)
      for (int j = 0; j < rows; j++) {
        double r = 0;
        float f = 0, t = 0;
        for (int q = 0; q < k; q++) {
          r += (double)a[i * k + q] * b[j * k + q];
          f += a[i * k + q] * b[j * k + q];
          t += lab_round_tf32(a[i * k + q]) * lab_round_tf32(b[j * k + q]);
        }
        ref[i * rows + j] = r;
        got32[i * rows + j] = f;
        got_tf[i * rows + j] = t;
      }
    ck_assert_msg(lab_matmul_check(ref, got32, rows * rows, k, LAB_U_FP32, &rel32, &abs_err), "k=%d fp32 %g", k, rel32);
    ck_assert_msg(!lab_matmul_check(ref, got_tf, rows * rows, k, LAB_U_FP32, &rel_tf, &abs_err), "k=%d tf32 %g passed",
                  k, rel_tf);
    ck_assert_msg(rel_tf > 20 * rel32, "k=%d: tf32 %g vs fp32 %g", k, rel_tf, rel32);
    ck_assert(lab_matmul_check(ref, got_tf, rows * rows, k, LAB_U_TF32, &rel_tf, &abs_err)); /* fine as TF32 */
    free(a);
    free(b);
  }
}
END_TEST

START_TEST(matmul_check_counts_nan_as_a_failure) {
  double ref[2] = {1, 2}, rel = 0, abs_err = 0;
  float got[2] = {1, NAN};
  ck_assert(!lab_matmul_check(ref, got, 2, 16, LAB_U_FP32, &rel, &abs_err));
  ck_assert(isinf(rel));
}
END_TEST

/* Multiplies with mm at sizes that cross the 64-wide blocks unevenly and
 * checks every entry against the double-precision reference, within fp32's
 * bound. */
static void check_against_reference(void (*mm)(const float *, const float *, float *, int)) {
  const int sizes[] = {1, 7, 33, 37, 100, 130};
  for (int s = 0; s < 6; s++) {
    int n = sizes[s];
    float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n), *c = malloc(sizeof(float) * n * n);
    lab_crossover_inputs(a, b, n);
    mm(a, b, c, n);
    double *ref = malloc(sizeof(double) * n * n), rel = 0, abs_err = 0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) ref[i * n + j] = lab_matmul_entry(a, b, n, i, j);
    ck_assert_msg(lab_matmul_check(ref, c, n * n, n, LAB_U_FP32, &rel, &abs_err), "n=%d rel err=%g", n, rel);
    free(ref);
    free(a);
    free(b);
    free(c);
  }
}

START_TEST(crossover_cpu_matmul_matches_the_reference) { check_against_reference(lab_matmul_cpu); }
END_TEST

START_TEST(crossover_naive_matmul_matches_the_reference) { check_against_reference(lab_matmul_naive); }
END_TEST

/* The SIMD kernel against the naive triple loop on random normal inputs,
 * at sizes off every tile and block edge (1, 7, 33, 130: partial 4×8
 * tiles, leftover rows and columns) and past one cache block (257, 300):
 * entry by entry within fp32's bound for a sum of n terms. */
START_TEST(crossover_simd_kernel_matches_the_naive_loop) {
  const int sizes[] = {1, 2, 7, 8, 9, 16, 33, 64, 130, 257, 300};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    int n = sizes[s];
    size_t count = (size_t)n * n;
    float *a = malloc(sizeof(float) * count), *b = malloc(sizeof(float) * count);
    float *fast = malloc(sizeof(float) * count), *slow = malloc(sizeof(float) * count);
    double *ref = malloc(sizeof(double) * count), rel = 0, abs_err = 0;
    lab_fill_normal(a, count, 0x51d0u + (uint64_t)n);
    lab_fill_normal(b, count, 0x51d1u + (uint64_t)n);
    for (size_t i = 0; i < count; i++) fast[i] = NAN; /* every entry must be written */
    lab_matmul_cpu(a, b, fast, n);
    lab_matmul_naive(a, b, slow, n);
    for (size_t i = 0; i < count; i++) ref[i] = slow[i];
    ck_assert_msg(lab_matmul_check(ref, fast, (int)count, n, LAB_U_FP32, &rel, &abs_err), "n=%d rel err=%g", n, rel);
    free(a);
    free(b);
    free(fast);
    free(slow);
    free(ref);
  }
}
END_TEST

START_TEST(crossover_inputs_are_random_normal_not_zeros) {
  float a[64 * 64], b[64 * 64];
  lab_crossover_inputs(a, b, 64);
  double sq = 0;
  int zeros = 0, same = 0;
  for (int i = 0; i < 64 * 64; i++) {
    sq += (double)a[i] * a[i];
    zeros += a[i] == 0;
    same += a[i] == b[i];
  }
  ck_assert(fabs(sq / (64 * 64) - 1) < 0.1);
  ck_assert_int_lt(zeros, 3);
  ck_assert_int_lt(same, 3);
}
END_TEST

START_TEST(crossover_clock_is_monotonic_and_advances) {
  double t0 = lab_clock_ms(), prev = t0;
  volatile double sink = 0;
  for (int i = 0; i < 200000; i++) {
    sink += i * 0.5;
    if (i % 1000 == 0) {
      double t = lab_clock_ms();
      ck_assert(t >= prev);
      prev = t;
    }
  }
  ck_assert(prev > t0);
  ck_assert(sink > 0);
}
END_TEST

START_TEST(crossover_point_is_where_the_gpu_wins_for_good) {
  lab_crossover_measure m;
  memset(&m, 0, sizeof m);
  m.n_sizes = lab_crossover_sizes(256, m.n, LAB_CROSSOVER_MAX_SIZES); /* 16 … 256 */
  double cpu[] = {1, 2, 3, 4, 5}, gpu[] = {0.5, 9, 1, 1, 1}, never[] = {9, 9, 9, 9, 9};
  ck_assert_int_eq(lab_crossover_point(&m, gpu, cpu), 64); /* the early win at 16 does not count */
  ck_assert_int_eq(lab_crossover_point(&m, never, cpu), 0);
  ck_assert_int_eq(lab_crossover_point(&m, cpu, never), 16);
}
END_TEST

/* The timed CPU sgemm (OpenBLAS natively, the loop in wasm) gives the
 * reference's answer: what is timed is a correct matmul. */
START_TEST(crossover_timed_cpu_sgemm_matches_the_reference) { check_against_reference(lab_cpu_sgemm); }
END_TEST

/* The CPU line says what did the work, and a loop is never passed off as
 * what a PyTorch user's CPU would do. */
START_TEST(crossover_cpu_series_names_what_did_the_work) {
  lab_error err;
  char how[96], want[128];
  cJSON *env = test_exp_simulate("crossover", SMALL, "t4", &err);
  ck_assert_ptr_nonnull(env);
  lab_cpu_gemm_describe(how, sizeof how, true);
  snprintf(want, sizeof want, "CPU sgemm (%s)", how);
  const cJSON *s;
  const char *label = NULL, *source = NULL;
  cJSON_ArrayForEach(s, cJSON_GetObjectItem(env, "series")) {
    if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(s, "id")), "cpu") != 0) continue;
    label = cJSON_GetStringValue(cJSON_GetObjectItem(s, "label"));
    source = cJSON_GetStringValue(cJSON_GetObjectItem(s, "source"));
  }
  ck_assert_str_eq(label, want);
  ck_assert_str_eq(source, "measured");
  ck_assert(test_exp_finding_has(env, how));
  if (lab_cpu_gemm_is_blas()) ck_assert(strstr(how, "OpenBLAS") != NULL);
  else ck_assert(test_exp_finding_has(env, "not a tuned BLAS"));
  const char *method = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(env, "stats"), "method"));
  ck_assert(strstr(method, how) != NULL);
  cJSON_Delete(env);
}
END_TEST

START_TEST(crossover_simulated_envelope_has_its_shape) {
  lab_error err;
  cJSON *env = test_exp_simulate("crossover", SMALL, "t4", &err);
  ck_assert_ptr_nonnull(env);
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  const char *keys[] = {"largest_n", "cpu_ms_largest", "gpu_ms_largest", "gpu_copies_ms_largest", "speedup_largest",
                        "speedup_copies_largest", "cpu_ms_smallest", "gpu_ms_smallest", "gpu_overhead_us",
                        "cpu_gflops", "gpu_kernel_gflops"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) ck_assert(test_exp_metric(env, keys[i]) > 0);
  ck_assert(test_exp_metric(env, "crossover_n") >= 0);
  ck_assert(test_exp_metric(env, "crossover_copies_n") >= 0);
  const char *ids[] = {"cpu", "gpu_kernel", "gpu", "gpu_copies"};
  for (int i = 0; i < 4; i++) ck_assert_int_eq(cJSON_GetArraySize(test_exp_series(env, ids[i])), 4);
  ck_assert(test_exp_finding_has(env, "measured for real on this machine"));
  ck_assert(test_exp_finding_has(env, "t4 profile"));
  cJSON_Delete(env);
}
END_TEST

START_TEST(crossover_gpu_model_physics_on_every_profile) {
  for (int p = 0; p < lab_profile_count(); p++) {
    const lab_profile *prof = lab_profile_at(p);
    lab_error err;
    cJSON *env = test_exp_simulate("crossover", "{\"max_size\":64,\"samples\":1}", prof->name, &err);
    ck_assert_ptr_nonnull(env);
    int n = cJSON_GetArraySize(test_exp_series(env, "gpu"));
    for (int i = 0; i < n; i++) {
      double k = test_exp_y(env, "gpu_kernel", i), g = test_exp_y(env, "gpu", i), c = test_exp_y(env, "gpu_copies", i);
      ck_assert(k >= 0.99 * prof->kernel_min_us / 1e3);
      ck_assert(g > k);   /* launch and synchronize come on top of the kernel */
      ck_assert(c > g);   /* and the copies on top of that */
      if (i) ck_assert(k >= test_exp_y(env, "gpu_kernel", i - 1) * 0.97);
    }
    /* Tiny work: the fixed costs dominate the GPU's time. */
    ck_assert(test_exp_metric(env, "gpu_overhead_us") > 0.9 * (prof->launch_us + prof->sync_us));
    ck_assert(test_exp_metric(env, "gpu_ms_smallest") > 2 * test_exp_y(env, "gpu_kernel", 0));
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(crossover_cpu_time_grows_with_size) {
  lab_error err;
  cJSON *env = test_exp_simulate("crossover", SMALL, "h100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  ck_assert(test_exp_y(env, "cpu", 3) > 8 * test_exp_y(env, "cpu", 0)); /* 512× the work from 16 to 128 */
  cJSON_Delete(env);
}
END_TEST

START_TEST(crossover_findings_name_the_crossover) {
  lab_params p;
  const lab_experiment *e = lab_experiment_find("crossover");
  lab_params_init(&p, e->params, e->n_params);
  lab_crossover_measure m;
  memset(&m, 0, sizeof m);
  m.n_sizes = lab_crossover_sizes(256, m.n, LAB_CROSSOVER_MAX_SIZES);
  for (int i = 0; i < m.n_sizes; i++) {
    double n = m.n[i];
    m.cpu_ms[i] = n * n * n * 1e-6;     /* 1 GFLOP/s-ish CPU */
    m.gpu_kernel_ms[i] = 0.005;
    m.gpu_ms[i] = 0.02;                 /* fixed overhead: wins from 32 (0.033 ms) */
    m.gpu_copies_ms[i] = 0.05 + n * n * 4e-7;
  }
  m.samples = 3;
  m.validated = 1;
  cJSON *env = lab_crossover_envelope(&p, &m, "cuda", "NVIDIA H100 80GB HBM3", NULL);
  ck_assert_int_eq(lab_envelope_check(env, NULL), 0);
  ck_assert_double_eq(test_exp_metric(env, "crossover_n"), 32);
  ck_assert(test_exp_finding_has(env, "from N = 32 on"));
  ck_assert(!test_exp_finding_has(env, "profile")); /* a real run says nothing about a model */
  cJSON_Delete(env);
}
END_TEST

/* A crossover envelope with the server's BLAS line added (as the browser
 * does) is judged against the best CPU line: the headline, the metrics
 * and every finding come from that one comparison and name it. */
static void add_cpu_line(cJSON *env, const char *id, const char *label, const double *ms, int n_sizes) {
  cJSON *pts = lab_env_series(env, id, label, "N", "ms");
  for (int i = 0; i < n_sizes; i++) lab_series_point(pts, 16 << i, ms[i]);
  lab_env_series_source(env, id, "measured");
  cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(env, "series"), cJSON_GetArraySize(cJSON_GetObjectItem(env, "series")) - 1);
  cJSON_AddBoolToObject(s, "blas", 1);
}

static lab_crossover_measure fake_measure(void) {
  lab_crossover_measure m;
  memset(&m, 0, sizeof m);
  m.n_sizes = lab_crossover_sizes(256, m.n, LAB_CROSSOVER_MAX_SIZES); /* 16 … 256 */
  for (int i = 0; i < m.n_sizes; i++) {
    double n = m.n[i];
    m.cpu_ms[i] = 2 * n * n * n / 1e9 * 1e3 / 0.6; /* 0.6 GFLOPS: slower than the GPU even at 16 */
    m.gpu_kernel_ms[i] = 0.002 + 2 * n * n * n / 1e13 * 1e3;
    m.gpu_ms[i] = m.gpu_kernel_ms[i] + 0.008;
    m.gpu_copies_ms[i] = m.gpu_ms[i] + 0.03 + n * n * 1e-7;
  }
  m.samples = 3;
  m.validated = -1;
  return m;
}

START_TEST(crossover_headline_uses_the_blas_cpu_line_and_names_it) {
  lab_params p;
  const lab_experiment *e = lab_experiment_find("crossover");
  lab_params_init(&p, e->params, e->n_params);
  lab_crossover_measure m = fake_measure();
  const lab_profile *prof = lab_profile_find("h100-sxm");
  cJSON *env = lab_crossover_envelope(&p, &m, "simulated", prof->device_name, prof);
  ck_assert_ptr_nonnull(env);
  /* one slow CPU line: the GPU wins from 16, and no finding says tiny work loses */
  ck_assert_double_eq(test_exp_metric(env, "crossover_n"), 16);
  ck_assert(!test_exp_finding_has(env, "tiny work loses"));
  ck_assert(test_exp_finding_has(env, "slower still"));
  /* the server's BLAS: 0.75 µs at 16, 50 GFLOPS beyond */
  double server[5];
  for (int i = 0; i < m.n_sizes; i++) {
    double n = m.n[i];
    server[i] = i == 0 ? 0.00075 : 2 * n * n * n / 50e9 * 1e3;
  }
  add_cpu_line(env, "cpu_server", "Server CPU sgemm (OpenBLAS 0.3.21 cblas_sgemm, 2 threads)", server, m.n_sizes);
  ck_assert_int_eq(lab_crossover_judge(env), 0);
  ck_assert_int_eq(lab_envelope_check(env, NULL), 0);
  const cJSON *h = cJSON_GetObjectItem(cJSON_GetObjectItem(env, "details"), "headline");
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(h, "cpu")), "cpu_server");
  const cJSON *sizes = cJSON_GetObjectItem(h, "sizes");
  ck_assert_int_eq(cJSON_GetArraySize(sizes), m.n_sizes);
  int x = (int)test_exp_metric(env, "crossover_n");
  for (int i = 0; i < m.n_sizes; i++) {
    const char *f = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(sizes, i), "faster"));
    ck_assert_str_eq(f, server[i] < m.gpu_ms[i] ? "cpu" : "gpu");
    if (x && m.n[i] >= x) ck_assert_str_eq(f, "gpu"); /* the metric and the headline agree */
  }
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(sizes, 0), "faster")), "cpu");
  ck_assert(x > 16);
  ck_assert_double_eq_tol(test_exp_metric(env, "cpu_ms_smallest"), 0.00075, 1e-12);
  ck_assert(test_exp_finding_has(env, "best CPU here (Server CPU sgemm (OpenBLAS 0.3.21"));
  ck_assert(test_exp_finding_has(env, "tiny work loses on a GPU"));
  ck_assert(!test_exp_finding_has(env, "slower still"));
  ck_assert(!test_exp_finding_has(env, "without a BLAS library")); /* the verdict's CPU is a BLAS */
  char other[160];
  snprintf(other, sizeof other, "reached %.1f GFLOPS at N = 256", 2.0 * 256 * 256 * 256 / (m.cpu_ms[4] * 1e6));
  ck_assert(test_exp_finding_has(env, "The other CPU line, CPU sgemm"));
  ck_assert(test_exp_finding_has(env, other)); /* the browser's own figure, not the server's */
  ck_assert(test_exp_finding_has(env, "in your browser and on the server"));
  cJSON_Delete(env);
}
END_TEST

START_TEST(crossover_judge_refuses_an_envelope_without_its_series) {
  cJSON *env = lab_envelope_new("crossover", "simulated", NULL, "t4", NULL);
  ck_assert_int_eq(lab_crossover_judge(env), -1);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(env, "findings")), 0);
  cJSON_Delete(env);
}
END_TEST

TEST_EXPERIMENT_SUITE(crossover);

TEST_EXPERIMENT_SUITE(crossover) {
  Suite *s = suite_create("crossover");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 20); /* real CPU timing, slower under the sanitizer */
  tcase_add_test(tc, crossover_sweep_doubles_up_to_max);
  tcase_add_test(tc, crossover_cpu_matmul_matches_the_reference);
  tcase_add_test(tc, crossover_naive_matmul_matches_the_reference);
  tcase_add_test(tc, crossover_simd_kernel_matches_the_naive_loop);
  tcase_add_test(tc, matmul_check_catches_a_tf32_slip);
  tcase_add_test(tc, matmul_check_counts_nan_as_a_failure);
  tcase_add_test(tc, crossover_inputs_are_random_normal_not_zeros);
  tcase_add_test(tc, crossover_clock_is_monotonic_and_advances);
  tcase_add_test(tc, crossover_point_is_where_the_gpu_wins_for_good);
  tcase_add_test(tc, crossover_simulated_envelope_has_its_shape);
  tcase_add_test(tc, crossover_timed_cpu_sgemm_matches_the_reference);
  tcase_add_test(tc, crossover_cpu_series_names_what_did_the_work);
  tcase_add_test(tc, crossover_gpu_model_physics_on_every_profile);
  tcase_add_test(tc, crossover_cpu_time_grows_with_size);
  tcase_add_test(tc, crossover_findings_name_the_crossover);
  tcase_add_test(tc, crossover_headline_uses_the_blas_cpu_line_and_names_it);
  tcase_add_test(tc, crossover_judge_refuses_an_envelope_without_its_series);
  suite_add_tcase(s, tc);
  return s;
}
