/* The nesting pre-scan and the strict parse that guard every outside input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "suites.h"

static char *repeat(const char *unit, int n) {
  size_t u = strlen(unit);
  char *s = malloc(u * (size_t)n + 1);
  for (int i = 0; i < n; i++) memcpy(s + u * (size_t)i, unit, u);
  s[u * (size_t)n] = 0;
  return s;
}

START_TEST(json_depth_counts_arrays_and_objects) {
  ck_assert_int_eq(lab_json_depth("1", 1, 64), 0);
  ck_assert_int_eq(lab_json_depth("[]", 2, 64), 1);
  ck_assert_int_eq(lab_json_depth("{\"a\":[{\"b\":[]}]}", 16, 64), 4);
  ck_assert_int_eq(lab_json_depth("[[],[[]]]", 9, 64), 3);
}
END_TEST

START_TEST(json_depth_ignores_brackets_in_strings_and_escapes) {
  const char *s = "[\"[[[{{{\\\"[[[\"]";
  ck_assert_int_eq(lab_json_depth(s, strlen(s), 64), 1);
  const char *t = "{\"k\\\\\":[1]}"; /* an escaped backslash ends before the quote */
  ck_assert_int_eq(lab_json_depth(t, strlen(t), 64), 2);
}
END_TEST

START_TEST(json_depth_stops_past_the_limit) {
  char *s = repeat("[", 100000);
  ck_assert_int_eq(lab_json_depth(s, 100000, 64), 65);
  free(s);
}
END_TEST

START_TEST(json_parse_refuses_deep_nesting_without_recursing) {
  int depths[] = {65, 1000, 5000, 60000, 1000000};
  for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++) {
    char *s = repeat("[", depths[i]);
    ck_assert_ptr_null(lab_json_parse(s, strlen(s), LAB_JSON_MAX_DEPTH, NULL));
    free(s);
  }
  char *open = repeat("[", 64), *close = repeat("]", 64);
  char both[200];
  snprintf(both, sizeof both, "%s%s", open, close);
  cJSON *ok = lab_json_parse(both, strlen(both), LAB_JSON_MAX_DEPTH, NULL);
  ck_assert_ptr_nonnull(ok); /* exactly at the bound is fine */
  cJSON_Delete(ok);
  free(open);
  free(close);
}
END_TEST

START_TEST(json_parse_refuses_trailing_bytes_and_says_where) {
  size_t where = 0;
  ck_assert_ptr_null(lab_json_parse("{} x", 4, 64, &where));
  ck_assert_uint_eq(where, 3);
  cJSON *ok = lab_json_parse(" {\"a\":1} \n", 10, 64, &where);
  ck_assert_ptr_nonnull(ok);
  cJSON_Delete(ok);
  ck_assert_ptr_null(lab_json_parse("", 0, 64, NULL));
  ck_assert_ptr_null(lab_json_parse(NULL, 0, 64, NULL));
}
END_TEST

/* cJSON keeps strings as C strings: "timing\u0000x" would read as
 * "timing". The escape is refused wherever it is, an escaped backslash
 * before "u0000" is not one, and the offset names the backslash. */
START_TEST(json_parse_refuses_a_nul_escape_in_any_string) {
  const char *cases[] = {"{\"experiment\":\"timing\\u0000x\"}", "{\"a\\u0000\":1}", "[\"\\u0000\"]"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t where = 0, len = strlen(cases[i]);
    ck_assert_ptr_null(lab_json_parse(cases[i], len, 64, &where));
    ck_assert_uint_eq(lab_json_nul_escape(cases[i], len), where);
    ck_assert_int_eq(cases[i][where], '\\');
  }
  const char *fine[] = {"{\"a\":\"\\\\u0000\"}", "{\"a\":\"\\u0001\"}", "{\"u0000\":\"\\\"u0000\"}", "\"\\u000"};
  for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++)
    ck_assert_uint_eq(lab_json_nul_escape(fine[i], strlen(fine[i])), strlen(fine[i]));
  cJSON *ok = lab_json_parse(fine[0], strlen(fine[0]), 64, NULL);
  ck_assert_ptr_nonnull(ok);
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(ok, "a")->valuestring, "\\u0000");
  cJSON_Delete(ok);
}
END_TEST

Suite *make_json_suite(void) {
  Suite *s = suite_create("json");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, json_depth_counts_arrays_and_objects);
  tcase_add_test(tc, json_depth_ignores_brackets_in_strings_and_escapes);
  tcase_add_test(tc, json_depth_stops_past_the_limit);
  tcase_add_test(tc, json_parse_refuses_deep_nesting_without_recursing);
  tcase_add_test(tc, json_parse_refuses_trailing_bytes_and_says_where);
  tcase_add_test(tc, json_parse_refuses_a_nul_escape_in_any_string);
  suite_add_tcase(s, tc);
  return s;
}
