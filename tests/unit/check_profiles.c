/* Device profiles: the seven built-ins, every figure with exactly one source
 * whose reference exists, sources in `gpulab profiles --json`, estimates
 * named in every simulated method, and the host link and view choices. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "exp_test.h"
#include "host_link.h"
#include "profiles.h"
#include "suites.h"

START_TEST(profiles_list_the_seven_gpus_classes_get) {
  const char *names[] = {"t4", "l4", "a10g", "v100-sxm", "a100-sxm", "h100-sxm", "rtx-4090"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    ck_assert_msg(lab_profile_find(names[i]) != NULL, "no profile %s", names[i]);
}
END_TEST

START_TEST(profiles_every_figure_has_one_source_with_a_link) {
  for (int i = 0; i < lab_profile_count(); i++) {
    char why[200] = "";
    ck_assert_msg(lab_profile_check_sources(lab_profile_at(i), why, sizeof why) == 0, "%s", why);
  }
  for (int i = 0; i < lab_profile_ref_count(); i++) {
    const lab_ref *r = lab_profile_ref_at(i);
    ck_assert_msg(strncmp(r->url, "https://", 8) == 0 && r->what[0], "reference %s", r->id);
    for (int k = 0; k < i; k++) ck_assert_str_ne(r->id, lab_profile_ref_at(k)->id);
  }
}
END_TEST

START_TEST(profiles_json_shows_each_figure_with_its_source) {
  cJSON *all = lab_profiles_json();
  const cJSON *p;
  cJSON_ArrayForEach(p, all) {
    const cJSON *src = cJSON_GetObjectItem(p, "sources");
    ck_assert(cJSON_IsObject(src));
    const cJSON *h2d = cJSON_GetObjectItem(src, "h2d_pinned_gbps");
    ck_assert(cJSON_IsString(cJSON_GetObjectItem(h2d, "kind")));
    ck_assert(cJSON_IsString(cJSON_GetObjectItem(h2d, "note")));
    const cJSON *peak = cJSON_GetObjectItem(src, "fp32_tflops");
    ck_assert_str_eq(cJSON_GetObjectItem(peak, "kind")->valuestring, "datasheet");
    ck_assert(strncmp(cJSON_GetObjectItem(peak, "url")->valuestring, "https://", 8) == 0);
    ck_assert(cJSON_IsString(cJSON_GetObjectItem(p, "estimates")));
  }
  cJSON_Delete(all);
}
END_TEST

START_TEST(simulated_methods_name_the_estimates) {
  char est[600];
  lab_profile_estimates(lab_profile_find("t4"), est, sizeof est);
  ck_assert(strstr(est, "launch_us") != NULL); /* no published source for T4 launches */
  ck_assert(strstr(est, "h2d_pinned_gbps") == NULL);
  lab_error err;
  cJSON *env = test_exp_simulate("transfer", NULL, "t4", &err);
  ck_assert_ptr_nonnull(env);
  const char *m = cJSON_GetObjectItem(cJSON_GetObjectItem(env, "stats"), "method")->valuestring;
  ck_assert_msg(strstr(m, "used as estimates: ") && strstr(m, "copy_latency_us"), "%s", m);
  ck_assert(strstr(m, "raw CUDA") != NULL); /* transfer has no view: it says which view it is in */
  cJSON_Delete(env);
}
END_TEST

START_TEST(tensor_core_support_follows_the_architecture) {
  const lab_profile *t4 = lab_profile_find("t4"), *v100 = lab_profile_find("v100-sxm");
  ck_assert(t4->fp16_tflops > 0 && t4->tf32_tflops == 0 && t4->bf16_tflops == 0); /* Turing */
  ck_assert(v100->fp16_tflops > 0 && v100->tf32_tflops == 0 && v100->bf16_tflops == 0); /* Volta */
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    if (p->cc_major >= 8) ck_assert_msg(p->tf32_tflops > 0 && p->bf16_tflops > 0 && p->fp16_tflops > 0, "%s", p->name);
    ck_assert(p->mem_bw_gbps <= p->mem_peak_gbps);
    ck_assert(p->h2d_pinned_gbps <= lab_pcie_nominal_gbps(p->pcie_gen, p->pcie_lanes));
    ck_assert(p->h2d_pageable_gbps < p->h2d_pinned_gbps && p->d2h_pageable_gbps < p->d2h_pinned_gbps);
  }
}
END_TEST

/* The one published A100 pair (gengwg-bw): pageable device-to-host ran faster than host-to-device. */
START_TEST(a100_pageable_d2h_is_faster_than_h2d_as_measured) {
  lab_error err;
  cJSON *env = test_exp_simulate("transfer", "{\"max_bytes\":32000000,\"samples\":5}", "a100-sxm", &err);
  ck_assert_ptr_nonnull(env);
  ck_assert(test_exp_metric(env, "d2h_pageable_gbps") > test_exp_metric(env, "h2d_pageable_gbps"));
  cJSON_Delete(env);
}
END_TEST

/* A cloud VM may give a card part of its link: the transfer experiment's host parameter shows it. */
START_TEST(a_throttled_host_link_slows_copies_and_says_so) {
  lab_error err;
  cJSON *own = test_exp_simulate("transfer", "{\"samples\":5}", "h100-sxm", &err);
  cJSON *vm = test_exp_simulate("transfer", "{\"samples\":5,\"host\":\"gen4-x8\"}", "h100-sxm", &err);
  ck_assert_ptr_nonnull(own);
  ck_assert_ptr_nonnull(vm);
  ck_assert(test_exp_metric(vm, "h2d_pinned_gbps") < 0.3 * test_exp_metric(own, "h2d_pinned_gbps"));
  ck_assert(test_exp_metric(vm, "h2d_pinned_gbps") <= test_exp_metric(vm, "link_nominal_gbps"));
  ck_assert(test_exp_finding_has(vm, "throttled cloud VM"));
  cJSON *d = cJSON_GetObjectItem(cJSON_GetObjectItem(vm, "details"), "host");
  ck_assert_int_eq(cJSON_GetObjectItem(d, "pcie_lanes")->valueint, 8);
  /* A link wider than the card's own changes nothing: a Gen3 T4 stays Gen3. */
  cJSON *t4 = test_exp_simulate("transfer", "{\"samples\":5,\"host\":\"gen5-x16\"}", "t4", &err);
  cJSON *t4own = test_exp_simulate("transfer", "{\"samples\":5}", "t4", &err);
  ck_assert(fabs(test_exp_metric(t4, "h2d_pinned_gbps") - test_exp_metric(t4own, "h2d_pinned_gbps")) < 1e-9);
  cJSON_Delete(own);
  cJSON_Delete(vm);
  cJSON_Delete(t4);
  cJSON_Delete(t4own);
}
END_TEST

Suite *make_profiles_suite(void) {
  Suite *s = suite_create("profiles");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, profiles_list_the_seven_gpus_classes_get);
  tcase_add_test(tc, profiles_every_figure_has_one_source_with_a_link);
  tcase_add_test(tc, profiles_json_shows_each_figure_with_its_source);
  tcase_add_test(tc, simulated_methods_name_the_estimates);
  tcase_add_test(tc, tensor_core_support_follows_the_architecture);
  tcase_add_test(tc, a100_pageable_d2h_is_faster_than_h2d_as_measured);
  tcase_add_test(tc, a_throttled_host_link_slows_copies_and_says_so);
  suite_add_tcase(s, tc);
  return s;
}
