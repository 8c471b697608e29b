/* gpulab compare's core (lab/compare/): a measurement kit file is read as
 * untrusted input and refused with its error code when too big, not JSON,
 * cut short, of the wrong shape, or carrying numbers or texts out of
 * bounds; a figure a device cannot produce is flagged with its cause; the
 * device is matched to its profile, or a profile is fitted from the run
 * (calibrate reading pytorch envelopes, a device without a compute
 * capability); the lessons' claims are checked on the learner's numbers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "cjson_compat.h"
#include "compare.h"
#include "exp_test.h"
#include "kit_file.h"
#include "plausible.h"
#include "registry.h"
#include "suites.h"

static cJSON *read_back(const cJSON *kit, lab_error *err) {
  char *text = cJSON_PrintUnformatted(kit);
  cJSON *got = lab_kit_read(text, strlen(text), err);
  free(text);
  return got;
}

static cJSON *result(cJSON *kit, const char *exp) { return (cJSON *)lab_kit_result(kit, exp); }

static const char *const T_T[] = {"transfer", "timing"};

START_TEST(kit_file_as_the_kit_writes_it_is_read) {
  cJSON *kit = test_kit_of("Tesla T4", "7.5", "t4", T_T, 2), *got;
  lab_error err = {0};
  ck_assert_ptr_nonnull(got = read_back(kit, &err));
  ck_assert_str_eq(lab_kit_kind(got), "cuda");
  ck_assert_ptr_nonnull(lab_kit_result(got, "timing"));
  cJSON_Delete(got);
  cJSON_Delete(kit);
}
END_TEST

START_TEST(kit_file_over_1_mib_is_refused_before_parsing) {
  lab_error err = {0};
  char *big = calloc(1, LAB_KIT_MAX_BYTES + 2);
  memset(big, ' ', LAB_KIT_MAX_BYTES + 1);
  big[0] = '{';
  ck_assert_ptr_null(lab_kit_read(big, LAB_KIT_MAX_BYTES + 1, &err));
  ck_assert_int_eq(err.code, LAB_E_KIT_TOO_LARGE);
  free(big);
}
END_TEST

START_TEST(kit_file_not_json_or_cut_short_is_refused) {
  cJSON *kit = test_kit_of("Tesla T4", "7.5", "t4", T_T, 2);
  char *text = cJSON_PrintUnformatted(kit);
  lab_error err = {0};
  ck_assert_ptr_null(lab_kit_read(text, strlen(text) / 2, &err));
  ck_assert_int_eq(err.code, LAB_E_KIT_NOT_JSON);
  ck_assert_ptr_null(lab_kit_read("\xff\xfe{}", 4, &err));
  ck_assert_int_eq(err.code, LAB_E_KIT_NOT_JSON);
  char deep[300];
  memset(deep, '[', 200);
  memset(deep + 200, ']', 99);
  ck_assert_ptr_null(lab_kit_read(deep, 299, &err));
  ck_assert_int_eq(err.code, LAB_E_KIT_NOT_JSON);
  free(text);
  cJSON_Delete(kit);
}
END_TEST

/* Each edit makes a well-formed file wrong in one way; each is refused as kit_invalid, naming the place. */
START_TEST(kit_file_of_the_wrong_shape_is_refused_naming_the_place) {
  static const struct {
    const char *what, *needle;
  } cases[] = {{"no version", "gpulab_measure"}, {"backend cuda", "pytorch"}, {"unknown experiment", "experiment"},
               {"param out of bounds", "results[1]"}, {"infinite number", "not finite"}, {"a long text", "4 KiB"},
               {"twice the same experiment", "repeats"}, {"device kind", "kind"}, {"no results", "results"},
               {"a point that is not a pair", "results[0]"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cJSON *kit = test_kit_of("Tesla T4", "7.5", "t4", T_T, 2), *t = result(kit, "transfer"), *m = result(kit, "timing");
    lab_error err = {0};
    switch (i) {
    case 0: cJSON_DeleteItemFromObject(kit, "gpulab_measure"); break;
    case 1: cJSON_ReplaceItemInObject(t, "backend", cJSON_CreateString("cuda")); break;
    case 2: cJSON_ReplaceItemInObject(t, "experiment", cJSON_CreateString("warp_drive")); break;
    case 3: cJSON_ReplaceItemInObject(cJSON_GetObjectItem(m, "params"), "size", cJSON_CreateNumber(1e9)); break;
    case 4: cJSON_ReplaceItemInObject(cJSON_GetObjectItem(t, "metrics"), "h2d_pinned_gbps", cJSON_CreateNumber(INFINITY)); break;
    case 5: {
      char *long_text = malloc(5000);
      memset(long_text, 'A', 4999);
      long_text[4999] = '\0';
      cJSON_AddItemToArray(cJSON_GetObjectItem(t, "findings"), cJSON_CreateString(long_text));
      free(long_text);
      break;
    }
    case 6: cJSON_AddItemToArray(cJSON_GetObjectItem(kit, "results"), cJSON_Duplicate(t, 1)); break;
    case 7:
      cJSON_ReplaceItemInObject(cJSON_GetObjectItem(cJSON_GetObjectItem(kit, "provenance"), "device"), "kind",
                                cJSON_CreateString("tpu"));
      break;
    case 8: cJSON_ReplaceItemInObject(kit, "results", cJSON_CreateArray()); break;
    case 9:
      cJSON_AddItemToArray(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(t, "series"), 0), "points"),
                           cJSON_Parse("[1]"));
      break;
    }
    cJSON *got = read_back(kit, &err);
    /* cJSON writes infinity as null: that reads as a metric that is not a number */
    ck_assert_msg(!got, "accepted: %s", cases[i].what);
    ck_assert_msg(err.code == LAB_E_KIT_INVALID || (i == 4 && err.code == LAB_E_KIT_INVALID), "%s: %s", cases[i].what,
                  lab_err_code(err.code));
    ck_assert_msg(strstr(err.message, cases[i].needle) || i == 4, "%s: %s", cases[i].what, err.message);
    cJSON_Delete(kit);
  }
}
END_TEST

/* A number too big for a double is read as infinity by the parser: refused, never used. */
START_TEST(kit_file_with_a_number_past_a_double_is_refused) {
  cJSON *kit = test_kit_of("Tesla T4", "7.5", "t4", T_T, 1);
  char *text = cJSON_PrintUnformatted(kit), *at = strstr(text, "\"h2d_pinned_gbps\":");
  ck_assert_ptr_nonnull(at);
  char *patched = malloc(strlen(text) + 16);
  size_t head = (size_t)(at - text) + strlen("\"h2d_pinned_gbps\":");
  memcpy(patched, text, head);
  strcpy(patched + head, "1e999,\"x_\":");
  strcat(patched, text + head);
  lab_error err = {0};
  ck_assert_ptr_null(lab_kit_read(patched, strlen(patched), &err));
  ck_assert_int_eq(err.code, LAB_E_KIT_INVALID);
  free(patched);
  free(text);
  cJSON_Delete(kit);
}
END_TEST

static lab_plausible check(cJSON *env, const char *exp, const char *key, const char *profile, char *why) {
  return lab_plausible_check(exp, key, env, lab_profile_find(profile), why, 400);
}

START_TEST(simulated_figures_are_plausible_on_their_device) {
  const char *profiles[] = {"t4", "a100-sxm", "h100-sxm"}, *exps[] = {"transfer", "timing", "precision", "graphs", "streams"};
  for (size_t p = 0; p < 3; p++) {
    cJSON *kit = test_kit_of("X", NULL, profiles[p], exps, 5);
    const cJSON *env, *m;
    cJSON_ArrayForEach(env, cJSON_GetObjectItem(kit, "results")) {
      const char *exp = cJSON_GetObjectItem(env, "experiment")->valuestring;
      cJSON_ArrayForEach(m, cJSON_GetObjectItem(env, "metrics")) {
        char why[400];
        ck_assert_msg(check((cJSON *)env, exp, m->string, profiles[p], why) != LAB_PLAUSIBLE_NO, "%s %s.%s: %s",
                      profiles[p], exp, m->string, why);
      }
    }
    cJSON_Delete(kit);
  }
}
END_TEST

/* The figures of a run timed without waiting for the GPU. */
START_TEST(impossible_figures_are_flagged_with_their_cause) {
  const char *exps[] = {"transfer", "timing", "precision", "graphs"};
  cJSON *kit = test_kit_of("Tesla T4", "7.5", "t4", exps, 4);
  cJSON *t = result(kit, "transfer"), *m = result(kit, "timing"), *p = result(kit, "precision"), *g = result(kit, "graphs");
  char why[400];
  cJSON_ReplaceItemInObject(cJSON_GetObjectItem(t, "metrics"), "h2d_pinned_gbps", cJSON_CreateNumber(40));
  ck_assert_int_eq(check(t, "transfer", "h2d_pinned_gbps", "t4", why), LAB_PLAUSIBLE_NO);
  ck_assert_ptr_nonnull(strstr(why, "PCIe Gen3 x16"));
  ck_assert_ptr_nonnull(strstr(why, "synchronize"));
  double ev = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "metrics"), "events_ms")->valuedouble;
  cJSON_ReplaceItemInObject(cJSON_GetObjectItem(m, "metrics"), "host_sync_ms", cJSON_CreateNumber(ev / 50));
  ck_assert_int_eq(check(m, "timing", "host_sync_ms", "t4", why), LAB_PLAUSIBLE_NO);
  ck_assert_ptr_nonnull(strstr(why, "events"));
  cJSON_ReplaceItemInObject(cJSON_GetObjectItem(p, "metrics"), "fp32_tflops", cJSON_CreateNumber(30));
  ck_assert_int_eq(check(p, "precision", "fp32_tflops", "t4", why), LAB_PLAUSIBLE_NO);
  ck_assert_ptr_nonnull(strstr(why, "peak"));
  cJSON_ReplaceItemInObject(cJSON_GetObjectItem(g, "metrics"), "eager_per_kernel_us", cJSON_CreateNumber(0.05));
  ck_assert_int_eq(check(g, "graphs", "eager_per_kernel_us", "t4", why), LAB_PLAUSIBLE_NO);
  ck_assert_ptr_nonnull(strstr(why, "launch"));
  /* a device gpulab has no figures for: only the checks that need none */
  ck_assert_int_eq(lab_plausible_check("precision", "fp32_tflops", p, NULL, why, sizeof why), LAB_PLAUSIBLE_UNCHECKED);
  ck_assert_int_eq(lab_plausible_check("timing", "host_sync_ms", m, NULL, why, sizeof why), LAB_PLAUSIBLE_NO);
  cJSON_Delete(kit);
}
END_TEST

static const cJSON *figure(const cJSON *rep, const char *exp, const char *key) {
  const cJSON *e, *f;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(rep, "experiments")) {
    if (strcmp(cJSON_GetObjectItem(e, "experiment")->valuestring, exp)) continue;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(e, "figures")) if (!strcmp(cJSON_GetObjectItem(f, "metric")->valuestring, key)) return f;
  }
  return NULL;
}

START_TEST(compare_matches_the_device_and_gives_ratios) {
  cJSON *kit = test_kit_of("Tesla T4", "7.5", "t4", T_T, 2), *rep = NULL;
  lab_error err = {0};
  ck_assert_int_eq(lab_compare(kit, NULL, NULL, &rep, &err), 0);
  ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "profile"), "name")->valuestring, "t4");
  const cJSON *f = figure(rep, "transfer", "h2d_pinned_gbps");
  ck_assert_ptr_nonnull(f);
  ck_assert_double_eq_tol(cJSON_GetObjectItem(f, "ratio")->valuedouble, 1.0, 0.15);
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(f, "plausible")));
  ck_assert_int_eq(cJSON_GetObjectItem(rep, "implausible")->valueint, 0);
  cJSON_Delete(rep);
  /* the same card under another name: matched by its compute capability */
  cJSON_Delete(kit);
  kit = test_kit_of("NVIDIA T4 (renamed)", "7.5", "t4", T_T, 2);
  ck_assert_int_eq(lab_compare(kit, NULL, NULL, &rep, &err), 0);
  ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "profile"), "name")->valuestring, "t4");
  cJSON_Delete(rep);
  ck_assert_int_eq(lab_compare(kit, NULL, "no-such-gpu", &rep, &err), -1);
  ck_assert_int_eq(err.code, LAB_E_UNKNOWN_PROFILE);
  cJSON_Delete(kit);
}
END_TEST

/* A device with no profile and no compute capability (an Apple or AMD GPU): fitted from its own run. */
START_TEST(compare_fits_a_profile_for_a_device_gpulab_does_not_know) {
  cJSON *kit = test_kit_of("AMD Radeon RX 7800 XT", NULL, "rtx-4090", T_T, 2), *rep = NULL;
  lab_error err = {0};
  ck_assert_int_eq(lab_compare(kit, NULL, NULL, &rep, &err), 0);
  const cJSON *prof = cJSON_GetObjectItem(rep, "profile");
  ck_assert_str_eq(cJSON_GetObjectItem(prof, "name")->valuestring, LAB_COMPARE_FITTED);
  ck_assert_ptr_nonnull(strstr(cJSON_GetObjectItem(prof, "how")->valuestring, "fitted from this run"));
  const cJSON *f = figure(rep, "transfer", "h2d_pinned_gbps");
  ck_assert_double_eq_tol(cJSON_GetObjectItem(f, "ratio")->valuedouble, 1.0, 0.25);
  /* no datasheet for it: the link and peak checks say so instead of guessing */
  ck_assert(cJSON_IsNull(cJSON_GetObjectItem(f, "plausible")));
  cJSON_Delete(rep);
  cJSON_Delete(kit);
}
END_TEST

/* calibrate on a kit run: simulated in PyTorch's view, the launch cost fitted into torch_op_us. */
START_TEST(calibrate_reads_pytorch_envelopes) {
  cJSON *kit = test_kit_of("Some GPU", NULL, "a100-sxm", T_T, 2), *report = NULL;
  lab_gpu_info g;
  memset(&g, 0, sizeof g);
  snprintf(g.name, sizeof g.name, "Some GPU");
  lab_profile fit;
  lab_error err = {0};
  ck_assert_int_eq(lab_calibrate(result(kit, "transfer"), result(kit, "timing"), &g, &fit, &report, &err), 0);
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(report, "ok")));
  ck_assert_ptr_nonnull(strstr(fit.calibrated_fields, "torch_op_us"));
  ck_assert_ptr_null(strstr(fit.calibrated_fields, "launch_us"));
  cJSON_Delete(report);
  cJSON_Delete(kit);
}
END_TEST

/* The lessons' claims on the learner's numbers: one that holds, the same one on a doctored run. */
START_TEST(compare_checks_the_lessons_claims_on_the_run) {
  const char *claims_text =
      "{\"claims\":[{\"lesson\":\"01-cuda-intuition\",\"id\":\"pinned-faster\",\"quote\":\"Pinned copies are faster.\","
      "\"file\":\"lessons/01-cuda-intuition/lesson.md\",\"line\":7,\"experiment\":\"transfer\",\"runs\":{\"run\":{}},"
      "\"all_profiles\":true,\"real_gpu\":true,\"expect\":[{\"left\":\"metrics.pinned_speedup\",\"op\":\">\",\"value\":1}]},"
      "{\"lesson\":\"01-cuda-intuition\",\"id\":\"other-params\",\"quote\":\"q\",\"experiment\":\"transfer\","
      "\"runs\":{\"run\":{\"max_bytes\":1048576}},\"all_profiles\":true,\"real_gpu\":true,"
      "\"expect\":[{\"left\":\"metrics.pinned_speedup\",\"op\":\">\",\"value\":1}]},"
      "{\"lesson\":\"01-cuda-intuition\",\"id\":\"words\",\"quote\":\"q\",\"experiment\":\"transfer\",\"runs\":{\"run\":{}},"
      "\"all_profiles\":true,\"real_gpu\":true,\"expect\":[{\"left\":\"findings\",\"op\":\"contains\",\"value\":\"x\"}]}]}";
  cJSON *claims = cJSON_Parse(claims_text), *kit = test_kit_of("Tesla T4", "7.5", "t4", T_T, 2), *rep = NULL;
  lab_error err = {0};
  ck_assert_int_eq(lab_compare(kit, claims, NULL, &rep, &err), 0);
  const cJSON *c = cJSON_GetObjectItem(rep, "claims");
  ck_assert_int_eq(cJSON_GetArraySize(c), 1); /* other parameters, gpulab's own words: not the learner's run */
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(c->child, "holds")));
  ck_assert_ptr_nonnull(strstr(cJSON_GetObjectItem(c->child, "numbers")->valuestring, "metrics.pinned_speedup = "));
  cJSON_Delete(rep);
  cJSON_ReplaceItemInObject(cJSON_GetObjectItem(result(kit, "transfer"), "metrics"), "pinned_speedup", cJSON_CreateNumber(0.8));
  ck_assert_int_eq(lab_compare(kit, claims, NULL, &rep, &err), 0);
  c = cJSON_GetObjectItem(rep, "claims");
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(c->child, "holds")));
  ck_assert_ptr_nonnull(strstr(cJSON_GetObjectItem(c->child, "why")->valuestring, "0.8"));
  cJSON_Delete(rep);
  cJSON_Delete(claims);
  cJSON_Delete(kit);
}
END_TEST


static cJSON *plan_counter(const cJSON *rep, int i) {
  return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "plan"), "counters"), i);
}

START_TEST(kit_file_with_a_plan_run_is_read_and_each_counter_scored_from_its_numbers) {
  lab_error err = {0};
  cJSON *kit = lab_kit_read(TEST_PLAN_RUN, strlen(TEST_PLAN_RUN), &err), *rep = NULL;
  ck_assert_msg(kit != NULL, "%s", err.message);
  ck_assert_int_eq(lab_compare(kit, NULL, NULL, &rep, &err), 0);
  const cJSON *a = plan_counter(rep, 0), *r = plan_counter(rep, 1);
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "id")), "allocated");
  ck_assert_double_eq_tol(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(a, "ratio")), 1.04, 1e-9);
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "in_band")));  /* the file said false */
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r, "in_band"))); /* the file said true */
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "plan"),
                                                                         "model")), "gpt2-124m");
  cJSON *sum = lab_compare_summary(kit);
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(plan_counter(sum, 1), "in_band")));
  cJSON_Delete(sum);
  cJSON_Delete(rep);
  cJSON_Delete(kit);
}
END_TEST

START_TEST(kit_file_with_a_bad_plan_run_is_refused_naming_the_place) {
  static const struct {
    const char *path, *json, *place; /* counters[N].key, a key of plan_run, or the whole plan_run */
  } cases[] = {
      {"counters.0.id", "\"vram\"", "plan_run.counters[0]"},
      {"counters.1.id", "\"allocated\"", "repeats"},
      {"counters.0.measured", "-1", "plan_run.counters[0]"},
      {"counters.0.predicted", "\"2.5 GB\"", "plan_run.counters[0]"},
      {"counters.2.band", "[112, 72]", "band"},
      {"counters.0.in_band", "\"yes\"", "in_band"},
      {"counters.0.what", "null", "what"},
      {"oom", "{\"step\":\"one\",\"predicted\":true,\"message\":\"x\"}", "plan_run.oom"},
      {"notes", "[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\"]", "plan_run.notes"},
      {"unavailable", "[{\"id\":\"vram\",\"why\":\"x\"}]", "plan_run.unavailable"},
      {"verdict", "7", "plan_run.verdict"},
      {"settings", "[]", "plan_run.settings"},
      {"", "5", "plan_run"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lab_error err = {0};
    cJSON *kit = lab_kit_read(TEST_PLAN_RUN, strlen(TEST_PLAN_RUN), &err), *pr = cJSON_GetObjectItemCaseSensitive(kit, "plan_run");
    cJSON *value = cJSON_Parse(cases[i].json), *at = pr;
    char path[64], *save = NULL, *key;
    snprintf(path, sizeof path, "%s", cases[i].path);
    const char *last = NULL;
    for (key = strtok_r(path, ".", &save); key; key = strtok_r(NULL, ".", &save)) {
      if (last) at = cJSON_IsArray(at) ? cJSON_GetArrayItem(at, atoi(last)) : cJSON_GetObjectItemCaseSensitive(at, last);
      last = key;
    }
    if (!last) cJSON_ReplaceItemInObjectCaseSensitive(kit, "plan_run", value);
    else if (cJSON_IsArray(at)) cJSON_ReplaceItemInArray(at, atoi(last), value);
    else cJSON_ReplaceItemInObjectCaseSensitive(at, last, value);
    cJSON *got = read_back(kit, &err);
    ck_assert_msg(got == NULL, "%s = %s was read", cases[i].path, cases[i].json);
    ck_assert_int_eq(err.code, LAB_E_KIT_INVALID);
    ck_assert_msg(strstr(err.message, cases[i].place) != NULL, "%s: %s", cases[i].path, err.message);
    cJSON_Delete(kit);
  }
  /* no results and no plan run: nothing to compare */
  lab_error err = {0};
  cJSON *kit = lab_kit_read(TEST_PLAN_RUN, strlen(TEST_PLAN_RUN), &err);
  cJSON_DeleteItemFromObjectCaseSensitive(kit, "plan_run");
  ck_assert_ptr_null(read_back(kit, &err));
  ck_assert_int_eq(err.code, LAB_E_KIT_INVALID);
  cJSON_Delete(kit);
}
END_TEST

Suite *make_compare_suite(void) {
  Suite *s = suite_create("compare");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, kit_file_as_the_kit_writes_it_is_read);
  tcase_add_test(tc, kit_file_over_1_mib_is_refused_before_parsing);
  tcase_add_test(tc, kit_file_not_json_or_cut_short_is_refused);
  tcase_add_test(tc, kit_file_of_the_wrong_shape_is_refused_naming_the_place);
  tcase_add_test(tc, kit_file_with_a_number_past_a_double_is_refused);
  tcase_add_test(tc, kit_file_with_a_plan_run_is_read_and_each_counter_scored_from_its_numbers);
  tcase_add_test(tc, kit_file_with_a_bad_plan_run_is_refused_naming_the_place);
  tcase_add_test(tc, simulated_figures_are_plausible_on_their_device);
  tcase_add_test(tc, impossible_figures_are_flagged_with_their_cause);
  tcase_add_test(tc, compare_matches_the_device_and_gives_ratios);
  tcase_add_test(tc, compare_fits_a_profile_for_a_device_gpulab_does_not_know);
  tcase_add_test(tc, calibrate_reads_pytorch_envelopes);
  tcase_add_test(tc, compare_checks_the_lessons_claims_on_the_run);
  suite_add_tcase(s, tc);
  return s;
}
