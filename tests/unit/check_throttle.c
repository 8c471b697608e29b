/* The class's join window and the wrong-guess budgets (throttle.h): the
 * window's sizing as a token bucket (the arithmetic of limit_bucket.h),
 * and, on a real SQLite store, that wrong guesses stop at their budget
 * (answered from memory past it) while the class's window stays whole. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "limit_bucket.h"
#include "metrics.h"
#include "suites.h"
#include "temp_db.h"
#include "throttle.h"
#include "token.h"

/* n joins at t = 0, oldest first. */
static double wait_after(long n, int64_t now_ms, srv_join_window w) {
  static srv_limit_event ev[1024];
  ck_assert_int_le(n, 1024);
  for (long i = 0; i < n; i++) ev[i] = (srv_limit_event){0, 0};
  return srv_limit_wait_s(ev, n, now_ms, w.period_ms, w.burst, 0);
}

START_TEST(join_window_default_admits_300_at_once_then_5_a_second) {
  srv_join_window w = srv_join_window_of(300, 5);
  ck_assert_int_eq(w.burst, 300);
  ck_assert_int_eq(w.period_ms, 60000);
  ck_assert(wait_after(299, 0, w) == 0); /* the 300th gets in at once */
  ck_assert(wait_after(300, 0, w) > 0);  /* the 301st waits… */
  ck_assert(wait_after(300, 199, w) > 0);
  ck_assert(wait_after(300, 200, w) == 0); /* …a fifth of a second */
}
END_TEST

START_TEST(join_window_period_rounds_up_so_the_rate_is_never_exceeded) {
  srv_join_window w = srv_join_window_of(10, 3);
  ck_assert_int_eq(w.period_ms, 3334);
  w = srv_join_window_of(1000, 1000);
  ck_assert_int_eq(w.burst, 1000);
  ck_assert_int_eq(w.period_ms, 1000);
  w = srv_join_window_of(0, 0); /* never from a validated class: at least one a second */
  ck_assert_int_eq(w.burst, 1);
  ck_assert_int_eq(w.period_ms, 1000);
}
END_TEST

START_TEST(secrets_compare_in_constant_time_over_all_their_bytes) {
  unsigned char a[SRV_HASH_BYTES] = {0}, b[SRV_HASH_BYTES] = {0};
  ck_assert(srv_equal_ct(a, b, sizeof a));
  b[SRV_HASH_BYTES - 1] = 1; /* only the last byte differs */
  ck_assert(!srv_equal_ct(a, b, sizeof a));
  b[SRV_HASH_BYTES - 1] = 0;
  b[0] = 0x80;
  ck_assert(!srv_equal_ct(a, b, sizeof a));
}
END_TEST

START_TEST(refusals_appear_in_metrics_by_what_and_reason) {
  srv_metrics_reset();
  srv_metrics_refused(SRV_REFUSED_JOIN_WINDOW);
  srv_metrics_refused(SRV_REFUSED_JOIN_WINDOW);
  srv_metrics_refused(SRV_REFUSED_INSTRUCTOR_GUESSES_CLASS);
  srv_metrics_gauges g = {.sessions_active = -1, .workers_alive = -1};
  char *t = srv_metrics_text(&g);
  ck_assert_ptr_nonnull(t);
  ck_assert_ptr_nonnull(strstr(t, "# TYPE gpulab_join_refused_total counter\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_join_refused_total{reason=\"class_window\"} 2\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_join_refused_total{reason=\"bad_join_code\"} 0\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_instructor_refused_total{reason=\"guesses_in_class\"} 1\n"));
  ck_assert_ptr_null(strstr(t, "gpulab_instructor_refused_total{reason=\"class_window\"}"));
  free(t);
  ck_assert_str_eq(srv_refusal_what(SRV_REFUSED_INSTRUCTOR_BAD_TOKEN), "instructor");
  ck_assert_str_eq(srv_refusal_reason(SRV_REFUSED_INSTRUCTOR_BAD_TOKEN), "bad_token");
}
END_TEST

static test_temp_db tmp;

static void setup(void) { test_temp_db_make(&tmp, "gpulab-throttle"); }

static void teardown(void) { test_temp_db_remove(&tmp); }

START_TEST(wrong_guesses_stop_at_their_budget_and_leave_the_join_window_whole) {
  srv_store *st = NULL;
  lab_error err = {0};
  ck_assert_msg(srv_store_open(tmp.db, &st, &err) == 0, "open: %s", err.message);
  double retry = 0;
  unsigned long before = srv_metrics_refusals(SRV_REFUSED_JOIN_GUESSES_ADDRESS);
  /* 60 a minute is one back each second: a loop slowed past a second (a
   * busy machine) has earned that many more, and no others */
  double t0 = lab_clock_s();
  int taken = 0;
  while (taken < 2 * SRV_GUESS_ADDRESS_BURST && srv_guess_count(st, SRV_GUESS_JOIN_CODE, "10.0.0.7", &retry, &err) == 0)
    taken++;
  double took = lab_clock_s() - t0;
  ck_assert_int_ge(taken, SRV_GUESS_ADDRESS_BURST);
  ck_assert_msg(taken <= SRV_GUESS_ADDRESS_BURST + (int)took, "%d guesses taken in %.2f s", taken, took);
  ck_assert_int_eq(err.code, LAB_E_RATE_LIMITED);
  ck_assert(retry >= 1);
  ck_assert_uint_eq(srv_metrics_refusals(SRV_REFUSED_JOIN_GUESSES_ADDRESS), before + 1);
  /* past its budget a guess is answered from memory: no store is touched */
  ck_assert_int_eq(srv_guess_count(NULL, SRV_GUESS_JOIN_CODE, "10.0.0.7", &retry, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_RATE_LIMITED);
  ck_assert(retry >= 1 && retry <= 60);
  /* another address, and the other kind of guess, have budgets of their own */
  ck_assert_int_eq(srv_guess_count(st, SRV_GUESS_JOIN_CODE, "10.0.0.8", &retry, &err), 0);
  ck_assert_int_eq(srv_guess_count(st, SRV_GUESS_INSTRUCTOR_TOKEN, "10.0.0.7", &retry, &err), 0);
  /* the class's join window never saw a guess: all 3 of a class of 3 get in */
  int64_t ticket[8];
  int in = 0;
  t0 = lab_clock_s();
  while (in < 8 && srv_join_admit(st, 3, 1, &ticket[in], &retry, &err) == 0) in++;
  took = lab_clock_s() - t0;
  ck_assert_int_ge(in, 3);
  ck_assert_msg(in <= 3 + (int)took, "%d joins in %.2f s at 1 a second after 3", in, took); /* 1 a second again */
  ck_assert_int_lt(in, 8);
  ck_assert_int_eq(err.code, LAB_E_RATE_LIMITED);
  ck_assert(retry >= 1);
  /* a join given back is a place again */
  srv_join_return(st, ticket[in - 1]);
  ck_assert_int_eq(srv_join_admit(st, 3, 1, &ticket[in - 1], &retry, &err), 0);
  srv_store_close(st);
}
END_TEST

Suite *make_throttle_suite(void) {
  Suite *s = suite_create("throttle");
  TCase *t = tcase_create("window");
  tcase_add_test(t, join_window_default_admits_300_at_once_then_5_a_second);
  tcase_add_test(t, join_window_period_rounds_up_so_the_rate_is_never_exceeded);
  tcase_add_test(t, secrets_compare_in_constant_time_over_all_their_bytes);
  tcase_add_test(t, refusals_appear_in_metrics_by_what_and_reason);
  suite_add_tcase(s, t);
  TCase *st = tcase_create("store");
  tcase_add_checked_fixture(st, setup, teardown);
  tcase_add_test(st, wrong_guesses_stop_at_their_budget_and_leave_the_join_window_whole);
  suite_add_tcase(s, st);
  return s;
}
