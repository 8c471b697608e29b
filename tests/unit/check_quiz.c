/* Quiz validation, the public/key split and scoring (lab/quiz/quiz.c): what a
 * lesson author is told, what the browser may see, and how attempts score. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "quiz.h"
#include "suites.h"

/* A quiz source with n single-choice questions q1..qn (answer "b") and one
 * multi-choice question "m" (answer a+c) when with_multi. */
static cJSON *make_quiz(int n, int with_multi) {
  char buf[8192];
  int k = snprintf(buf, sizeof buf, "{\"pass_pct\":75,\"questions\":[");
  for (int i = 1; i <= n; i++)
    k += snprintf(buf + k, sizeof buf - (size_t)k,
                  "%s{\"id\":\"q%d\",\"prompt\":\"P%d\",\"multi\":false,\"options\":[{\"id\":\"a\",\"text\":\"A\"},"
                  "{\"id\":\"b\",\"text\":\"B\"}],\"correct\":[\"b\"],\"explanation\":\"E%d\"}",
                  i > 1 ? "," : "", i, i, i);
  if (with_multi)
    k += snprintf(buf + k, sizeof buf - (size_t)k,
                  ",{\"id\":\"m\",\"prompt\":\"M\",\"multi\":true,\"options\":[{\"id\":\"a\",\"text\":\"A\"},"
                  "{\"id\":\"b\",\"text\":\"B\"},{\"id\":\"c\",\"text\":\"C\"}],\"correct\":[\"a\",\"c\"],"
                  "\"explanation\":\"EM\"}");
  snprintf(buf + k, sizeof buf - (size_t)k, "]}");
  return cJSON_Parse(buf);
}

/* Parses text, checks it, and returns the error code (LAB_OK when valid). */
static lab_err check_text(const char *text, const cJSON **where_out, cJSON **keep) {
  cJSON *q = cJSON_Parse(text);
  ck_assert_ptr_nonnull(q);
  const cJSON *where = NULL;
  lab_error err = {0};
  int rc = lab_quiz_check(q, &where, &err);
  if (where_out) *where_out = where;
  if (keep)
    *keep = q;
  else
    cJSON_Delete(q);
  return rc == 0 ? LAB_OK : err.code;
}

static int score(const cJSON *key, const char *answers, cJSON **result, lab_error *err) {
  cJSON *a = cJSON_Parse(answers);
  ck_assert_ptr_nonnull(a);
  int rc = lab_quiz_score(key, a, result, err);
  cJSON_Delete(a);
  return rc;
}

START_TEST(quiz_check_accepts_valid_source) {
  cJSON *q = make_quiz(3, 1);
  lab_error err = {0};
  ck_assert_int_eq(lab_quiz_check(q, NULL, &err), 0);
  cJSON_Delete(q);
}
END_TEST

START_TEST(quiz_check_rejects_two_correct_in_single_choice) {
  const cJSON *where;
  cJSON *q;
  lab_err code = check_text(
      "{\"pass_pct\":75,\"questions\":[{\"id\":\"q1\",\"prompt\":\"P\",\"options\":[{\"id\":\"a\","
      "\"text\":\"A\"},{\"id\":\"b\",\"text\":\"B\"}],\"correct\":[\"a\",\"b\"],"
      "\"explanation\":\"E\"}]}",
      &where, &q);
  ck_assert_int_eq(code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(where->string, "correct"); /* the caller turns this node into a line */
  cJSON_Delete(q);
}
END_TEST

START_TEST(quiz_check_rejects_all_of_the_above) {
  lab_err code = check_text(
      "{\"pass_pct\":75,\"questions\":[{\"id\":\"q1\",\"prompt\":\"P\",\"options\":[{\"id\":\"a\","
      "\"text\":\"A\"},{\"id\":\"b\",\"text\":\"None of the above.\"}],\"correct\":[\"a\"],"
      "\"explanation\":\"E\"}]}",
      NULL, NULL);
  ck_assert_int_eq(code, LAB_E_INVALID_PARAM);
}
END_TEST

START_TEST(quiz_check_rejects_unknown_and_repeated_keys) {
  ck_assert_int_eq(check_text("{\"pass_pct\":75,\"questions\":[],\"extra\":1}", NULL, NULL), LAB_E_INVALID_PARAM);
  ck_assert_int_eq(check_text("{\"pass_pct\":75,\"pass_pct\":80,\"questions\":[]}", NULL, NULL), LAB_E_INVALID_PARAM);
}
END_TEST

START_TEST(quiz_check_rejects_correct_outside_options) {
  ck_assert_int_eq(check_text("{\"pass_pct\":75,\"questions\":[{\"id\":\"q1\",\"prompt\":\"P\",\"options\":[{\"id\":"
                              "\"a\",\"text\":\"A\"},{\"id\":\"b\",\"text\":\"B\"}],\"correct\":[\"z\"],"
                              "\"explanation\":\"E\"}]}",
                              NULL, NULL),
                   LAB_E_INVALID_PARAM);
}
END_TEST

START_TEST(quiz_public_carries_no_answers) {
  cJSON *q = make_quiz(2, 1);
  cJSON *pub = lab_quiz_public(q);
  ck_assert_ptr_nonnull(pub);
  char *text = cJSON_PrintUnformatted(pub);
  ck_assert_ptr_null(strstr(text, "correct"));
  ck_assert_ptr_null(strstr(text, "explanation"));
  ck_assert_ptr_nonnull(strstr(text, "\"multi\":true"));
  cJSON_free(text);
  cJSON_Delete(pub);
  cJSON_Delete(q);
}
END_TEST

START_TEST(quiz_score_all_right_passes) {
  cJSON *q = make_quiz(2, 1), *key = lab_quiz_key(q, "demo"), *res = NULL;
  lab_error err = {0};
  ck_assert_int_eq(score(key, "{\"q1\":[\"b\"],\"q2\":[\"b\"],\"m\":[\"c\",\"a\"]}", &res, &err), 0);
  ck_assert_int_eq(cJSON_GetObjectItem(res, "score")->valueint, 3);
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(res, "passed")));
  cJSON_Delete(res);
  cJSON_Delete(key);
  cJSON_Delete(q);
}
END_TEST

START_TEST(quiz_score_passes_at_seven_of_nine_not_six) {
  cJSON *q = make_quiz(9, 0), *key = lab_quiz_key(q, "demo"), *res = NULL;
  lab_error err = {0};
  const char *seven =
      "{\"q1\":[\"b\"],\"q2\":[\"b\"],\"q3\":[\"b\"],\"q4\":[\"b\"],\"q5\":[\"b\"],\"q6\":[\"b\"],"
      "\"q7\":[\"b\"],\"q8\":[\"a\"]}";
  ck_assert_int_eq(score(key, seven, &res, &err), 0);
  ck_assert_int_eq(cJSON_GetObjectItem(res, "score")->valueint, 7);
  ck_assert_int_eq(cJSON_GetObjectItem(res, "total")->valueint, 9);
  ck_assert(cJSON_GetObjectItem(res, "pct")->valuedouble > 77.7 && cJSON_GetObjectItem(res, "pct")->valuedouble < 77.9);
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(res, "passed")));
  cJSON_Delete(res);
  const char *six = "{\"q1\":[\"b\"],\"q2\":[\"b\"],\"q3\":[\"b\"],\"q4\":[\"b\"],\"q5\":[\"b\"],\"q6\":[\"b\"]}";
  ck_assert_int_eq(score(key, six, &res, &err), 0);
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(res, "passed")));
  cJSON_Delete(res);
  cJSON_Delete(key);
  cJSON_Delete(q);
}
END_TEST

START_TEST(quiz_score_reports_each_question_with_explanation) {
  cJSON *q = make_quiz(2, 1), *key = lab_quiz_key(q, "demo"), *res = NULL;
  lab_error err = {0};
  ck_assert_int_eq(score(key, "{\"q1\":[\"a\"],\"m\":[\"a\"]}", &res, &err), 0);
  const cJSON *qs = cJSON_GetObjectItem(res, "questions");
  ck_assert_int_eq(cJSON_GetArraySize(qs), 3);
  const cJSON *q1 = cJSON_GetArrayItem(qs, 0), *q2 = cJSON_GetArrayItem(qs, 1), *m = cJSON_GetArrayItem(qs, 2);
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(q1, "correct")));
  ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(q1, "your"), 0)->valuestring, "a");
  ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(q1, "answer"), 0)->valuestring, "b");
  ck_assert_str_eq(cJSON_GetObjectItem(q1, "explanation")->valuestring, "E1");
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(q2, "your")), 0); /* unanswered: wrong */
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(q2, "correct")));
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(m, "correct"))); /* half of a multi answer is wrong */
  ck_assert_int_eq(cJSON_GetObjectItem(res, "score")->valueint, 0);
  cJSON_Delete(res);
  cJSON_Delete(key);
  cJSON_Delete(q);
}
END_TEST

START_TEST(quiz_score_rejects_bad_answers) {
  cJSON *q = make_quiz(2, 0), *key = lab_quiz_key(q, "demo"), *res = NULL;
  const char *bad[] = {
      "{\"q9\":[\"a\"]}", "{\"q1\":\"b\"}", "{\"q1\":[\"b\",\"b\"]}", "{\"q1\":[7]}", "{\"q1\":[\"b\"],\"q1\":[\"a\"]}",
      "[\"b\"]"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    lab_error err = {0};
    ck_assert_int_eq(score(key, bad[i], &res, &err), -1);
    ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
    ck_assert_ptr_null(res);
  }
  cJSON_Delete(key);
  cJSON_Delete(q);
}
END_TEST

START_TEST(quiz_score_rejects_malformed_key) {
  cJSON *key = cJSON_Parse("{\"id\":\"x\",\"pass_pct\":75,\"answers\":{\"q1\":{\"correct\":\"b\"}}}"), *res = NULL;
  lab_error err = {0};
  ck_assert_int_eq(score(key, "{}", &res, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_INTERNAL);
  cJSON_Delete(key);
}
END_TEST

Suite *make_quiz_suite(void) {
  Suite *s = suite_create("quiz");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, quiz_check_accepts_valid_source);
  tcase_add_test(tc, quiz_check_rejects_two_correct_in_single_choice);
  tcase_add_test(tc, quiz_check_rejects_all_of_the_above);
  tcase_add_test(tc, quiz_check_rejects_unknown_and_repeated_keys);
  tcase_add_test(tc, quiz_check_rejects_correct_outside_options);
  tcase_add_test(tc, quiz_public_carries_no_answers);
  tcase_add_test(tc, quiz_score_all_right_passes);
  tcase_add_test(tc, quiz_score_passes_at_seven_of_nine_not_six);
  tcase_add_test(tc, quiz_score_reports_each_question_with_explanation);
  tcase_add_test(tc, quiz_score_rejects_bad_answers);
  tcase_add_test(tc, quiz_score_rejects_malformed_key);
  suite_add_tcase(s, tc);
  return s;
}
