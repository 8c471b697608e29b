/* The memory result's budget chart: on a real run capped by budget_gib it
 * draws the GPU's own free memory above the cap, with the batches running
 * on to where the GPU would run out; a simulated run (no cap) draws one
 * line. Read from the H100 lease's recording (web/recorded/memory.json). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "registry.h"
#include "suites.h"
#include "ui_test.h"
#include "result.h"

#define ck_has(hay, needle) ck_assert_msg(strstr((hay), (needle)) != NULL, "missing \"%s\"", (needle))

static cJSON *recorded(const char *path) {
  size_t n = 0;
  lab_error err = {0};
  char *text = srv_cli_read(path, 1 << 20, &n, &err);
  ck_assert_msg(text != NULL, "cannot read %s", path);
  cJSON *env = cJSON_Parse(text);
  free(text);
  ck_assert_msg(env != NULL, "%s is not JSON", path);
  return env;
}

static char *render(const cJSON *env) {
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  ck_assert(!b.failed);
  char *out = strdup(ui_buf_str(&b));
  ui_buf_free(&b);
  ck_assert_ptr_nonnull(out);
  ck_assert_msg(test_ui_markup_problem(out) == NULL, "%s", test_ui_markup_problem(out));
  return out;
}

/* The lease drew only the 1 GiB cap on an H100 with 78.7 GiB free: the
 * lesson promises the GPU's own free memory as a line. */
START_TEST(ui_result_memory_capped_run_draws_the_gpu_memory_too) {
  cJSON *env = recorded("web/recorded/memory.json");
  char *out = render(env);
  ck_assert_int_eq(test_ui_count(out, "<line class=\"limit\""), 2);
  ck_has(out, "the run&#39;s memory budget: 1 GiB");
  ck_has(out, "free on the device: 78.7 GiB");
  /* the batches run on past the cap (1 GiB, passed at batch 16) to where the GPU runs out (2048) */
  ck_has(out, ">2048</text>");
  free(out);
  cJSON_Delete(env);
}
END_TEST

START_TEST(ui_result_memory_simulated_run_draws_one_line) {
  cJSON *env = NULL, *params = cJSON_Parse("{}");
  lab_error err;
  ck_assert_int_eq(lab_simulate(lab_experiment_find("memory"), params, "t4", &env, &err), 0);
  cJSON_Delete(params);
  char *out = render(env);
  ck_assert_int_eq(test_ui_count(out, "<line class=\"limit\""), 1);
  ck_has(out, "free on the device: ");
  ck_assert_ptr_null(strstr(out, "memory budget"));
  free(out);
  cJSON_Delete(env);
}
END_TEST

Suite *make_ui_result_memory_suite(void) {
  Suite *s = suite_create("ui_result_memory");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, ui_result_memory_capped_run_draws_the_gpu_memory_too);
  tcase_add_test(tc, ui_result_memory_simulated_run_draws_one_line);
  suite_add_tcase(s, tc);
  return s;
}
