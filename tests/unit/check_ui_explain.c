/* The "Paste your error" page's markup (wasm/views/explain_view.c), rendered
 * natively: an OOM's bar is an SVG with one rect per part and a legend with
 * the printed sizes, the lesson link and the experiment button are there,
 * text from the paste is escaped, and an error envelope is an alert. */
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "suites.h"
#include "views/explain_view.h"

static char *render(const char *text) {
  lab_error err = {0};
  cJSON *env = lab_explain(text, strlen(text), &err);
  if (!env) env = lab_error_json(&err);
  ui_buf b;
  ui_buf_init(&b);
  ui_view_explain_items(&b, env);
  cJSON_Delete(env);
  char *out = strdup(ui_buf_str(&b));
  ui_buf_free(&b);
  return out;
}

START_TEST(ui_explain_oom_draws_the_bar_lesson_link_and_experiment_link) {
  char *h = render("CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.76 GiB total capacity; 7.35 GiB already "
                   "allocated; 9.56 MiB free; 9.91 GiB reserved in total by PyTorch) <script>");
  ck_assert_ptr_nonnull(strstr(h, "<svg"));
  ck_assert_ptr_nonnull(strstr(h, "class=\"bar-tensors\""));
  ck_assert_ptr_nonnull(strstr(h, "class=\"bar-cache\""));
  ck_assert_ptr_nonnull(strstr(h, "10.76 GiB in all"));
  ck_assert_ptr_nonnull(strstr(h, "href=\"#lesson/01-cuda-intuition/memory\""));
  ck_assert_ptr_nonnull(strstr(h, "class=\"button explain-open\" href=\"#lab/memory"));
  ck_assert_ptr_null(strstr(h, "<script>"));
  free(h);
}
END_TEST

START_TEST(ui_explain_error_is_an_alert) {
  char *h = render("   ");
  ck_assert_ptr_nonnull(strstr(h, "role=\"alert\""));
  free(h);
}
END_TEST

Suite *make_ui_explain_suite(void) {
  Suite *s = suite_create("ui_explain");
  TCase *tc = tcase_create("view");
  tcase_add_test(tc, ui_explain_oom_draws_the_bar_lesson_link_and_experiment_link);
  tcase_add_test(tc, ui_explain_error_is_an_alert);
  suite_add_tcase(s, tc);
  return s;
}
