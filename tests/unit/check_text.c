/* Appended text (lab/base/text.c), which the simulators write instead of
 * snprintf: the same bytes as "%s" and "%ld" would give, and the same cut
 * where the buffer ends. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "text.h"

START_TEST(text_writes_what_snprintf_writes) {
  const long values[] = {0, 1, 9, 10, -1, -10, 12345, LONG_MAX, LONG_MIN};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    char got[64], want[64];
    lab_text t;
    lab_text_init(&t, got, sizeof got);
    lab_text_add(&t, "kernel ");
    lab_text_int(&t, values[i]);
    lab_text_add(&t, " (one by one)");
    lab_text_add(&t, NULL);
    snprintf(want, sizeof want, "kernel %ld (one by one)", values[i]);
    ck_assert_str_eq(got, want);
    ck_assert_uint_eq(t.len, strlen(want));
    ck_assert(!t.cut);
  }
  char label[16];
  ck_assert_str_eq(lab_text_numbered(label, sizeof label, "graph node ", 12, ""), "graph node 12");
  ck_assert_str_eq(lab_text_numbered(label, 8, "kernel ", 123, " (one by one)"), "kernel ");
}
END_TEST

START_TEST(text_cut_at_the_end_of_the_buffer_as_snprintf_cuts) {
  for (size_t cap = 1; cap <= 24; cap++) {
    char got[24], want[24];
    lab_text t;
    lab_text_init(&t, got, cap);
    lab_text_add(&t, "graph node ");
    lab_text_int(&t, 1234);
    lab_text_add(&t, " of 12");
    snprintf(want, cap, "graph node %d of 12", 1234);
    ck_assert_str_eq(got, want);
    ck_assert(t.cut == (strlen("graph node 1234 of 12") >= cap));
  }
  char one[8];
  lab_text t;
  lab_text_init(&t, one, sizeof one);
  lab_text_add(&t, "0123456789");
  lab_text_add(&t, "x"); /* once cut, nothing more is added */
  ck_assert_str_eq(one, "0123456");
  lab_text_init(&t, one, 0); /* no room at all: nothing is written */
  lab_text_add(&t, "a");
  lab_text_int(&t, 5);
  ck_assert(t.cut);
  ck_assert_uint_eq(t.len, 0);
}
END_TEST

Suite *make_text_suite(void) {
  Suite *s = suite_create("text");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, text_writes_what_snprintf_writes);
  tcase_add_test(tc, text_cut_at_the_end_of_the_buffer_as_snprintf_cuts);
  suite_add_tcase(s, tc);
  return s;
}
