/* The "Paste your error" page's markup (wasm/pages/explain_page.c), rendered
 * natively from the JSON text the reader module's worker answers (here the
 * same lab_explain, run in-process): an OOM's bar is an SVG with one rect
 * per part and a legend with the printed sizes, the lesson link and the
 * experiment button are there, text from the paste is escaped, an error
 * envelope is an alert, and so is a worker that did not run. */
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "explain.h"
#include "suites.h"
#include "explain_page.h"

/* What wasm/reader/explain_main.c answers: 200 and the envelope's JSON
 * text, or the error's status and its JSON. Caller frees *json. */
static int explained(const char *text, size_t n, char **json) {
  lab_error err = {0};
  cJSON *env = lab_explain(text, n, &err);
  int status = env ? 200 : lab_err_http_status(err.code);
  if (!env) env = lab_error_json(&err);
  *json = cJSON_PrintUnformatted(env);
  cJSON_Delete(env);
  ck_assert_ptr_nonnull(*json);
  return status;
}

/* The bridge's explainer, answered at once (the browser's comes later,
 * from the worker; the renderer handles both). */
int test_explain_warmed;
void ui_explain_text(const char *text, size_t n, ui_fetch_cb cb, void *ctx) {
  char *json;
  int status = explained(text, n, &json);
  cb(status, json, strlen(json), ctx);
  free(json);
}
void ui_explain_warm(void) { test_explain_warmed++; }

static char *render(const char *text) {
  char *json;
  int status = explained(text, strlen(text), &json);
  ui_buf b;
  ui_buf_init(&b);
  ui_render_explain_answer(&b, status, json, strlen(json));
  free(json);
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
  /* the link names the section as the lesson titles it, never by its id ("Read the lesson section: memory") */
  ck_assert_ptr_nonnull(strstr(h, "\">Read in the lesson: GPU memory: will it fit?</a>"));
  ck_assert_ptr_null(strstr(h, "lesson section: memory"));
  ck_assert_ptr_nonnull(strstr(h, "class=\"button explain-open\" href=\"#lab/memory"));
  /* the planner opened with the message's sizes, in bytes, and the profile nearest its capacity */
  const char *plan = strstr(h, "class=\"button explain-plan\" href=\"#plan?tried=20971520&amp;total=");
  ck_assert_ptr_nonnull(plan);
  ck_assert_ptr_nonnull(strstr(plan, "&amp;allocated="));
  ck_assert_ptr_nonnull(strstr(plan, "&amp;reserved="));
  ck_assert_ptr_nonnull(strstr(plan, "&amp;device="));
  ck_assert_ptr_null(strstr(h, "<script>"));
  free(h);
}
END_TEST

START_TEST(ui_explain_error_is_an_alert) {
  char *h = render("   ");
  ck_assert_ptr_nonnull(strstr(h, "role=\"alert\""));
  ck_assert_ptr_nonnull(strstr(h, "Paste the error message"));
  free(h);
}
END_TEST

START_TEST(ui_explain_worker_that_did_not_run_is_an_alert) {
  ui_buf b;
  ui_buf_init(&b);
  ui_render_explain_answer(&b, 0, "", 0);
  ck_assert_ptr_nonnull(strstr(ui_buf_str(&b), "role=\"alert\""));
  ck_assert_ptr_nonnull(strstr(ui_buf_str(&b), "did not start"));
  ui_buf_free(&b);
  ui_buf_init(&b);
  ui_render_explain_answer(&b, 200, "{\"items\":", 10); /* cut short: not drawn as an answer */
  ck_assert_ptr_nonnull(strstr(ui_buf_str(&b), "did not start"));
  ui_buf_free(&b);
}
END_TEST

Suite *make_ui_explain_suite(void) {
  Suite *s = suite_create("ui_explain");
  TCase *tc = tcase_create("render");
  tcase_add_test(tc, ui_explain_oom_draws_the_bar_lesson_link_and_experiment_link);
  tcase_add_test(tc, ui_explain_error_is_an_alert);
  tcase_add_test(tc, ui_explain_worker_that_did_not_run_is_an_alert);
  suite_add_tcase(s, tc);
  return s;
}
