/* The lesson list and reader (wasm/render/lesson_html.c) rendered natively:
 * current lesson and its sections, hostile ids and titles, trusted section
 * html, and incomplete bundles. */
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "suites.h"
#include "lesson_html.h"
#include "ui_test.h"

static const char INDEX[] =
    "{\"lessons\":[{\"id\":\"01-intro\",\"title\":\"Intro & setup\",\"summary\":\"s\",\"sections\":2},"
    "{\"id\":\"02-copies\",\"title\":\"Copies\"},{\"id\":\"../etc\",\"title\":\"bad\"},"
    "{\"id\":\"x\\\"><script>\",\"title\":\"worse\"},{\"title\":\"no id\"},7]}";

static const char BUNDLE[] =
    "{\"id\":\"01-intro\",\"title\":\"Intro <1>\",\"summary\":\"What & why\",\"sections\":["
    "{\"id\":\"two-checks\",\"title\":\"Two checks\",\"html\":\"<p>Hello <em>GPU</em></p>"
    "<div class=\\\"experiment\\\" data-experiment=\\\"device\\\"></div>\",\"experiments\":[\"device\"]},"
    "{\"id\":\"Bad Id\",\"title\":\"skipped\",\"html\":\"<p>never</p>\"},"
    "{\"id\":\"why\",\"html\":\"<p>Why</p>\"}],\"quiz\":{}}";

#define ck_has(html, text) ck_assert_msg(strstr(html, text) != NULL, "missing \"%s\" in: %s", text, html)
#define ck_lacks(html, text) ck_assert_msg(strstr(html, text) == NULL, "unexpected \"%s\" in: %s", text, html)

START_TEST(nav_lists_valid_lessons_and_marks_the_current_one) {
  cJSON *index = cJSON_Parse(INDEX), *bundle = cJSON_Parse(BUNDLE);
  ui_buf b;
  ui_buf_init(&b);
  ui_render_lesson_nav(&b, index, "01-intro", bundle);
  const char *html = ui_buf_str(&b);
  ck_has(html, "href=\"#lesson/01-intro\" aria-current=\"page\"");
  ck_has(html, "Intro &amp; setup");
  ck_has(html, "href=\"#lesson/02-copies\"");
  ck_has(html, "href=\"#lesson/01-intro/two-checks\">Two checks</a>");
  ck_has(html, "href=\"#lesson/01-intro/why\">why</a>"); /* no title: the id stands in */
  ck_lacks(html, "etc");
  ck_lacks(html, "<script>");
  ck_lacks(html, "skipped");
  ck_lacks(html, "no id");
  ui_buf_free(&b);
  cJSON_Delete(index);
  cJSON_Delete(bundle);
}
END_TEST

START_TEST(nav_lists_sections_only_for_the_loaded_current_lesson) {
  cJSON *index = cJSON_Parse(INDEX), *bundle = cJSON_Parse(BUNDLE);
  ui_buf b;
  ui_buf_init(&b);
  ui_render_lesson_nav(&b, index, "02-copies", bundle);
  ck_lacks(ui_buf_str(&b), "nav-sections");
  ck_has(ui_buf_str(&b), "href=\"#lesson/02-copies\" aria-current=\"page\"");
  ui_buf_free(&b);
  cJSON_Delete(index);
  cJSON_Delete(bundle);
}
END_TEST

START_TEST(nav_says_loading_then_no_lessons) {
  cJSON *empty = cJSON_Parse("{\"lessons\":[]}");
  ui_buf b;
  ui_buf_init(&b);
  ui_render_lesson_nav(&b, NULL, NULL, NULL);
  ck_has(ui_buf_str(&b), "Loading lessons");
  ui_buf_free(&b);
  ui_render_lesson_nav(&b, empty, NULL, NULL);
  ck_has(ui_buf_str(&b), "No lessons are installed");
  ui_buf_free(&b);
  cJSON_Delete(empty);
}
END_TEST

START_TEST(lesson_renders_sections_with_their_compiled_html) {
  cJSON *bundle = cJSON_Parse(BUNDLE);
  ui_buf b;
  ui_buf_init(&b);
  ui_render_lesson(&b, bundle);
  const char *html = ui_buf_str(&b);
  ck_has(html, "<h1 id=\"lesson-title\" tabindex=\"-1\">Intro &lt;1&gt;</h1>");
  ck_has(html, "<h2 id=\"sec-two-checks-h\">Two checks</h2>");
  ck_has(html, "What &amp; why");
  ck_has(html, "id=\"sec-two-checks\"");
  ck_has(html, "<p>Hello <em>GPU</em></p>");
  ck_has(html, "data-experiment=\"device\"");
  ck_has(html, "id=\"sec-why\"");
  ck_lacks(html, "never");
  ui_buf_free(&b);
  cJSON_Delete(bundle);
}
END_TEST

/* Every code block gets a copy button just before it: a <button> (keyboard
 * reachable), whose click the bridge answers by copying the next <pre>. */
START_TEST(lesson_code_blocks_get_a_copy_button) {
  cJSON *bundle = cJSON_Parse("{\"id\":\"l\",\"title\":\"L\",\"sections\":[{\"id\":\"a\",\"title\":\"A\",\"html\":"
                              "\"<p>x</p><pre tabindex=\\\"0\\\"><code>import torch</code></pre><p>y</p>"
                              "<pre tabindex=\\\"0\\\"><code>x.cuda()</code></pre>\"}]}");
  ck_assert_ptr_nonnull(bundle);
  ui_buf b;
  ui_buf_init(&b);
  ui_render_lesson(&b, bundle);
  const char *html = ui_buf_str(&b), *button = "<button type=\"button\" class=\"button button-quiet\" data-action=\"copy\">Copy</button>";
  ck_assert_int_eq(test_ui_count(html, "data-action=\"copy\""), 2);
  char want[256];
  snprintf(want, sizeof want, "%s<pre tabindex=\"0\"><code>import torch", button);
  ck_has(html, want);
  snprintf(want, sizeof want, "<p>y</p>%s<pre", button);
  ck_has(html, want);
  ck_has(html, "x.cuda()</code></pre>");
  ui_buf_free(&b);
  cJSON_Delete(bundle);
}
END_TEST

START_TEST(lesson_explains_an_incomplete_bundle) {
  static const char *const bad[] = {"{}", "{\"id\":\"a\",\"title\":\"t\"}", "{\"id\":\"A!\",\"title\":\"t\",\"sections\":[]}",
                                    "[]"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cJSON *j = cJSON_Parse(bad[i]);
    ui_buf b;
    ui_buf_init(&b);
    ck_assert(!ui_lesson_bundle_valid(j));
    ui_render_lesson(&b, j);
    ck_has(ui_buf_str(&b), "This lesson could not be read");
    ui_buf_free(&b);
    cJSON_Delete(j);
  }
}
END_TEST

START_TEST(index_helpers_skip_invalid_entries) {
  cJSON *index = cJSON_Parse(INDEX);
  cJSON *odd = cJSON_Parse("{\"lessons\":[{\"id\":\"Bad\"},{\"id\":\"ok-1\"}]}");
  ck_assert(ui_lesson_index_valid(index));
  ck_assert(!ui_lesson_index_valid(NULL));
  ck_assert_str_eq(ui_lesson_first_id(index), "01-intro");
  ck_assert_str_eq(ui_lesson_first_id(odd), "ok-1");
  ck_assert(ui_lesson_listed(index, "02-copies"));
  ck_assert(!ui_lesson_listed(index, "../etc"));
  ck_assert(!ui_lesson_listed(index, NULL));
  cJSON_Delete(index);
  cJSON_Delete(odd);
}
END_TEST

Suite *make_ui_lesson_suite(void) {
  Suite *s = suite_create("ui_lesson");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, nav_lists_valid_lessons_and_marks_the_current_one);
  tcase_add_test(tc, nav_lists_sections_only_for_the_loaded_current_lesson);
  tcase_add_test(tc, nav_says_loading_then_no_lessons);
  tcase_add_test(tc, lesson_renders_sections_with_their_compiled_html);
  tcase_add_test(tc, lesson_code_blocks_get_a_copy_button);
  tcase_add_test(tc, lesson_explains_an_incomplete_bundle);
  tcase_add_test(tc, index_helpers_skip_invalid_entries);
  suite_add_tcase(s, tc);
  return s;
}
