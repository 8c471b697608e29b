/* Device profiles: the built-ins (seven NVIDIA GPUs, an Apple M1 Pro and an
 * AMD RX 7900 XTX), every figure with exactly one source whose reference
 * exists, sources in `gpulab profiles --json`, estimates named in every
 * simulated method, the host link and view choices, and what a platform
 * without a host link or graphs carries instead of made-up figures. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "exp_test.h"
#include "host_link.h"
#include "platform.h"
#include "profiles.h"
#include "registry.h"
#include "suites.h"

START_TEST(profiles_list_the_gpus_learners_and_classes_have) {
  const char *names[] = {"t4", "l4", "a10g", "v100-sxm", "a100-sxm", "h100-sxm", "rtx-4090", "m1-pro", "rx-7900-xtx"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    ck_assert_msg(lab_profile_find(names[i]) != NULL, "no profile %s", names[i]);
  ck_assert_int_eq(lab_profile_find("m1-pro")->platform, LAB_PLATFORM_MPS);
  ck_assert_int_eq(lab_profile_find("rx-7900-xtx")->platform, LAB_PLATFORM_ROCM);
  ck_assert_int_eq(lab_profile_find("t4")->platform, LAB_PLATFORM_CUDA);
}
END_TEST

/* The free GPU of Colab and Kaggle, not a data-centre H100: what a beginner has. */
START_TEST(the_default_profile_is_the_beginners_t4) {
  ck_assert_str_eq(lab_profile_default()->name, "t4");
  lab_error err;
  cJSON *env = test_exp_simulate("timing", NULL, NULL, &err);
  ck_assert_ptr_nonnull(env);
  ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(env, "device"), "profile")->valuestring, "t4");
  cJSON_Delete(env);
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
    const cJSON *peak = cJSON_GetObjectItem(src, "fp32_tflops"); /* Apple publishes none: derived from the clock */
    const char *kind = cJSON_GetObjectItem(peak, "kind")->valuestring;
    ck_assert_msg(!strcmp(kind, "datasheet") || !strcmp(kind, "derived"), "%s", kind);
    ck_assert(strncmp(cJSON_GetObjectItem(peak, "url")->valuestring, "https://", 8) == 0);
    ck_assert(lab_platform_from_name(cJSON_GetObjectItem(p, "platform")->valuestring) >= 0);
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
    if (p->platform == LAB_PLATFORM_CUDA && p->cc_major >= 8) /* an AMD gfx target is not a compute capability */
      ck_assert_msg(p->tf32_tflops > 0 && p->bf16_tflops > 0 && p->fp16_tflops > 0, "%s", p->name);
    ck_assert(p->mem_bw_gbps <= p->mem_peak_gbps);
    if (lab_platform_lacks(p->platform) & LAB_NEED_HOST_LINK) continue; /* below */
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

/* Unified memory: no link figures to invent. The link and what it sets are
 * absent (their source says why), copies run within the one memory, and
 * the experiments that need a link or graphs answer not_applicable. */
START_TEST(a_gpu_without_a_host_link_carries_no_link_figures) {
  int seen = 0;
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    unsigned lacks = lab_platform_lacks(p->platform);
    if (lacks & LAB_NEED_GRAPHS) {
      ck_assert(p->graph_node_us == 0);
      ck_assert_int_eq(lab_profile_src(p, "graph_node_us")->kind, LAB_SRC_ABSENT);
      ck_assert(!lab_experiment_applies(lab_experiment_find("graphs"), p));
    }
    if (!(lacks & LAB_NEED_HOST_LINK)) {
      ck_assert(p->pcie_gen > 0 && p->pin_gbps > 0);
      ck_assert(lab_experiment_applies(lab_experiment_find("transfer"), p));
      continue;
    }
    seen++;
    ck_assert_int_eq(p->pcie_gen, 0);
    ck_assert(p->pin_gbps == 0);
    static const char *const absent[] = {"pcie_gen", "pcie_lanes", "pin_gbps"};
    for (int k = 0; k < 3; k++) ck_assert_int_eq(lab_profile_src(p, absent[k])->kind, LAB_SRC_ABSENT);
    ck_assert(p->h2d_pinned_gbps == p->h2d_pageable_gbps && p->h2d_pinned_gbps <= p->mem_bw_gbps / 2);
    ck_assert(!lab_experiment_applies(lab_experiment_find("transfer"), p));
    ck_assert(!lab_experiment_applies(lab_experiment_find("streams"), p));
    ck_assert(lab_experiment_applies(lab_experiment_find("crossover"), p)); /* its copies are within the memory */
    char est[600];
    lab_profile_estimates(p, est, sizeof est);
    ck_assert_msg(strstr(est, "pin_gbps") == NULL, "an absent figure is not an estimate: %s", est);
    cJSON *j = lab_profile_json(p);
    const cJSON *pin = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "sources"), "pin_gbps");
    ck_assert_str_eq(cJSON_GetObjectItem(pin, "kind")->valuestring, "not applicable");
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "compute_capability")));
    cJSON_Delete(j);
  }
  ck_assert_int_eq(seen, 1); /* the M1 Pro */
}
END_TEST

/* A profile file (a calibrated one) keeps its platform; figures only a
 * host link or graphs use may be 0 only where the platform has none. */
START_TEST(a_profile_file_keeps_its_platform_and_needs_its_link_figures) {
  lab_profile back;
  lab_error err;
  cJSON *j = lab_profile_json(lab_profile_find("m1-pro"));
  cJSON_ReplaceItemInObject(j, "name", cJSON_CreateString("calibrated"));
  ck_assert_int_eq(lab_profile_from_json(j, &back, &err), 0);
  ck_assert_int_eq(back.platform, LAB_PLATFORM_MPS);
  ck_assert(!lab_experiment_applies(lab_experiment_find("transfer"), &back));
  cJSON_ReplaceItemInObject(j, "platform", cJSON_CreateString("metal"));
  ck_assert_int_eq(lab_profile_from_json(j, &back, &err), -1);
  ck_assert_str_eq(err.param, "platform");
  cJSON_Delete(j);
  j = lab_profile_json(lab_profile_find("t4"));
  ck_assert_int_eq(lab_profile_from_json(j, &back, &err), 0);
  ck_assert_int_eq(back.platform, LAB_PLATFORM_CUDA);
  cJSON_ReplaceItemInObject(j, "pin_gbps", cJSON_CreateNumber(0));
  ck_assert_int_eq(lab_profile_from_json(j, &back, &err), -1);
  ck_assert_str_eq(err.param, "pin_gbps");
  cJSON_Delete(j);
  /* No compute capability and no platform: the default's figures, never an Apple GPU's. */
  j = cJSON_Parse("{\"name\":\"calibrated\",\"label\":\"x\",\"device_name\":\"x\",\"sm_count\":10,"
                  "\"memory_bytes\":1e9,\"context_bytes\":0,\"mem_bw_gbps\":100,\"h2d_pinned_gbps\":10,"
                  "\"d2h_pinned_gbps\":10,\"h2d_pageable_gbps\":5,\"d2h_pageable_gbps\":5,\"copy_latency_us\":5,"
                  "\"launch_us\":3,\"kernel_min_us\":2,\"sync_us\":5,\"fp32_tflops\":5,\"gemm_efficiency\":0.5,"
                  "\"pin_gbps\":2,\"cold_start_ms\":300}");
  ck_assert_int_eq(lab_profile_from_json(j, &back, &err), 0);
  ck_assert_int_eq(back.platform, LAB_PLATFORM_CUDA);
  ck_assert(back.graph_node_us == lab_profile_default()->graph_node_us);
  cJSON_Delete(j);
}
END_TEST

Suite *make_profiles_suite(void) {
  Suite *s = suite_create("profiles");
  TCase *tc = tcase_create("core");
  /* The sanitizer run keeps every case in one process: start from the
   * built-in table whatever an earlier case calibrated. */
  tcase_add_checked_fixture(tc, lab_profile_clear_calibrated, NULL);
  tcase_add_test(tc, profiles_list_the_gpus_learners_and_classes_have);
  tcase_add_test(tc, the_default_profile_is_the_beginners_t4);
  tcase_add_test(tc, a_gpu_without_a_host_link_carries_no_link_figures);
  tcase_add_test(tc, a_profile_file_keeps_its_platform_and_needs_its_link_figures);
  tcase_add_test(tc, profiles_every_figure_has_one_source_with_a_link);
  tcase_add_test(tc, profiles_json_shows_each_figure_with_its_source);
  tcase_add_test(tc, simulated_methods_name_the_estimates);
  tcase_add_test(tc, tensor_core_support_follows_the_architecture);
  tcase_add_test(tc, a100_pageable_d2h_is_faster_than_h2d_as_measured);
  tcase_add_test(tc, a_throttled_host_link_slows_copies_and_says_so);
  suite_add_tcase(s, tc);
  return s;
}
