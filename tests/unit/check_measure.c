/* The measurement helpers every experiment leans on: durations that never
 * read as zero, the GPU-span start rule of the timelines, the median run,
 * and what a CUDA error means for the worker. */
#include <math.h>
#include <string.h>

#include "cuda_errors.h"
#include "gpu_spans.h"
#include "stats.h"
#include "suites.h"
#include "units.h"

START_TEST(fmt_ms_picks_a_unit_that_keeps_three_digits) {
  char b[24];
  ck_assert_str_eq(lab_fmt_ms(0.0401, b, sizeof b), "40.1 µs");
  ck_assert_str_eq(lab_fmt_ms(28.62, b, sizeof b), "28.6 ms");
  ck_assert_str_eq(lab_fmt_ms(1234, b, sizeof b), "1.23 s");
  ck_assert_str_eq(lab_fmt_ms(0.000812, b, sizeof b), "812 ns");
  ck_assert_str_eq(lab_fmt_ms(1, b, sizeof b), "1.00 ms");
  ck_assert_str_eq(lab_fmt_ms(0, b, sizeof b), "0 ms");
  ck_assert_str_eq(lab_fmt_ms(NAN, b, sizeof b), "unknown");
  ck_assert_str_eq(lab_fmt_ms(-1, b, sizeof b), "unknown");
  ck_assert_str_eq(lab_fmt_num(0.000000119, b, sizeof b), "0.000000119");
  ck_assert_str_eq(lab_fmt_num(24781.4, b, sizeof b), "24781");
  ck_assert_str_eq(lab_fmt_num(3.14159, b, sizeof b), "3.14");
  /* figures of unknown kind: whole numbers whole, never an exponent */
  ck_assert_str_eq(lab_fmt_plain(3, b, sizeof b), "3");
  ck_assert_str_eq(lab_fmt_plain(1024, b, sizeof b), "1024");
  ck_assert_str_eq(lab_fmt_plain(770.4, b, sizeof b), "770");
  ck_assert_str_eq(lab_fmt_plain(2.4e-7, b, sizeof b), "0.000000240");
  ck_assert_str_eq(lab_fmt_plain(-0.5, b, sizeof b), "-0.500");
  ck_assert_str_eq(lab_fmt_plain(INFINITY, b, sizeof b), "unknown");
}
END_TEST

/* Launch-bound: ops issued 10 µs apart, each 2 µs of work: the GPU idles
 * between them, and the spans must show it. */
START_TEST(gpu_spans_show_idle_gaps_when_launches_are_slow) {
  double issue[4] = {0, 10, 20, 30}, end[4] = {3, 12.5, 22, 32}, start[4];
  lab_gpu_span_starts(issue, end, 4, 1, start);
  ck_assert_double_eq(start[0], 1); /* ready at 1, issued at 0: starts when ready */
  ck_assert_double_eq(start[1], 10);
  ck_assert_double_eq(start[2], 20);
  ck_assert_double_eq(start[3], 30);
  double busy = 0;
  for (int i = 0; i < 4; i++) busy += end[i] - start[i];
  ck_assert(busy < 0.5 * (end[3] - start[0])); /* mostly idle, as it was */
}
END_TEST

START_TEST(gpu_spans_queue_back_to_back_when_the_gpu_is_behind) {
  double issue[3] = {0, 1, 2}, end[3] = {100, 200, 300}, start[3];
  lab_gpu_span_starts(issue, end, 3, 0, start);
  ck_assert_double_eq(start[1], 100);
  ck_assert_double_eq(start[2], 200);
  /* Never after its own end, and an op never issued starts at its end. */
  double issue2[2] = {0, -1}, end2[2] = {5, 9}, start2[2];
  lab_gpu_span_starts(issue2, end2, 2, 50, start2);
  ck_assert_double_eq(start2[0], 5);
  ck_assert_double_eq(start2[1], 9);
}
END_TEST

START_TEST(median_index_picks_the_run_not_a_float_match) {
  double odd[5] = {5, 1, 3, 9, 7};
  ck_assert_int_eq(lab_median_index(odd, 5), 0); /* 5: two below it, two above */
  double even[4] = {4, 1, 3, 2}; /* the lower middle: 2 */
  ck_assert_int_eq(lab_median_index(even, 4), 3);
  double ties[3] = {2, 2, 2};
  ck_assert_int_eq(lab_median_index(ties, 3), 1);
  ck_assert_int_eq(lab_median_index(odd, 0), -1);
  double one = 42;
  ck_assert_int_eq(lab_median_index(&one, 1), 0);
}
END_TEST

START_TEST(only_sticky_cuda_errors_replace_the_worker) {
  ck_assert_int_eq(lab_cuda_error_class("cudaErrorIllegalAddress"), LAB_E_CUDA);
  ck_assert_int_eq(lab_cuda_error_class("cudaErrorLaunchFailure"), LAB_E_CUDA);
  ck_assert_int_eq(lab_cuda_error_class("CUBLAS_STATUS_EXECUTION_FAILED"), LAB_E_CUDA);
  ck_assert_int_eq(lab_cuda_error_class("cudaErrorInvalidValue"), LAB_E_CUDA_CALL);
  ck_assert_int_eq(lab_cuda_error_class("cudaErrorLaunchOutOfResources"), LAB_E_CUDA_CALL);
  ck_assert_int_eq(lab_cuda_error_class("CUBLAS_STATUS_NOT_SUPPORTED"), LAB_E_CUDA_CALL);
  ck_assert_int_eq(lab_cuda_error_class("cudaErrorNoKernelImageForDevice"), LAB_E_GPU_ARCH);
  ck_assert_int_eq(lab_cuda_error_class("CUBLAS_STATUS_ARCH_MISMATCH"), LAB_E_GPU_ARCH);
  ck_assert_int_eq(lab_cuda_error_class("cudaErrorMemoryAllocation"), LAB_E_GPU_OOM);
  ck_assert_int_eq(lab_cuda_error_class("cudaErrorInsufficientDriver"), LAB_E_NO_GPU);
  ck_assert_int_eq(lab_cuda_error_class("cudaErrorSomethingNew"), LAB_E_CUDA); /* the unknown: a fresh worker */
  ck_assert_int_eq(lab_cuda_error_class(NULL), LAB_E_CUDA);
  ck_assert_str_eq(lab_err_code(LAB_E_CUDA_CALL), "cuda_call_failed");
  ck_assert_int_eq(lab_err_http_status(LAB_E_GPU_ARCH), 503);
}
END_TEST

Suite *make_measure_suite(void) {
  Suite *s = suite_create("measure");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, fmt_ms_picks_a_unit_that_keeps_three_digits);
  tcase_add_test(tc, gpu_spans_show_idle_gaps_when_launches_are_slow);
  tcase_add_test(tc, gpu_spans_queue_back_to_back_when_the_gpu_is_behind);
  tcase_add_test(tc, median_index_picks_the_run_not_a_float_match);
  tcase_add_test(tc, only_sticky_cuda_errors_replace_the_worker);
  suite_add_tcase(s, tc);
  return s;
}
