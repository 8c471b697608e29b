/* The streams result renderer: drawn from a simulated envelope of every
 * profile, its markup is well formed, every chart is an image with a text
 * alternative, and the tables hold a row per timeline span and per sample. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "exp_test.h"
#include "registry.h"
#include "suites.h"
#include "ui_test.h"
#include "chart.h"
#include "result.h"

#define ck_has(hay, needle) ck_assert_msg(strstr((hay), (needle)) != NULL, "missing \"%s\"", (needle))

static cJSON *simulate(const char *params_json, const char *profile) {
  cJSON *env = NULL, *params = cJSON_Parse(params_json);
  lab_error err;
  ck_assert_int_eq(lab_simulate(lab_experiment_find("streams"), params, profile, &env, &err), 0);
  cJSON_Delete(params);
  return env;
}

START_TEST(ui_result_streams_renders_from_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
      if (!test_exp_applies("streams", i)) continue; /* no such thing on that GPU */
    const char *profile = lab_profile_at(i)->name;
    cJSON *env = simulate("{\"chunks\":6,\"streams\":3,\"kernel_us\":50}", profile);
    ui_buf b;
    ui_buf_init(&b);
    ui_render_result(&b, env, true, NULL);
    const char *out = ui_buf_str(&b), *why = test_ui_markup_problem(out);
    ck_assert_msg(!b.failed, "%s: out of memory", profile);
    ck_assert_msg(why == NULL, "%s: %s", profile, why);
    /* Bars, the run asked for, its one-stream twin and the race. */
    ck_assert_int_eq(test_ui_count(out, "role=\"img\""), 4);
    ck_assert_int_eq(test_ui_count(out, "Show the numbers"), 4);
    ck_has(out, "stream 2");
    ck_has(out, "H2D engine");
    ck_has(out, "D2H engine");
    ck_has(out, "3 streams, pinned");
    /* A table row per op, listed once from its stream's lane (the engine
     * lanes repeat them): the run asked for, its baseline and the race. */
    ck_assert_int_eq(test_ui_count(out, "scope=\"row\">H2D "), 6 * 3);
    ck_assert_int_eq(test_ui_count(out, "scope=\"row\">D2H "), 6 * 3);
    ui_buf_free(&b);
    cJSON_Delete(env);
  }
}
END_TEST

START_TEST(ui_result_streams_marks_the_stale_kernels) {
  cJSON *env = simulate("{\"kernel_us\":20}", "t4");
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  const char *out = ui_buf_str(&b);
  int stale = cJSON_GetObjectItem(cJSON_GetObjectItem(env, "metrics"), "stale_chunks")->valueint;
  ck_assert_int_gt(stale, 0);
  ck_assert_int_eq(test_ui_count(out, "(read stale data)</th>"), stale);
  ck_has(out, "kernel that read stale data");
  ck_assert(strstr(out, "bar c3") != NULL);
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

START_TEST(ui_result_streams_one_stream_has_no_twin) {
  cJSON *env = simulate("{\"streams\":1,\"memory\":\"pageable\"}", "h100-sxm");
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  const char *out = ui_buf_str(&b);
  ck_assert_ptr_null(test_ui_markup_problem(out));
  ck_assert_int_eq(test_ui_count(out, "role=\"img\""), 3);
  ck_assert_ptr_null(strstr(out, "The same chunks on one stream"));
  ui_buf_free(&b);
  cJSON_Delete(env);
}
END_TEST

/* The bar chart's text alternative (the svg's aria-label) holds each bar's
 * label and the very value written beside that bar; with one stream the
 * "several streams" bars (the same pipeline) are not drawn twice, and no
 * sentence says "1 streams". */
static void check_bars_alt(const char *params) {
  cJSON *env = simulate(params, "t4");
  ui_buf b;
  ui_buf_init(&b);
  ui_render_result(&b, env, true, NULL);
  const char *out = ui_buf_str(&b);
  const char *svg = strstr(out, "<svg"), *end = strstr(svg, "</svg>");
  const char *al = strstr(svg, "aria-label=\"");
  ck_assert_ptr_nonnull(al);
  char alt[600];
  const char *q = strchr(al + 12, '"');
  snprintf(alt, sizeof alt, "%.*s", (int)(q - (al + 12)), al + 12);
  int bars = 0;
  for (const char *p = strstr(svg, "class=\"bar-label\""); p && p < end; p = strstr(p + 1, "class=\"bar-label\"")) {
    char label[96], value[48];
    const char *l = strchr(p, '>') + 1, *v = strstr(p, "class=\"bar-value\"");
    snprintf(label, sizeof label, "%.*s", (int)(strchr(l, '<') - l), l);
    v = strchr(v, '>') + 1;
    snprintf(value, sizeof value, "%.*s", (int)(strchr(v, '<') - v), v);
    char pair[160];
    snprintf(pair, sizeof pair, "%s %s", label, value);
    ck_assert_msg(strstr(alt, pair) != NULL, "text alternative \"%s\" lacks \"%s\"", alt, pair);
    bars++;
  }
  ck_assert_int_eq(bars, strstr(params, "\"streams\":1,") ? 2 : 4);
  ck_assert_ptr_null(strstr(out, "1 streams"));
  ui_buf_free(&b);
  cJSON_Delete(env);
}

START_TEST(ui_result_streams_text_alternative_matches_the_bars) {
  check_bars_alt("{\"chunks\":6,\"streams\":4,\"kernel_us\":50}");
  check_bars_alt("{\"chunks\":6,\"streams\":1,\"kernel_us\":50}");
}
END_TEST

Suite *make_ui_result_streams_suite(void) {
  Suite *s = suite_create("ui_result_streams");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, ui_result_streams_renders_from_every_profile);
  tcase_add_test(tc, ui_result_streams_text_alternative_matches_the_bars);
  tcase_add_test(tc, ui_result_streams_marks_the_stale_kernels);
  tcase_add_test(tc, ui_result_streams_one_stream_has_no_twin);
  suite_add_tcase(s, tc);
  return s;
}
