/* The small parts of a class on a cluster that need no database: --workers,
 * --gpu through CUDA_VISIBLE_DEVICES, a store's place in messages (never
 * its password), --trusted-proxy's parsing, which failures are a worker's
 * fault, and the per-worker metrics. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "client_addr.h"
#include "config.h"
#include "gpu_worker.h"
#include "store.h"
#include "suites.h"
#include "worker_health.h"
#include "workers_metrics.h"
#include "workers_spec.h"

START_TEST(workers_spec_takes_local_none_and_slurm) {
  srv_workers_spec w;
  char msg[300];
  ck_assert_int_eq(srv_workers_spec_parse("local", &w, msg, sizeof msg), 0);
  ck_assert_int_eq(w.mode, SRV_WORKERS_LOCAL);
  ck_assert_int_eq(srv_workers_spec_parse("none", &w, msg, sizeof msg), 0);
  ck_assert_int_eq(w.mode, SRV_WORKERS_NONE);
  ck_assert_int_eq(srv_workers_spec_parse("slurm:4", &w, msg, sizeof msg), 0);
  ck_assert_int_eq(w.mode, SRV_WORKERS_SLURM);
  ck_assert_int_eq(w.count, 4);
  ck_assert_str_eq(w.partition, "");
  ck_assert_int_eq(srv_workers_spec_parse("slurm:16,partition=gpu-a100,time=1-00:00:00", &w, msg, sizeof msg), 0);
  ck_assert_int_eq(w.count, 16);
  ck_assert_str_eq(w.partition, "gpu-a100");
  ck_assert_str_eq(w.time, "1-00:00:00");
  static const char *const bad[] = {"", "slurm", "slurm:", "slurm:0", "slurm:257", "slurm:2x", "slurm:2,partition=",
                                    "slurm:2,partition=a b", "slurm:2,partition=x;rm", "slurm:2,time=4h",
                                    "slurm:2,qos=high", "remote", "slurm:-1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_msg(srv_workers_spec_parse(bad[i], &w, msg, sizeof msg) == -1, "%s accepted", bad[i]);
    ck_assert_ptr_nonnull(strstr(msg, "--workers must be local, none or slurm:N"));
  }
}
END_TEST

START_TEST(worker_gpu_index_is_among_the_visible_devices) {
  char d[64];
  ck_assert_int_eq(srv_gpu_visible_device(NULL, 0, d, sizeof d), 0);
  ck_assert_str_eq(d, "0");
  ck_assert_int_eq(srv_gpu_visible_device("", 3, d, sizeof d), 0);
  ck_assert_str_eq(d, "3");
  ck_assert_int_eq(srv_gpu_visible_device("2,3", 0, d, sizeof d), 0);
  ck_assert_str_eq(d, "2");
  ck_assert_int_eq(srv_gpu_visible_device("2,3", 1, d, sizeof d), 0);
  ck_assert_str_eq(d, "3");
  ck_assert_int_eq(srv_gpu_visible_device("2,3", 2, d, sizeof d), -1);
  ck_assert_int_eq(srv_gpu_visible_device("GPU-8f2c1e2a-aaaa,MIG-1", 1, d, sizeof d), 0);
  ck_assert_str_eq(d, "MIG-1");
  ck_assert_int_eq(srv_gpu_visible_device("1,,2", 1, d, sizeof d), -1);
  ck_assert_int_eq(srv_gpu_visible_device("1", -1, d, sizeof d), -1);
}
END_TEST

START_TEST(store_where_never_shows_a_password) {
  char out[256];
  srv_store_where("postgresql://gpulab:s3cret@db.example:5432/cs101", out, sizeof out);
  ck_assert_str_eq(out, "postgresql://gpulab:***@db.example:5432/cs101");
  srv_store_where("postgresql://gpulab@db/cs101?password=s3cret&sslmode=require", out, sizeof out);
  ck_assert_str_eq(out, "postgresql://gpulab@db/cs101");
  srv_store_where("postgres://db/cs101", out, sizeof out);
  ck_assert_str_eq(out, "postgres://db/cs101");
  srv_store_where("sqlite:/var/lib/c.db", out, sizeof out);
  ck_assert_str_eq(out, "/var/lib/c.db");
  srv_store_where("c.db", out, sizeof out);
  ck_assert_str_eq(out, "c.db");
  ck_assert(srv_store_spec_is_pg("postgres://x"));
  ck_assert(!srv_store_spec_is_pg("postgresql:x"));
}
END_TEST

START_TEST(trusted_proxies_are_addresses) {
  char msg[200];
  ck_assert_int_eq(srv_trusted_proxies_set("127.0.0.1", msg, sizeof msg), 0);
  ck_assert_int_eq(srv_trusted_proxies_set("10.0.0.5,::1", msg, sizeof msg), 0);
  static const char *const bad[] = {"", "localhost", "10.0.0.5,", "10.0.0.5,,10.0.0.6", "10.0.0.300", "10.0.0.0/8"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_msg(srv_trusted_proxies_set(bad[i], msg, sizeof msg) == -1, "%s accepted", bad[i]);
    ck_assert_ptr_nonnull(strstr(msg, "--trusted-proxy must be"));
  }
}
END_TEST

START_TEST(a_run_failed_by_its_gpu_is_the_workers_fault_not_by_its_sizes) {
  ck_assert(srv_worker_fault(LAB_E_NO_GPU));
  ck_assert(srv_worker_fault(LAB_E_CUDA));
  ck_assert(srv_worker_fault(LAB_E_WORKER_CRASHED));
  ck_assert(srv_worker_fault(LAB_E_GPU_ARCH));
  ck_assert(!srv_worker_fault(LAB_E_GPU_OOM));
  ck_assert(!srv_worker_fault(LAB_E_DEADLINE));
  ck_assert(!srv_worker_fault(LAB_E_CUDA_CALL));
  ck_assert(!srv_worker_fault(LAB_E_INVALID_PARAM));
  srv_store_worker_health h;
  srv_worker_check(NULL, &h); /* no runner: its server checked the GPU */
  ck_assert(h.usable);
  ck_assert(h.mem_total_bytes < 0);
}
END_TEST

START_TEST(worker_metrics_escape_a_reason_and_skip_unknown_memory) {
  cJSON *list = cJSON_Parse(
      "[{\"id\":3,\"host\":\"n1\",\"kind\":\"worker\",\"alive\":true,\"usable\":false,"
      "\"unusable_reason\":\"no \\\"GPU\\\"\\n\\\\x\",\"runs_done\":0,\"runs_failed\":2,"
      "\"gpu_memory_total_bytes\":null,\"heartbeat_age_s\":0.5},"
      "{\"id\":4,\"host\":\"n2\",\"kind\":\"slurm\",\"alive\":false,\"usable\":true,\"unusable_reason\":\"\","
      "\"runs_done\":7,\"runs_failed\":0,\"gpu_memory_total_bytes\":1024,\"heartbeat_age_s\":30}]");
  ck_assert_ptr_nonnull(list);
  char *text = srv_workers_metrics(list);
  ck_assert_ptr_nonnull(text);
  ck_assert_ptr_nonnull(
      strstr(text, "gpulab_worker_usable{worker=\"3\",host=\"n1\",kind=\"worker\",reason=\"no \\\"GPU\\\"\\n\\\\x\"} 0\n"));
  ck_assert_ptr_nonnull(strstr(text, "gpulab_worker_usable{worker=\"4\",host=\"n2\",kind=\"slurm\",reason=\"gone\"} 0\n"));
  ck_assert_ptr_nonnull(strstr(text, "gpulab_worker_failures_total{worker=\"3\"} 2\n"));
  ck_assert_ptr_nonnull(strstr(text, "gpulab_worker_runs_total{worker=\"4\"} 7\n"));
  ck_assert_ptr_nonnull(strstr(text, "gpulab_worker_gpu_memory_total_bytes{worker=\"4\"} 1024\n"));
  ck_assert_ptr_null(strstr(text, "gpulab_worker_gpu_memory_total_bytes{worker=\"3\"}"));
  ck_assert_ptr_nonnull(strstr(text, "gpulab_worker_last_seen_seconds{worker=\"3\"} 0.5\n"));
  free(text);
  cJSON_Delete(list);
}
END_TEST

Suite *make_cluster_suite(void) {
  Suite *s = suite_create("cluster");
  TCase *t = tcase_create("parts");
  tcase_add_test(t, workers_spec_takes_local_none_and_slurm);
  tcase_add_test(t, worker_gpu_index_is_among_the_visible_devices);
  tcase_add_test(t, store_where_never_shows_a_password);
  tcase_add_test(t, trusted_proxies_are_addresses);
  tcase_add_test(t, a_run_failed_by_its_gpu_is_the_workers_fault_not_by_its_sizes);
  tcase_add_test(t, worker_metrics_escape_a_reason_and_skip_unknown_memory);
  suite_add_tcase(s, t);
  return s;
}
