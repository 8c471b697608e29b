/* The page #yours's drawing of a learner's measurement kit run (wasm/render/
 * own_run.c, from the simulation module's answer, wasm/sim/kit_run.c), and
 * the lab report's section of it (wasm/report/report_own.c): every
 * experiment drawn by its renderer, labelled as the learner's run, beside
 * the prediction with the ratio per headline figure; a doctored file's
 * impossible figures flagged with their cause and its charts folded away;
 * caught messages linked into #explain; a fitted profile offered; bad files
 * refused with their codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "exp_test.h"
#include "html.h"
#include "kit_file.h"
#include "kit_run.h"
#include "own_run.h"
#include "report_own.h"
#include "suites.h"
#include "ui_test.h"

#define ck_has(text, part) ck_assert_msg(strstr(text, part) != NULL, "missing \"%s\" in:\n%.3000s", part, text)
#define ck_lacks(text, part) ck_assert_msg(strstr(text, part) == NULL, "unexpected \"%s\"", part)

static const char *const ALL[] = {"device", "placement", "memory", "train_step", "transfer", "timing",
                                  "crossover", "precision", "allocator", "graphs", "profile", "streams"};
static const char *const T_T[] = {"transfer", "timing"};

/* The simulation module's answer to a kit file (as JSON), checked for its status. */
static cJSON *answer_of(const cJSON *kit, int want_status) {
  char *text = cJSON_PrintUnformatted(kit), *out = NULL;
  int status = ui_kit_run(text, strlen(text), NULL, &out);
  ck_assert_msg(status == want_status, "status %d: %s", status, out ? out : "(null)");
  cJSON *a = cJSON_Parse(out);
  ck_assert_ptr_nonnull(a);
  free(text);
  free(out);
  return a;
}

static char *draw(const cJSON *answer) {
  ui_buf b;
  ui_buf_init(&b);
  ui_render_own_run(&b, answer);
  ck_assert(!b.failed);
  const char *bad = test_ui_markup_problem(ui_buf_str(&b));
  ck_assert_msg(bad == NULL, "markup: %s", bad);
  char *s = strdup(ui_buf_str(&b));
  ui_buf_free(&b);
  return s;
}

/* One experiment's part of the page, up to the next experiment's (its
 * renderers have articles of their own inside: the device's two views). */
static char *article(const char *html, const char *name) {
  char id[64];
  snprintf(id, sizeof id, "id=\"yours-exp-%s\"", name);
  const char *at = strstr(html, id), *end;
  ck_assert_msg(at != NULL, "no article for %s", name);
  end = strstr(at + 1, "<article class=\"own-exp\"");
  if (!end) end = at + strlen(at);
  return strndup(at, (size_t)(end - at));
}

static cJSON *metrics(cJSON *kit, const char *exp) {
  return cJSON_GetObjectItem((cJSON *)lab_kit_result(kit, exp), "metrics");
}

START_TEST(every_experiment_is_drawn_beside_its_prediction) {
  cJSON *kit = test_kit_of("Tesla T4", "7.5", "t4", ALL, 12), *a = answer_of(kit, 200);
  char *html = draw(a);
  ck_has(html, "<h2 id=\"yours-summary\" tabindex=\"-1\">Your run: Tesla T4, PyTorch 2.5.1+cu121, Colab</h2>");
  ck_has(html, "Beside the simulator's prediction for <strong>");
  ck_lacks(html, "yours-implausible");
  ck_lacks(html, "yours-fitted");
  ck_assert_int_eq(test_ui_count(html, "<article class=\"own-exp\""), 12);
  for (int i = 0; i < 12; i++) {
    char *x = article(html, ALL[i]);
    ck_assert_msg(strstr(x, "data-flagged=\"false\""), "%s flagged", ALL[i]);
    /* drawn twice by its own renderer: the learner's run, then the simulator's */
    const char *mine = strstr(x, "own-mine"), *pred = strstr(x, "own-predicted");
    ck_assert_msg(mine && pred && mine < pred, "%s: both sides", ALL[i]);
    ck_assert_msg(strstr(mine, "your run: Tesla T4, PyTorch 2.5.1+cu121, Colab") < pred, "%s: its label", ALL[i]);
    ck_assert_msg(strstr(pred, "simulated"), "%s: the prediction's label in %.1500s", ALL[i], pred);
    free(x);
  }
  /* simulated on the T4 standing in for the run: each headline figure's ratio is 1 */
  char *t = article(html, "transfer");
  ck_has(t, "aria-label=\"Your run: Host-device copies\"");
  ck_has(t, "aria-label=\"The prediction: Host-device copies\"");
  ck_has(t, "<code>h2d_pinned_gbps</code>");
  ck_has(t, "<td role=\"cell\" data-label=\"ratio\">1.00×</td>");
  ck_has(t, "yes: within the PCIe");
  free(t);
  free(html);
  cJSON_Delete(a);
  cJSON_Delete(kit);
}
END_TEST

/* A doctored run: 40 GB/s over a T4's PCIe Gen3 x16 link, a host sync 100 times
 * shorter than the events: flagged with the likely cause, its charts folded
 * away as what the file claims; the report says so too. */
START_TEST(impossible_figures_are_flagged_and_not_drawn_as_measured) {
  cJSON *kit = test_kit_of("Tesla T4", "7.5", "t4", T_T, 2);
  cJSON *m = metrics(kit, "timing");
  cJSON_ReplaceItemInObject(metrics(kit, "transfer"), "h2d_pinned_gbps", cJSON_CreateNumber(40));
  cJSON_ReplaceItemInObject(m, "host_sync_ms",
                            cJSON_CreateNumber(cJSON_GetObjectItem(m, "events_ms")->valuedouble / 100));
  cJSON *a = answer_of(kit, 200);
  char *html = draw(a), *t = article(html, "transfer"), *tm = article(html, "timing");
  ck_has(html, "id=\"yours-implausible\"><strong>2 figures are physically impossible on this device</strong>");
  ck_has(t, "data-flagged=\"true\"");
  ck_has(t, "<p class=\"own-flag\" role=\"note\"><strong>Not measured as the lessons teach:</strong> "
            "<code>h2d_pinned_gbps</code> 40.00 GB/s is more than the Tesla T4&#39;s PCIe Gen3 x16 link");
  ck_has(t, "<tr role=\"row\" class=\"own-flagged\">");
  ck_has(t, "<strong class=\"own-flag-word\">no:</strong>");
  ck_has(t, "<details class=\"own-claimed\"><summary>Its charts as the file claims them (not a measurement");
  /* folded: the run's chart only inside the details, the prediction's outside */
  ck_assert_ptr_null(strstr(t, "<details class=\"own-claimed\" open"));
  ck_has(tm, "data-flagged=\"true\"");
  ck_has(strstr(tm, "class=\"own-flagged\""), "host_sync_ms");

  ui_buf b;
  ui_buf_init(&b);
  ui_report_own_run(&b, cJSON_GetObjectItem(a, "compare"));
  ck_has(ui_buf_str(&b), "## Your own GPU (the measurement kit)\n\nSource: **your run: Tesla T4, PyTorch 2.5.1+cu121, Colab**");
  ck_has(ui_buf_str(&b), "**2 figures are physically impossible on this device**");
  ck_has(ui_buf_str(&b), "| h2d\\_pinned\\_gbps | 40");
  ck_has(ui_buf_str(&b), " (flagged) | ");
  ui_buf_free(&b);
  free(t);
  free(tm);
  free(html);
  cJSON_Delete(a);
  cJSON_Delete(kit);
}
END_TEST

/* What failed on the learner's machine opens in #explain with its text;
 * markup in the file's texts stays text. */
START_TEST(caught_messages_open_in_explain) {
  cJSON *kit = test_kit_of("Tesla T4 <b>", "7.5", "t4", T_T, 2);
  cJSON *failed = cJSON_AddArrayToObject(kit, "failed"), *f = cJSON_CreateObject();
  cJSON_AddStringToObject(f, "experiment", "memory");
  cJSON_AddStringToObject(f, "error", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB & more");
  cJSON_AddItemToArray(failed, f);
  cJSON *a = answer_of(kit, 200);
  char *html = draw(a);
  ck_has(html, "<h3 id=\"yours-failed\">Failed on your machine</h3>");
  ck_has(html, "<code>torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB &amp; more</code>");
  ck_has(html, "href=\"#explain?text=torch.OutOfMemoryError%3A%20CUDA%20out%20of%20memory.%20Tried%20to%20allocate%2020.00%20GiB%20%26%20more\"");
  ck_has(html, "Tesla T4 &lt;b&gt;");
  ck_lacks(html, "T4 <b>");
  free(html);
  cJSON_Delete(a);
  cJSON_Delete(kit);
}
END_TEST

/* A device gpulab has no profile for: one fitted from the run, offered to every experiment. */
START_TEST(a_device_without_a_profile_gets_one_fitted) {
  cJSON *kit = test_kit_of("AMD Radeon RX 7900 XTX", NULL, "rtx-4090", T_T, 2), *a = answer_of(kit, 200);
  char *html = draw(a);
  ck_has(html, "<p class=\"own-fitted\" id=\"yours-fitted\">Every experiment can now be simulated on your GPU");
  ck_has(html, "fitted from this run");
  free(html);
  cJSON_Delete(a);
  cJSON_Delete(kit);
}
END_TEST

/* Refused before anything is drawn: over 1 MiB (never read), not JSON, the wrong shape. */
START_TEST(a_plan_run_is_drawn_beside_the_plan_per_counter) {
  cJSON *kit = cJSON_Parse(TEST_PLAN_RUN), *a = answer_of(kit, 200);
  char *html = draw(a);
  ck_has(html, "The plan, run on your device");
  ck_has(html, "gpt2-124m");
  ck_has(html, "<strong>t4</strong>");
  const char *table = strstr(html, "own-plan-counters");
  ck_assert_ptr_nonnull(table);
  /* allocated: 2.6 GB beside 2.5 GB, in its band whatever the file said; reserved: outside its band */
  /* rows in words; the kit's ids only in the folded method list below the table */
  const char *alloc = strstr(table, ">peak allocated</th>"), *res = strstr(table, ">peak reserved</th>");
  const char *method = strstr(table, "How each counter was read");
  ck_assert_ptr_nonnull(method);
  ck_assert_ptr_nonnull(strstr(method, "peak allocated <code>allocated</code>"));
  ck_assert(strstr(table, "<code>") > method);
  ck_assert_ptr_nonnull(alloc);
  ck_assert_ptr_nonnull(res);
  ck_assert_ptr_nonnull(strstr(alloc, "1.04×"));
  ck_assert(strstr(alloc, "1.04×") < res);
  ck_assert(strstr(alloc, ">yes<") < res);
  ck_assert_ptr_nonnull(strstr(res, "own-flag-word\">no</strong>"));
  ck_has(html, "the median step, CUDA events");
  ck_lacks(html, "Not measured on this device"); /* a GPU gives every counter */
  ck_lacks(html, "yours-exp-"); /* no experiments in a plan run's file */
  free(html);
  cJSON_Delete(a);
  /* an out-of-memory at the first step: the verdict and the message, openable in explain; no counters */
  cJSON *pr = cJSON_GetObjectItemCaseSensitive(kit, "plan_run");
  cJSON_ReplaceItemInObjectCaseSensitive(pr, "counters", cJSON_CreateArray());
  cJSON_ReplaceItemInObjectCaseSensitive(pr, "verdict", cJSON_CreateString("Out of memory at warm-up step 1, as predicted"));
  cJSON_ReplaceItemInObjectCaseSensitive(pr, "oom", cJSON_Parse("{\"step\":1,\"phase\":\"warm-up step 1\",\"predicted\":true,"
                                                                 "\"message\":\"CUDA out of memory. Tried to allocate 22.00 MiB\"}"));
  a = answer_of(kit, 200);
  html = draw(a);
  ck_has(html, "Out of memory at warm-up step 1, as predicted");
  ck_has(html, "#explain?text=CUDA%20out%20of%20memory.%20Tried%20to%20allocate%2022.00%20MiB");
  ck_lacks(html, "own-plan-counters");
  free(html);
  cJSON_Delete(a);
  cJSON_Delete(kit);
}
END_TEST

START_TEST(bad_files_are_refused_with_their_codes) {
  char *out = NULL;
  ck_assert_int_eq(ui_kit_run(NULL, LAB_KIT_MAX_BYTES + 1, NULL, &out), 413);
  ck_has(out, "\"code\":\"kit_too_large\"");
  free(out);
  ck_assert_int_eq(ui_kit_run("PyTorch version: 2.5.1\n", 23, NULL, &out), 400);
  ck_has(out, "\"code\":\"kit_not_json\"");
  free(out);
  cJSON *kit = test_kit_of("Tesla T4", "7.5", "t4", T_T, 2);
  cJSON_DeleteItemFromObject(kit, "gpulab_measure");
  cJSON *a = answer_of(kit, 400);
  ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "error"), "code")->valuestring, "kit_invalid");
  cJSON_Delete(a);
  cJSON_Delete(kit);
}
END_TEST

Suite *make_ui_own_run_suite(void) {
  Suite *s = suite_create("ui_own_run");
  TCase *tc = tcase_create("own_run");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, every_experiment_is_drawn_beside_its_prediction);
  tcase_add_test(tc, impossible_figures_are_flagged_and_not_drawn_as_measured);
  tcase_add_test(tc, caught_messages_open_in_explain);
  tcase_add_test(tc, a_device_without_a_profile_gets_one_fitted);
  tcase_add_test(tc, a_plan_run_is_drawn_beside_the_plan_per_counter);
  tcase_add_test(tc, bad_files_are_refused_with_their_codes);
  suite_add_tcase(s, tc);
  return s;
}
