/* The device check: every verdict from pairs of views, the JSON views, the
 * simulated views, nvidia-smi parsing, and paths under the web root. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cjson_compat.h"
#include "device.h"
#include "driver_probe.h"
#include "envelope.h"
#include "files.h"
#include "registry.h"
#include "suites.h"

static lab_driver_view no_driver(void) {
  lab_driver_view d;
  memset(&d, 0, sizeof d);
  snprintf(d.error, sizeof d.error, "NVML is not installed");
  return d;
}

static lab_driver_view driver(int cuda_version) {
  lab_driver_view d;
  memset(&d, 0, sizeof d);
  d.source = LAB_DRV_SMI;
  d.present = true;
  d.cuda_version = cuda_version;
  d.device_count = 1;
  snprintf(d.dev[0].name, sizeof d.dev[0].name, "NVIDIA T4");
  return d;
}

static lab_runtime_view runtime(lab_rt_status st, int driver_api, int count) {
  lab_runtime_view r;
  memset(&r, 0, sizeof r);
  r.status = st;
  r.runtime_version = 13000;
  r.driver_api_version = driver_api;
  r.device_count = count;
  if (count) snprintf(r.dev[0].name, sizeof r.dev[0].name, "NVIDIA T4");
  return r;
}

START_TEST(verdict_no_driver_when_nothing_answers) {
  lab_driver_view d = no_driver();
  lab_runtime_view r = runtime(LAB_RT_INSUFFICIENT_DRIVER, 0, 0);
  lab_verdict v;
  lab_device_verdict(&d, &r, &v);
  ck_assert_int_eq(v.code, LAB_V_NO_DRIVER);
  ck_assert(!v.usable);
  ck_assert_str_eq(v.summary, "no usable GPU: the CUDA driver is missing");
}
END_TEST

START_TEST(verdict_driver_too_old_names_both_versions) {
  lab_driver_view d = driver(12040);
  lab_runtime_view r = runtime(LAB_RT_INSUFFICIENT_DRIVER, 12040, 0);
  lab_verdict v;
  lab_device_verdict(&d, &r, &v);
  ck_assert_int_eq(v.code, LAB_V_DRIVER_TOO_OLD);
  ck_assert_ptr_nonnull(strstr(v.summary, "12.4"));
  ck_assert_ptr_nonnull(strstr(v.summary, "13.0"));
  ck_assert_ptr_nonnull(strstr(v.explanation, "nvidia-smi works"));
}
END_TEST

START_TEST(verdict_no_device_mentions_visible_devices) {
  lab_driver_view d = driver(13000);
  lab_runtime_view r = runtime(LAB_RT_NO_DEVICE, 13000, 0);
  lab_verdict v;
  lab_device_verdict(&d, &r, &v);
  ck_assert_int_eq(v.code, LAB_V_NO_DEVICE);
  ck_assert_ptr_nonnull(strstr(v.explanation, "CUDA_VISIBLE_DEVICES"));
  r = runtime(LAB_RT_OK, 13000, 0); /* OK with zero devices is the same story */
  lab_device_verdict(&d, &r, &v);
  ck_assert_int_eq(v.code, LAB_V_NO_DEVICE);
}
END_TEST

START_TEST(verdict_usable_and_not_built_and_error) {
  lab_driver_view d = driver(13000);
  lab_runtime_view r = runtime(LAB_RT_OK, 13000, 1);
  lab_verdict v;
  lab_device_verdict(&d, &r, &v);
  ck_assert_int_eq(v.code, LAB_V_USABLE);
  ck_assert(v.usable);
  ck_assert_ptr_nonnull(strstr(v.summary, "NVIDIA T4"));
  r = runtime(LAB_RT_NOT_BUILT, 0, 0);
  lab_device_verdict(&d, &r, &v);
  ck_assert_int_eq(v.code, LAB_V_NOT_BUILT);
  ck_assert_ptr_nonnull(strstr(v.explanation, "does see a GPU"));
  r = runtime(LAB_RT_ERROR, 13000, 0);
  snprintf(r.error_name, sizeof r.error_name, "cudaErrorECCUncorrectable");
  lab_device_verdict(&d, &r, &v);
  ck_assert_int_eq(v.code, LAB_V_RUNTIME_ERROR);
  ck_assert_ptr_nonnull(strstr(v.summary, "cudaErrorECCUncorrectable"));
}
END_TEST

/* A V100 (7.0) under a build for sm_75 and newer: the runtime works, the
 * kernels cannot. The verdict says so and why, and is not "usable". */
START_TEST(verdict_names_a_gpu_older_than_the_build) {
  lab_driver_view d = driver(13000);
  lab_runtime_view r = runtime(LAB_RT_OK, 13000, 1);
  snprintf(r.dev[0].name, sizeof r.dev[0].name, "Tesla V100-SXM2-16GB");
  r.dev[0].cc_major = 7, r.dev[0].cc_minor = 0;
  r.n_archs = 3, r.archs[0] = 75, r.archs[1] = 80, r.archs[2] = 90, r.ptx_arch = 90;
  lab_verdict v;
  lab_device_verdict(&d, &r, &v);
  ck_assert_int_eq(v.code, LAB_V_ARCH_UNSUPPORTED);
  ck_assert(!v.usable);
  ck_assert_str_eq(lab_verdict_code_name(v.code), "arch_unsupported");
  ck_assert_ptr_nonnull(strstr(v.summary, "7.0"));
  ck_assert_ptr_nonnull(strstr(v.explanation, "7.5"));
  ck_assert_ptr_nonnull(strstr(v.advice, "CUDA 12"));
  /* A T4 (7.5) and an RTX 4090 (8.9, runs the sm_80 code) are fine. */
  r.dev[0].cc_major = 7, r.dev[0].cc_minor = 5;
  lab_device_verdict(&d, &r, &v);
  ck_assert_int_eq(v.code, LAB_V_USABLE);
  r.dev[0].cc_major = 8, r.dev[0].cc_minor = 9;
  lab_device_verdict(&d, &r, &v);
  ck_assert_int_eq(v.code, LAB_V_USABLE);
  /* Without the build's list (an older worker), nothing is assumed. */
  r.n_archs = 0, r.dev[0].cc_major = 7, r.dev[0].cc_minor = 0;
  lab_device_verdict(&d, &r, &v);
  ck_assert_int_eq(v.code, LAB_V_USABLE);
}
END_TEST

START_TEST(runtime_view_json_round_trips) {
  lab_runtime_view r = runtime(LAB_RT_OK, 13000, 1), back;
  r.dev[0].cc_major = 7;
  r.dev[0].cc_minor = 5;
  r.dev[0].sm_count = 40;
  r.dev[0].mem_total_bytes = 16000000000ull;
  cJSON *o = lab_runtime_view_json(&r);
  lab_error err;
  ck_assert_int_eq(lab_runtime_view_from_json(o, &back, &err), 0);
  ck_assert_int_eq(back.status, LAB_RT_OK);
  ck_assert_int_eq(back.runtime_version, 13000);
  ck_assert_int_eq(back.dev[0].sm_count, 40);
  ck_assert_int_eq(back.dev[0].cc_minor, 5);
  ck_assert(back.dev[0].mem_total_bytes == 16000000000ull);
  ck_assert(!back.dev[0].mem_free_known); /* not read: null, not 0 */
  cJSON_Delete(o);
  r.n_archs = 2, r.archs[0] = 75, r.archs[1] = 90, r.ptx_arch = 90;
  r.dev[0].mem_free_known = true, r.dev[0].mem_free_bytes = 123;
  o = lab_runtime_view_json(&r);
  ck_assert_int_eq(lab_runtime_view_from_json(o, &back, &err), 0);
  ck_assert_int_eq(back.n_archs, 2);
  ck_assert_int_eq(back.archs[1], 90);
  ck_assert_int_eq(back.ptx_arch, 90);
  ck_assert(back.dev[0].mem_free_known && back.dev[0].mem_free_bytes == 123);
  cJSON_Delete(o);
  o = cJSON_Parse("{\"status\":\"weird\",\"devices\":[]}");
  ck_assert_int_eq(lab_runtime_view_from_json(o, &back, &err), -1);
  cJSON_Delete(o);
}
END_TEST

START_TEST(device_json_has_both_views_and_verdict) {
  lab_driver_view d = no_driver();
  lab_runtime_view r = runtime(LAB_RT_INSUFFICIENT_DRIVER, 0, 0);
  cJSON *o = lab_device_json(&d, &r);
  cJSON *verdict = cJSON_GetObjectItem(o, "verdict");
  ck_assert_str_eq(cJSON_GetObjectItem(verdict, "code")->valuestring, "no_driver");
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(verdict, "simulate")));
  ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "driver"), "source")->valuestring, "none");
  ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "runtime"), "runtime_version")->valuestring, "13.0");
  cJSON_Delete(o);
}
END_TEST

START_TEST(simulated_views_are_usable_for_every_profile) {
  for (int i = 0; i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    lab_driver_view d;
    lab_runtime_view r;
    lab_verdict v;
    lab_device_simulate_views(p, &d, &r);
    lab_device_verdict(&d, &r, &v);
    ck_assert(v.usable);
    ck_assert_str_eq(r.dev[0].name, p->device_name);
    ck_assert(r.dev[0].mem_free_bytes < r.dev[0].mem_total_bytes);
  }
}
END_TEST

START_TEST(device_envelope_reports_machine_findings) {
  const lab_experiment *e = lab_experiment_find("device");
  cJSON *params = cJSON_Parse("{\"index\":0}"), *out = NULL;
  lab_error err;
  ck_assert_int_eq(lab_simulate(e, params, "a100-sxm", &out, &err), 0);
  ck_assert_int_eq(lab_envelope_check(out, &err), 0);
  const cJSON *f = cJSON_GetArrayItem(cJSON_GetObjectItem(out, "findings"), 2);
  ck_assert_ptr_nonnull(strstr(f->valuestring, "108 SMs"));
  ck_assert_ptr_nonnull(cJSON_GetObjectItem(cJSON_GetObjectItem(out, "details"), "views"));
  cJSON_Delete(out);
  cJSON_Delete(params);
}
END_TEST

START_TEST(smi_csv_parses_devices_in_bytes) {
  lab_driver_view d;
  memset(&d, 0, sizeof d);
  const char *csv =
      "NVIDIA H100 80GB HBM3, 81559, 80000, 580.65.06, 00000000:19:00.0\n"
      "Tesla T4, 15360, 15000, 580.65.06, 00000000:3B:00.0\n"
      "garbage line\n";
  ck_assert_int_eq(srv_parse_smi_csv(csv, &d), 2);
  ck_assert_int_eq(d.device_count, 2);
  ck_assert_str_eq(d.dev[0].name, "NVIDIA H100 80GB HBM3");
  ck_assert(d.dev[0].mem_total_bytes == 81559ull * 1048576ull);
  ck_assert_str_eq(d.driver_version, "580.65.06");
  ck_assert_str_eq(d.dev[1].bus_id, "00000000:3B:00.0");
  ck_assert_int_eq(srv_parse_smi_cuda_version("| NVIDIA-SMI 580.65  Driver Version: 580.65  CUDA Version: 13.0 |"),
                   13000);
  ck_assert_int_eq(srv_parse_smi_cuda_version("no banner"), 0);
}
END_TEST

START_TEST(driver_probe_reports_why_without_driver) {
  setenv("GPULAB_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
  setenv("GPULAB_NVIDIA_SMI", "/nonexistent/nvidia-smi", 1);
  lab_driver_view d;
  srv_driver_probe(&d);
  ck_assert(!d.present);
  ck_assert_int_eq(d.source, LAB_DRV_NONE);
  ck_assert_ptr_nonnull(strstr(d.error, "NVML is not installed"));
  ck_assert_ptr_nonnull(strstr(d.error, "nvidia-smi was not found"));
  unsetenv("GPULAB_NVML_LIB");
  unsetenv("GPULAB_NVIDIA_SMI");
}
END_TEST

START_TEST(paths_stay_under_the_root) {
  char root[] = "/tmp/gpulab-rootXXXXXX", path[4096], file[4200];
  ck_assert_ptr_nonnull(mkdtemp(root));
  snprintf(file, sizeof file, "%s/a.txt", root);
  FILE *f = fopen(file, "w");
  fputs("hi", f);
  fclose(f);
  snprintf(file, sizeof file, "%s/out", root);
  ck_assert_int_eq(symlink("/etc", file), 0);
  ck_assert_int_eq(srv_resolve_under(root, "/a.txt", path, sizeof path), 0);
  ck_assert_int_eq(srv_resolve_under(root, "/../etc/passwd", path, sizeof path), -1);
  ck_assert_int_eq(srv_resolve_under(root, "/x/..", path, sizeof path), -1);
  ck_assert_int_eq(srv_resolve_under(root, "/out/passwd", path, sizeof path), -1);
  ck_assert_int_eq(srv_resolve_under(root, "a.txt", path, sizeof path), -1);
  ck_assert_int_eq(srv_resolve_under(root, "/a\\b", path, sizeof path), -1);
  ck_assert_int_eq(srv_resolve_under(root, "/missing", path, sizeof path), -1);
  char *buf;
  size_t len;
  snprintf(file, sizeof file, "%s/a.txt", root);
  ck_assert_int_eq(srv_read_file(file, 100, &buf, &len), 0);
  ck_assert_str_eq(buf, "hi");
  free(buf);
  ck_assert_int_eq(srv_read_file(file, 1, &buf, &len), -1);
  ck_assert_int_eq(srv_read_file(root, 100, &buf, &len), -1);
  unlink(file);
  snprintf(file, sizeof file, "%s/out", root);
  unlink(file);
  rmdir(root);
}
END_TEST

TEST_EXPERIMENT_SUITE(device);

TEST_EXPERIMENT_SUITE(device) {
  Suite *s = suite_create("device");
  TCase *t = tcase_create("core");
  tcase_add_test(t, verdict_no_driver_when_nothing_answers);
  tcase_add_test(t, verdict_driver_too_old_names_both_versions);
  tcase_add_test(t, verdict_no_device_mentions_visible_devices);
  tcase_add_test(t, verdict_usable_and_not_built_and_error);
  tcase_add_test(t, verdict_names_a_gpu_older_than_the_build);
  tcase_add_test(t, runtime_view_json_round_trips);
  tcase_add_test(t, device_json_has_both_views_and_verdict);
  tcase_add_test(t, simulated_views_are_usable_for_every_profile);
  tcase_add_test(t, device_envelope_reports_machine_findings);
  tcase_add_test(t, smi_csv_parses_devices_in_bytes);
  tcase_add_test(t, driver_probe_reports_why_without_driver);
  tcase_add_test(t, paths_stay_under_the_root);
  suite_add_tcase(s, t);
  return s;
}
