/* The browser client's HTML builder and address parser (wasm/base/html.c,
 * wasm/base/route.c), compiled natively: escaping, growth, byte formatting and
 * which hash routes are accepted. */
#include <math.h>
#include <string.h>

#include "html.h"
#include "route.h"
#include "suites.h"

START_TEST(html_text_escapes_markup_and_quotes) {
  ui_buf b;
  ui_buf_init(&b);
  ui_buf_text(&b, "<script>alert(\"x\" & 'y')</script>");
  ck_assert_str_eq(ui_buf_str(&b), "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;");
  ui_buf_free(&b);
}
END_TEST

START_TEST(html_raw_is_kept_and_null_appends_nothing) {
  ui_buf b;
  ui_buf_init(&b);
  ck_assert_str_eq(ui_buf_str(&b), "");
  ui_buf_raw(&b, "<p>");
  ui_buf_text(&b, NULL);
  ui_buf_raw(&b, NULL);
  ui_buf_rawf(&b, "%d</p>", 42);
  ck_assert_str_eq(ui_buf_str(&b), "<p>42</p>");
  ui_buf_free(&b);
  ck_assert_str_eq(ui_buf_str(&b), "");
}
END_TEST

START_TEST(html_grows_past_the_format_scratch_buffer) {
  char big[3000];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  big[1000] = '<';
  ui_buf b;
  ui_buf_init(&b);
  for (int i = 0; i < 10; i++) ui_buf_textf(&b, "%s|", big);
  ck_assert(!b.failed);
  ck_assert_uint_eq(b.len, 10 * (sizeof big - 1 + 3 + 1)); /* '<' became "&lt;" */
  ck_assert_ptr_nonnull(strstr(ui_buf_str(&b), "a&lt;a"));
  ck_assert_ptr_null(strchr(ui_buf_str(&b), '<'));
  ui_buf_free(&b);
}
END_TEST

START_TEST(fmt_bytes_uses_decimal_units) {
  char buf[32];
  ck_assert_str_eq(ui_fmt_bytes(0, buf), "0 bytes");
  ck_assert_str_eq(ui_fmt_bytes(999, buf), "999 bytes");
  ck_assert_str_eq(ui_fmt_bytes(1500, buf), "1.5 kB");
  ck_assert_str_eq(ui_fmt_bytes(79.1 * 1024 * 1024 * 1024, buf), "84.9 GB");
  /* at most three significant figures, never an exponent */
  ck_assert_str_eq(ui_fmt_bytes(313000, buf), "313 kB");
  ck_assert_str_eq(ui_fmt_bytes(8e9, buf), "8 GB");
  ck_assert_str_eq(ui_fmt_bytes(1.0737e9, buf), "1.07 GB");
  ck_assert_str_eq(ui_fmt_bytes(999600, buf), "1 MB");
  ck_assert_str_eq(ui_fmt_bytes(999.6, buf), "1 kB");
  ck_assert_str_eq(ui_fmt_bytes(2.5e15, buf), "2500 TB");
  ck_assert_str_eq(ui_fmt_bytes(3e15, buf), "3000 TB");
  ck_assert_str_eq(ui_fmt_bytes(-5, buf), "0 bytes");
  ck_assert_str_eq(ui_fmt_bytes(NAN, buf), "0 bytes");
}
END_TEST

START_TEST(route_reads_lesson_and_section) {
  ui_route r;
  ck_assert_int_eq(ui_route_parse("#lesson/01-cuda-intuition/two-checks", &r), 0);
  ck_assert_str_eq(r.lesson, "01-cuda-intuition");
  ck_assert_str_eq(r.section, "two-checks");
  ck_assert_int_eq(ui_route_parse("#lesson/intro", &r), 0);
  ck_assert_str_eq(r.lesson, "intro");
  ck_assert_str_eq(r.section, "");
  ck_assert_int_eq(ui_route_parse("", &r), 0);
  ck_assert_str_eq(r.lesson, "");
  ck_assert_int_eq(ui_route_parse(NULL, &r), 0);
}
END_TEST

START_TEST(route_rejects_anchors_and_bad_ids) {
  static const char *const bad[] = {"#main", "#gpu", "#lesson/", "#lesson/../etc", "#lesson/A", "#lesson/a/b/c",
                                    "#lesson/a b", "#lesson/a/<x>", "#lesson/x_y"};
  ui_route r;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_msg(ui_route_parse(bad[i], &r) == -1, "%s should not be a lesson route", bad[i]);
    ck_assert_str_eq(r.lesson, "");
  }
  char longer[100] = "#lesson/";
  memset(longer + 8, 'a', 70);
  ck_assert_int_eq(ui_route_parse(longer, &r), -1);
}
END_TEST

START_TEST(id_valid_accepts_lower_case_words_only) {
  ck_assert(ui_id_valid("01-cuda-intuition"));
  ck_assert(!ui_id_valid(""));
  ck_assert(!ui_id_valid(NULL));
  ck_assert(!ui_id_valid("x\"y"));
  ck_assert(!ui_id_valid("Lesson"));
}
END_TEST

Suite *make_ui_html_suite(void) {
  Suite *s = suite_create("ui_html");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, html_text_escapes_markup_and_quotes);
  tcase_add_test(tc, html_raw_is_kept_and_null_appends_nothing);
  tcase_add_test(tc, html_grows_past_the_format_scratch_buffer);
  tcase_add_test(tc, fmt_bytes_uses_decimal_units);
  tcase_add_test(tc, route_reads_lesson_and_section);
  tcase_add_test(tc, route_rejects_anchors_and_bad_ids);
  tcase_add_test(tc, id_valid_accepts_lower_case_words_only);
  suite_add_tcase(s, tc);
  return s;
}
