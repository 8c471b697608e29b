/* /metrics exposition (Prometheus text 0.0.4) and the request log line:
 * counts by status, a cumulative run-time histogram, gauges, and a log
 * line that names the session id and cannot be forged through the path. */
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "request_id.h"
#include "suites.h"

static char *render(void) {
  srv_metrics_gauges g = {.queue_length = 3, .queue_running = 1, .worker_restarts = 2, .sessions_active = 5, .gpus = 1};
  g.gpu_used_bytes[0] = 1024;
  g.gpu_total_bytes[0] = 4096;
  char *t = srv_metrics_text(&g);
  ck_assert_ptr_nonnull(t);
  return t;
}

START_TEST(metrics_count_requests_by_status_code) {
  srv_metrics_reset();
  srv_metrics_request(200);
  srv_metrics_request(200);
  srv_metrics_request(429);
  srv_metrics_request(42); /* not an HTTP status: ignored */
  char *t = render();
  ck_assert_ptr_nonnull(strstr(t, "# TYPE gpulab_requests_total counter\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_requests_total{code=\"200\"} 2\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_requests_total{code=\"429\"} 1\n"));
  ck_assert_ptr_null(strstr(t, "code=\"42\""));
  free(t);
}
END_TEST

START_TEST(metrics_run_histogram_is_cumulative) {
  srv_metrics_reset();
  srv_metrics_run(0.05, "done");
  srv_metrics_run(0.3, "done");
  srv_metrics_run(7, "failed");
  srv_metrics_run(0, "cancelled"); /* counted by status, not timed */
  char *t = render();
  ck_assert_ptr_nonnull(strstr(t, "gpulab_run_seconds_bucket{le=\"0.1\"} 1\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_run_seconds_bucket{le=\"0.5\"} 2\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_run_seconds_bucket{le=\"5\"} 2\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_run_seconds_bucket{le=\"10\"} 3\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_run_seconds_bucket{le=\"+Inf\"} 3\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_run_seconds_count 3\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_run_seconds_sum 7.350000\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_runs_total{status=\"cancelled\"} 1\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_runs_total{status=\"failed\"} 1\n"));
  free(t);
}
END_TEST

START_TEST(metrics_show_the_gauges_given) {
  srv_metrics_reset();
  char *t = render();
  ck_assert_ptr_nonnull(strstr(t, "gpulab_queue_length 3\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_worker_restarts_total 2\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_sessions_active 5\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_gpu_memory_used_bytes{gpu=\"0\"} 1024\n"));
  ck_assert_ptr_nonnull(strstr(t, "gpulab_gpu_memory_total_bytes{gpu=\"0\"} 4096\n"));
  /* Every line is a comment or "name[{labels}] value". */
  for (char *line = t; *line;) {
    char *nl = strchr(line, '\n');
    ck_assert_ptr_nonnull(nl);
    ck_assert(line[0] == '#' || strncmp(line, "gpulab_", 7) == 0);
    line = nl + 1;
  }
  free(t);
}
END_TEST

/* The runs on the server's CPU by kind and the reader uploads: each
 * family with its HELP and TYPE, every label value, zeros too. */
START_TEST(metrics_show_cpu_runs_by_kind_and_reader_uploads) {
  srv_metrics_gauges g = {.run_kinds = 2, .run_kind = {"simulated", "reader"}, .cpu_slots = 4, .reader_slots = 2,
                          .runs_in_slots = {3, 1}, .runs_waiting = {2, 0}, .runs_busy = {7, 5},
                          .runs_abandoned = {4, 1}, .reader_uploads = 12, .reader_uploads_max = 16,
                          .reader_refused = {52, 1, 0}, .reader_cut = {0, 3}};
  char *t = srv_metrics_text(&g);
  ck_assert_ptr_nonnull(t);
  const char *want[] = {"gpulab_cpu_slots{kind=\"all\"} 4\n", "gpulab_cpu_slots{kind=\"reader\"} 2\n",
                        "# TYPE gpulab_cpu_runs_running gauge\n", "gpulab_cpu_runs_running{kind=\"simulated\"} 3\n",
                        "gpulab_cpu_runs_waiting{kind=\"simulated\"} 2\n", "# TYPE gpulab_cpu_runs_busy_total counter\n",
                        "gpulab_cpu_runs_busy_total{kind=\"reader\"} 5\n",
                        "gpulab_cpu_runs_abandoned_total{kind=\"simulated\"} 4\n", "gpulab_reader_uploads 12\n",
                        "gpulab_reader_uploads_max 16\n", "gpulab_reader_refused_total{reason=\"address\"} 52\n",
                        "gpulab_reader_refused_total{reason=\"server\"} 0\n",
                        "gpulab_reader_cut_total{reason=\"cpu_budget\"} 3\n"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) ck_assert_msg(strstr(t, want[i]), "missing: %s", want[i]);
  free(t);
  t = render(); /* no gate, no reader bounds (a test's bare gauges): no such families */
  ck_assert_ptr_null(strstr(t, "gpulab_cpu_runs"));
  ck_assert_ptr_null(strstr(t, "gpulab_reader_"));
  free(t);
}
END_TEST

START_TEST(log_line_names_the_session_not_the_query) {
  char buf[512];
  srv_log_line(buf, sizeof buf, "2025-01-01T00:00:00Z", "5f0c1d2e3a4b5c6d", "127.0.0.1", "GET", "/api/runs/7", 200,
               1.25, 42);
  ck_assert_str_eq(buf, "time=2025-01-01T00:00:00Z id=5f0c1d2e3a4b5c6d remote=127.0.0.1 method=GET path=/api/runs/7 status=200 ms=1.2 "
                        "session=42");
  srv_log_line(buf, sizeof buf, "t", NULL, "::1", "POST", "/api/class/join", 403, 0.5, 0);
  ck_assert_ptr_nonnull(strstr(buf, " session=-"));
  ck_assert_ptr_nonnull(strstr(buf, " id=- "));
}
END_TEST

START_TEST(log_line_escapes_what_could_forge_a_field) {
  char buf[512];
  srv_log_line(buf, sizeof buf, "t", "x", "1.2.3.4", "GET", "/a b\nstatus=200 session=1\"%", 404, 1, 0);
  ck_assert_ptr_null(strchr(buf, '\n'));
  ck_assert_ptr_nonnull(strstr(buf, "path=/a%20b%0Astatus=200%20session=1%22%25 status=404"));
  /* A tiny buffer is cut, never overrun. */
  char small[24];
  size_t n = srv_log_line(small, sizeof small, "t", "x", "1.2.3.4", "GET", "/very/long/path/indeed", 200, 1, 9);
  ck_assert(n < sizeof small);
  ck_assert_uint_eq(strlen(small), n);
}
END_TEST

/* A shared store's totals: the families appear only when known, with the
 * states in order and the wait buckets cumulative as given. */
START_TEST(metrics_course_families_only_when_the_store_answered) {
  srv_metrics_gauges g = {.sessions_active = -1, .workers_alive = -1};
  char *t = srv_metrics_text(&g);
  ck_assert_ptr_null(strstr(t, "gpulab_course_runs"));
  ck_assert_ptr_null(strstr(t, "gpulab_queue_wait_seconds"));
  free(t);
  static const char *const states[] = {"queued", "done"};
  g.course_known = 1;
  g.course_states = 2;
  g.course_state = states;
  g.course_runs[0] = 4;
  g.course_runs[1] = 9;
  g.wait_buckets = 2;
  g.wait_le_s[0] = 0.5;
  g.wait_le_s[1] = 10;
  g.wait_le[0] = 6;
  g.wait_le[1] = 8;
  g.waited = 9;
  g.waited_s = 42.5;
  t = srv_metrics_text(&g);
  ck_assert_ptr_nonnull(strstr(t, "# TYPE gpulab_course_runs gauge\ngpulab_course_runs{state=\"queued\"} 4\n"
                                  "gpulab_course_runs{state=\"done\"} 9\n"));
  ck_assert_ptr_nonnull(strstr(t, "# TYPE gpulab_queue_wait_seconds histogram\n"
                                  "gpulab_queue_wait_seconds_bucket{le=\"0.5\"} 6\n"
                                  "gpulab_queue_wait_seconds_bucket{le=\"10\"} 8\n"
                                  "gpulab_queue_wait_seconds_bucket{le=\"+Inf\"} 9\n"
                                  "gpulab_queue_wait_seconds_sum 42.500\n"
                                  "gpulab_queue_wait_seconds_count 9\n"));
  free(t);
}
END_TEST

START_TEST(request_id_keeps_only_sane_incoming_ids) {
  ck_assert(srv_request_id_sane("abc.DEF_1:2-3"));
  ck_assert(srv_request_id_sane("0123456789012345678901234567890123456789012345678901234567890123")); /* 64 */
  ck_assert(!srv_request_id_sane("01234567890123456789012345678901234567890123456789012345678901234")); /* 65 */
  ck_assert(!srv_request_id_sane(""));
  ck_assert(!srv_request_id_sane(NULL));
  ck_assert(!srv_request_id_sane("a b"));
  ck_assert(!srv_request_id_sane("a\r\nSet-Cookie: x=1"));
  ck_assert(!srv_request_id_sane("a\"b"));
  char h[SRV_REQUEST_ID_MAX + 32];
  srv_request_id_reset(); /* outside a request: no header, an empty id */
  srv_request_id_header(h, sizeof h);
  ck_assert_str_eq(h, "");
  ck_assert_str_eq(srv_request_id(), "");
  srv_request_id_begin(NULL); /* no connection: a made id */
  ck_assert_uint_eq(strlen(srv_request_id()), 16);
  ck_assert_uint_eq(strspn(srv_request_id(), "0123456789abcdef"), 16);
  srv_request_id_header(h, sizeof h);
  ck_assert_uint_eq(strncmp(h, "X-Request-Id: ", 14), 0);
  ck_assert_str_eq(h + 14 + 16, "\r\n");
}
END_TEST

Suite *make_metrics_suite(void) {
  Suite *s = suite_create("metrics");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, metrics_count_requests_by_status_code);
  tcase_add_test(tc, metrics_run_histogram_is_cumulative);
  tcase_add_test(tc, metrics_show_the_gauges_given);
  tcase_add_test(tc, metrics_show_cpu_runs_by_kind_and_reader_uploads);
  tcase_add_test(tc, log_line_names_the_session_not_the_query);
  tcase_add_test(tc, log_line_escapes_what_could_forge_a_field);
  tcase_add_test(tc, metrics_course_families_only_when_the_store_answered);
  tcase_add_test(tc, request_id_keeps_only_sane_incoming_ids);
  suite_add_tcase(s, tc);
  return s;
}
