/* multi_gpu: its bounds and bad parameters, the model's invariants on every
 * profile it applies to (DDP never slower than DataParallel from 2 GPUs on
 * the same link, DP's GPU 0 always fuller, the ring all-reduce's bytes),
 * the cross-device error and its fix, CUDA_VISIBLE_DEVICES's renumbering,
 * NVLink only where a board has it, and a live run refused as such. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "exp_test.h"
#include "peer_link.h"
#include "profiles.h"
#include "registry.h"
#include "suites.h"

static cJSON *sim(const char *json, const char *profile) {
  lab_error err;
  memset(&err, 0, sizeof err);
  cJSON *env = test_exp_simulate("multi_gpu", json, profile, &err);
  ck_assert_msg(env != NULL, "simulate failed: %s", err.message);
  ck_assert_int_eq(lab_envelope_check(env, &err), 0);
  return env;
}

static const cJSON *detail(const cJSON *env, const char *a, const char *b) {
  return cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "details"), a), b);
}

START_TEST(multi_gpu_bounds_and_bad_params_are_refused_by_name) {
  test_exp_check_bounds("multi_gpu");
  lab_error err;
  memset(&err, 0, sizeof err);
  ck_assert_ptr_null(test_exp_simulate("multi_gpu", "{\"gpus\":9}", "t4", &err));
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(err.param, "gpus");
  memset(&err, 0, sizeof err);
  ck_assert_ptr_null(test_exp_simulate("multi_gpu", "{\"visible\":\"0,1,2\"}", "t4", &err));
  ck_assert_int_eq(err.code, LAB_E_INVALID_PARAM);
  ck_assert_str_eq(err.param, "visible");
}
END_TEST

/* From 2 GPUs on, on every profile, both links, small and large models:
 * DDP's step is never longer than DP's and DP's GPU 0 never holds less. */
START_TEST(multi_gpu_ddp_never_slower_than_dp_and_dp_gpu0_fuller) {
  static const char *const cases[] = {
      "{}", "{\"link\":\"nvlink\"}", "{\"gpus\":8,\"params_m\":2000,\"batch\":8}",
      "{\"gpus\":8,\"params_m\":1,\"batch\":4096,\"act_mib\":0.5}", "{\"gpus\":2,\"params_m\":1,\"batch\":8}",
      "{\"gpus\":8,\"link\":\"nvlink\",\"params_m\":350,\"batch\":512}"};
  int checked = 0;
  for (int i = 0; i < lab_profile_count(); i++) {
    if (!test_exp_applies("multi_gpu", i)) continue;
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      cJSON *env = sim(cases[c], lab_profile_at(i)->name);
      int n = (int)test_exp_metric(env, "gpus");
      for (int k = 1; k < n; k++) { /* point k is k+1 GPUs */
        ck_assert_msg(test_exp_y(env, "ddp_step", k) <= test_exp_y(env, "dp_step", k),
                      "%s %s: on %d GPUs DDP %g ms > DP %g ms", lab_profile_at(i)->name, cases[c], k + 1,
                      test_exp_y(env, "ddp_step", k), test_exp_y(env, "dp_step", k));
        ck_assert(test_exp_y(env, "ddp_gpu0", k) < test_exp_y(env, "dp_gpu0", k));
      }
      /* One GPU: both are the plain step. */
      ck_assert_double_eq_tol(test_exp_y(env, "ddp_step", 0), test_exp_y(env, "dp_step", 0), 1e-9);
      ck_assert_double_eq(test_exp_y(env, "ddp_gpu0", 0), test_exp_y(env, "dp_gpu0", 0));
      ck_assert(test_exp_metric(env, "ddp_exposed_ms") >= 0);
      ck_assert(test_exp_metric(env, "ddp_exposed_ms") <= test_exp_metric(env, "ddp_allreduce_ms") + 1e-12);
      cJSON_Delete(env);
      checked++;
    }
  }
  ck_assert_int_ge(checked, 6 * 8);
}
END_TEST

START_TEST(multi_gpu_allreduce_bytes_follow_the_ring_formula) {
  for (int n = 2; n <= 8; n++) {
    char json[64];
    snprintf(json, sizeof json, "{\"gpus\":%d,\"params_m\":100}", n);
    cJSON *env = sim(json, "a100-sxm");
    double g = test_exp_metric(env, "gradient_bytes");
    ck_assert_double_eq(g, 4e8); /* float32 gradients of 100 M parameters */
    ck_assert_double_eq_tol(test_exp_metric(env, "allreduce_bytes"), 2.0 * (n - 1) / n * g, 1e-3);
    cJSON_Delete(env);
  }
  ck_assert_double_eq(lab_ring_allreduce_bytes(1, 1e9), 0);
  /* Its time: the bytes over the bus bandwidth plus 2·(n−1) steps. */
  lab_peer_link l = {.busbw_gbps = 10, .step_us = 4};
  ck_assert_double_eq_tol(lab_ring_allreduce_us(&l, 4, 1e9), 1.5e9 / 1e4 + 6 * 4, 1e-6);
}
END_TEST

START_TEST(multi_gpu_a_batch_on_the_other_gpu_names_both_devices_and_the_fix) {
  cJSON *env = sim("{}", NULL); /* the default puts the batch on cuda:1 */
  ck_assert_double_eq(test_exp_metric(env, "cross_device_error"), 1);
  const cJSON *e = detail(env, "cross_device", "error");
  ck_assert(cJSON_IsString(e));
  ck_assert_ptr_nonnull(strstr(e->valuestring, "Expected all tensors to be on the same device, but found at least "
                                               "two devices, cuda:0 and cuda:1"));
  ck_assert(test_exp_finding_has(env, ".to("));
  cJSON_Delete(env);
  env = sim("{\"batch_on\":\"cuda:0\"}", NULL);
  ck_assert_double_eq(test_exp_metric(env, "cross_device_error"), 0);
  ck_assert(cJSON_IsNull(detail(env, "cross_device", "error")));
  cJSON_Delete(env);
}
END_TEST

START_TEST(multi_gpu_visible_devices_renumber_from_zero_and_stop_at_a_missing_gpu) {
  cJSON *env = sim("{\"gpus\":4,\"visible\":\"2,3\"}", NULL);
  const cJSON *devs = detail(env, "visible", "devices");
  ck_assert_int_eq(cJSON_GetArraySize(devs), 2);
  ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(devs, 0), "device")->valuestring, "cuda:0");
  ck_assert_double_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(devs, 0), "physical")->valuedouble, 2);
  ck_assert_double_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(devs, 1), "physical")->valuedouble, 3);
  ck_assert(test_exp_finding_has(env, "cuda:0 is the machine's GPU 2"));
  cJSON_Delete(env);
  env = sim("{\"gpus\":2,\"visible\":\"1,0\"}", NULL);
  ck_assert_double_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(detail(env, "visible", "devices"), 0), "physical")
                          ->valuedouble, 1);
  cJSON_Delete(env);
  /* GPU 2 is not there on a machine of 2: CUDA sees nothing, and the step cannot even start. */
  env = sim("{\"gpus\":2,\"visible\":\"2,3\"}", NULL);
  ck_assert_double_eq(test_exp_metric(env, "visible_count"), 0);
  ck_assert_str_eq(detail(env, "cross_device", "error")->valuestring, "RuntimeError: No CUDA GPUs are available");
  cJSON_Delete(env);
  env = sim("{\"gpus\":2,\"visible\":\"1\"}", NULL);
  ck_assert_double_eq(test_exp_metric(env, "visible_count"), 1);
  ck_assert_ptr_nonnull(strstr(detail(env, "cross_device", "error")->valuestring, "invalid device ordinal"));
  cJSON_Delete(env);
}
END_TEST

START_TEST(multi_gpu_nvlink_only_where_the_board_has_it_and_faster_than_pcie) {
  for (int i = 0; i < lab_profile_count(); i++) {
    if (!test_exp_applies("multi_gpu", i)) continue;
    const lab_profile *p = lab_profile_at(i);
    cJSON *pcie = sim("{\"link\":\"pcie\",\"params_m\":300}", p->name);
    cJSON *nv = sim("{\"link\":\"nvlink\",\"params_m\":300}", p->name);
    ck_assert_double_eq(test_exp_metric(pcie, "nvlink"), 0);
    ck_assert_double_eq(test_exp_metric(nv, "nvlink"), lab_peer_nvlink_exists(p));
    if (lab_peer_nvlink_exists(p)) {
      ck_assert(test_exp_metric(nv, "link_busbw_gbps") > 3 * test_exp_metric(pcie, "link_busbw_gbps"));
      ck_assert(test_exp_metric(nv, "ddp_step_ms") < test_exp_metric(pcie, "ddp_step_ms"));
    } else {
      ck_assert_msg(test_exp_finding_has(nv, "has no NVLink"), "%s: asked for NVLink, not told it has none", p->name);
    }
    cJSON_Delete(pcie);
    cJSON_Delete(nv);
  }
  ck_assert(lab_peer_nvlink_exists(lab_profile_find("h100-sxm")) && !lab_peer_nvlink_exists(lab_profile_find("t4")));
}
END_TEST

START_TEST(multi_gpu_has_no_live_run_and_no_meaning_on_an_apple_gpu) {
  const lab_experiment *e = lab_experiment_find("multi_gpu");
  ck_assert(!lab_experiment_has_kernel(e) && !lab_experiment_is_device_check(e));
  lab_error err;
  memset(&err, 0, sizeof err);
  ck_assert_ptr_null(test_exp_simulate("multi_gpu", NULL, "m1-pro", &err));
  ck_assert_int_eq(err.code, LAB_E_NOT_APPLICABLE);
  ck_assert_ptr_nonnull(strstr(err.message, "one GPU"));
}
END_TEST

/* The memory findings hold at their edges: a step too big for one T4 that
 * fits when split, and one that fits on none, are told apart. */
START_TEST(multi_gpu_memory_findings_tell_split_from_never) {
  cJSON *env = sim("{\"gpus\":8,\"batch\":512,\"act_mib\":64}", "t4");
  ck_assert(test_exp_finding_has(env, "it fits only when split"));
  ck_assert(!test_exp_finding_has(env, "Even on 8 GPUs"));
  cJSON_Delete(env);
  env = sim("{\"gpus\":8,\"params_m\":2000,\"batch\":64,\"act_mib\":200}", "t4");
  ck_assert(test_exp_finding_has(env, "Even on 8 GPUs"));
  ck_assert(!test_exp_finding_has(env, "it fits only when split"));
  ck_assert(!test_exp_finding_has(env, "runs out of memory first"));
  cJSON_Delete(env);
  env = sim("{}", "h100-sxm");
  ck_assert(!test_exp_finding_has(env, "fits only when split") && !test_exp_finding_has(env, "Even on"));
  cJSON_Delete(env);
}
END_TEST

TEST_EXPERIMENT_SUITE(multi_gpu);

TEST_EXPERIMENT_SUITE(multi_gpu) {
  Suite *s = suite_create("multi_gpu");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, multi_gpu_bounds_and_bad_params_are_refused_by_name);
  tcase_add_test(tc, multi_gpu_ddp_never_slower_than_dp_and_dp_gpu0_fuller);
  tcase_add_test(tc, multi_gpu_allreduce_bytes_follow_the_ring_formula);
  tcase_add_test(tc, multi_gpu_a_batch_on_the_other_gpu_names_both_devices_and_the_fix);
  tcase_add_test(tc, multi_gpu_visible_devices_renumber_from_zero_and_stop_at_a_missing_gpu);
  tcase_add_test(tc, multi_gpu_nvlink_only_where_the_board_has_it_and_faster_than_pcie);
  tcase_add_test(tc, multi_gpu_has_no_live_run_and_no_meaning_on_an_apple_gpu);
  tcase_add_test(tc, multi_gpu_memory_findings_tell_split_from_never);
  suite_add_tcase(s, tc);
  return s;
}
