/* `gpulab doctor` (lab/doctor/): the synthetic traces' known answers (a
 * step 70 % idle behind .item(), launch-bound kernels, pageable copies),
 * a real CPU-only torch trace, the same answer whatever the chunking, and
 * every bad input as its error code. Fixtures: tests/doctor/fixtures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "doctor.h"
#include "doctor_test.h"
#include "suites.h"

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f, "cannot open %s (run from the repository root)", path);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)len + 1);
  ck_assert_ptr_nonnull(b);
  ck_assert_int_eq(fread(b, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  *n = (size_t)len;
  return b;
}

static cJSON *doctor_file(const char *name) {
  char path[256];
  size_t n;
  snprintf(path, sizeof path, "tests/doctor/fixtures/%s", name);
  char *b = slurp(path, &n);
  lab_error err = {0};
  cJSON *j = lab_doctor_read(b, n, &err);
  free(b);
  ck_assert_msg(j, "doctor failed on %s: %s", name, err.message);
  return j;
}

static lab_err doctor_error(const char *text) {
  lab_error err = {0};
  cJSON *j = lab_doctor_read(text, strlen(text), &err);
  cJSON_Delete(j);
  return j ? LAB_OK : err.code;
}

static double fact(const cJSON *f, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(f, "facts"), k);
  ck_assert_msg(cJSON_IsNumber(v), "fact %s missing", k);
  return v->valuedouble;
}
static const char *sfact(const cJSON *f, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(f, "facts"), k);
  ck_assert_msg(cJSON_IsString(v), "fact %s missing", k);
  return v->valuestring;
}
static const char *lesson_section(const cJSON *f) {
  return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(f, "lesson"), "section")->valuestring;
}

/* every finding's lesson section is a heading id in that lesson */
static void sections_exist(const cJSON *env) {
  const cJSON *f;
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(env, "findings")) {
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(f, "lesson");
    char path[128], anchor[64];
    size_t n;
    snprintf(path, sizeof path, "lessons/%s/lesson.md", cJSON_GetObjectItemCaseSensitive(l, "id")->valuestring);
    snprintf(anchor, sizeof anchor, "{#%s}", lesson_section(f));
    char *md = slurp(path, &n);
    md[n] = 0;
    ck_assert_msg(strstr(md, anchor), "%s has no section %s", path, anchor);
    free(md);
  }
}

START_TEST(idle_step_behind_item_is_found_with_its_numbers) {
  cJSON *env = doctor_file("idle_item.json");
  const cJSON *f = doctor_test_finding(env, "gpu_idle");
  ck_assert_ptr_nonnull(f);
  ck_assert_str_eq(sfact(f, "step"), "ProfilerStep#12");
  ck_assert_double_eq_tol(fact(f, "idle_pct"), 70.0, 0.05);
  ck_assert_double_eq_tol(fact(f, "gpu_busy_pct"), 30.0, 0.05);
  ck_assert_double_eq_tol(fact(f, "largest_gap_ms"), 7.0, 0.001);
  ck_assert_str_eq(sfact(f, "host"), "item");
  /* the operator it ran in and the call inside that waited */
  ck_assert_str_eq(sfact(f, "host_op"), "aten::item");
  ck_assert_str_eq(sfact(f, "host_op_inner"), "cudaStreamSynchronize");
  ck_assert_msg(strstr(cJSON_GetObjectItemCaseSensitive(f, "text")->valuestring, "aten::item → cudaStreamSynchronize"),
                "the chain not said");
  ck_assert_str_eq(lesson_section(f), "async");
  const cJSON *dev = doctor_test_finding(env, "device");
  ck_assert_str_eq(sfact(dev, "device"), "NVIDIA A100-SXM4-80GB");
  ck_assert_str_eq(sfact(dev, "compute_capability"), "8.0");
  ck_assert_double_eq(fact(dev, "peak_allocated_bytes"), 2147483648.0);
  ck_assert_double_eq(fact(dev, "peak_reserved_bytes"), 4294967296.0);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(env, "steps")), 5);
  sections_exist(env);
  cJSON_Delete(env);
}
END_TEST

START_TEST(launch_bound_kernels_are_counted_with_their_median) {
  cJSON *env = doctor_file("launch_bound.json");
  const cJSON *f = doctor_test_finding(env, "launch_bound");
  ck_assert_ptr_nonnull(f);
  ck_assert_double_eq(fact(f, "kernels"), 400);
  ck_assert_double_eq(fact(f, "short_kernels"), 400);
  ck_assert_double_eq_tol(fact(f, "median_kernel_us"), 3.0, 0.11);
  ck_assert_double_eq_tol(fact(f, "launch_cost_us"), 8.0, 0.11);
  ck_assert_str_eq(lesson_section(f), "graphs");
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(f, "experiment"), "params");
  ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(p, "kernels")->valuedouble, 400);
  ck_assert_double_eq_tol(fact(doctor_test_finding(env, "gpu_time"), "elementwise_pct"), 100, 0.05);
  sections_exist(env);
  cJSON_Delete(env);
}
END_TEST

START_TEST(pageable_copies_in_the_step_have_bytes_and_bandwidth) {
  cJSON *env = doctor_file("pageable_copy.json");
  const cJSON *f = doctor_test_finding(env, "host_to_device");
  ck_assert_ptr_nonnull(f);
  ck_assert_double_eq(fact(f, "pageable_copies"), 2);
  ck_assert_double_eq(fact(f, "pageable_bytes"), 2.0 * 64 * 1048576);
  ck_assert_double_eq_tol(fact(f, "pageable_gbps"), 6.7, 0.05);
  ck_assert_double_eq(fact(f, "pinned_bytes"), 2.0 * 16 * 1048576);
  ck_assert_double_eq_tol(fact(f, "pinned_gbps"), 24.0, 0.05);
  ck_assert_str_eq(lesson_section(f), "pinned");
  ck_assert_double_eq_tol(fact(doctor_test_finding(env, "gpu_time"), "tensor_core_matmul_pct"), 100, 0.05);
  ck_assert_ptr_null(doctor_test_finding(env, "gpu_idle")); /* 98.5 % busy */
  sections_exist(env);
  cJSON_Delete(env);
}
END_TEST

START_TEST(cpu_torch_trace_says_what_it_cannot_tell) {
  cJSON *env = doctor_file("cpu_train.json");
  const cJSON *f = doctor_test_finding(env, "cpu_only");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(env, "findings")), 1);
  ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "trace"), "profiler_steps")->valuedouble, 3);
  ck_assert_int_ge(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(f, "facts"), "top_ops")), 1);
  sections_exist(env);
  cJSON_Delete(env);
}
END_TEST

START_TEST(any_chunking_gives_the_same_answer) {
  size_t n;
  char *b = slurp("tests/doctor/fixtures/idle_item.json", &n);
  lab_error err = {0};
  cJSON *whole = lab_doctor_read(b, n, &err);
  lab_doctor *d = lab_doctor_new();
  for (size_t i = 0; i < n; i += 7) ck_assert_int_eq(lab_doctor_feed(d, b + i, n - i < 7 ? n - i : 7, &err), 0);
  cJSON *chunked = lab_doctor_finish(d, &err);
  lab_doctor_free(d);
  ck_assert_ptr_nonnull(whole);
  ck_assert_ptr_nonnull(chunked);
  ck_assert(cJSON_Compare(whole, chunked, 1));
  cJSON_Delete(whole);
  cJSON_Delete(chunked);
  free(b);
}
END_TEST

START_TEST(bad_inputs_get_their_codes) {
  ck_assert_int_eq(doctor_error("hello, not json"), LAB_E_DOCTOR_NOT_TRACE);
  ck_assert_int_eq(doctor_error("{\"a\": 1}"), LAB_E_DOCTOR_NOT_TRACE);
  ck_assert_int_eq(doctor_error("[1, 2, 3]"), LAB_E_DOCTOR_NOT_TRACE);
  ck_assert_int_eq(doctor_error(""), LAB_E_DOCTOR_NOT_TRACE);
  ck_assert_int_eq(doctor_error("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 2"), LAB_E_DOCTOR_TRUNCATED);
  ck_assert_int_eq(doctor_error("{\"traceEvents\": []}"), LAB_E_DOCTOR_NO_EVENTS);
  ck_assert_int_eq(doctor_error("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": NaN}]}"), LAB_E_DOCTOR_BAD_NUMBER);
  ck_assert_int_eq(doctor_error("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": -5}]}"), LAB_E_DOCTOR_BAD_NUMBER);
  ck_assert_int_eq(doctor_error("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": -Infinity, \"dur\": 5}]}"), LAB_E_DOCTOR_BAD_NUMBER);
  ck_assert_int_eq(doctor_error("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1e300, \"dur\": 5}]}"), LAB_E_DOCTOR_BAD_NUMBER);
  ck_assert_int_eq(doctor_error("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 01, \"dur\": 5}]}"), LAB_E_DOCTOR_NOT_TRACE);
  ck_assert_int_eq(doctor_error("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 5}]} x"), LAB_E_DOCTOR_NOT_TRACE);
  size_t big = 70 * 1024;
  char *s = malloc(big + 64);
  strcpy(s, "{\"traceEvents\": [{\"name\": \"");
  size_t o = strlen(s);
  memset(s + o, 'k', big);
  strcpy(s + o + big, "\"}]}");
  ck_assert_int_eq(doctor_error(s), LAB_E_DOCTOR_NAME_TOO_LONG);
  free(s);
  char deep[200];
  memset(deep, '[', sizeof deep - 1);
  deep[sizeof deep - 1] = 0;
  ck_assert_int_eq(doctor_error(deep), LAB_E_DOCTOR_NOT_TRACE);
}
END_TEST

START_TEST(names_past_the_cap_count_as_other) {
  size_t cap = 6000 * 120 + 64, o = 0;
  char *s = malloc(cap);
  o += (size_t)snprintf(s + o, cap - o, "{\"traceEvents\": [");
  for (int i = 0; i < 6000; i++)
    o += (size_t)snprintf(s + o, cap - o, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"ts\":%d,\"dur\":1,\"args\":{\"stream\":7}}",
                          i ? "," : "", i, i * 2);
  o += (size_t)snprintf(s + o, cap - o, "]}");
  lab_error err = {0};
  cJSON *env = lab_doctor_read(s, o, &err);
  ck_assert_ptr_nonnull(env);
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(env, "trace");
  ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(t, "distinct_names")->valuedouble, LAB_DOCTOR_MAX_NAMES);
  ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(t, "events_named_other")->valuedouble, 6000 - LAB_DOCTOR_MAX_NAMES);
  ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(t, "gpu_events")->valuedouble, 6000);
  /* whole trace: 1 us kernels every 2 us, 50 % busy */
  ck_assert_double_eq_tol(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(env, "steps"), 0), "gpu_busy_pct")->valuedouble, 50, 0.1);
  cJSON_Delete(env);
  free(s);
}
END_TEST

static const cJSON *obj(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static double onum(const cJSON *o, const char *k) { return obj(o, k)->valuedouble; }

/* ac2g flows alone (no args.correlation) tie each kernel to its launch: the
 * gap is put on the launch of the kernel after it, launch latency measured */
START_TEST(flows_tie_a_gap_to_the_launch_of_the_op_after_it) {
  cJSON *env = doctor_file("flows_gap.json");
  const cJSON *t = obj(env, "trace");
  ck_assert_str_eq(obj(t, "tied_by")->valuestring, "ac2g_flows");
  ck_assert_double_eq(onum(t, "gpu_ops_tied_to_launch"), 2);
  ck_assert_double_eq_tol(onum(t, "launch_to_start_median_us"), 20, 0.11);
  const cJSON *g = cJSON_GetArrayItem(obj(cJSON_GetArrayItem(obj(env, "steps"), 0), "gaps"), 0);
  ck_assert_double_eq_tol(onum(g, "ms"), 5.03, 1e-9);
  ck_assert_str_eq(obj(g, "launched_by")->valuestring, "cudaLaunchKernel");
  ck_assert_str_eq(obj(g, "next_gpu_op")->valuestring, "ampere_sgemm_128x64_tn (B)");
  ck_assert_double_eq_tol(onum(g, "launched_at_ms"), 7, 1e-9);
  ck_assert_double_eq_tol(onum(g, "launch_to_start_us"), 30, 1e-9);
  ck_assert_str_eq(obj(g, "tied_by")->valuestring, "ac2g_flow");
  const cJSON *f = doctor_test_finding(env, "gpu_idle");
  ck_assert_str_eq(sfact(f, "launched_by"), "cudaLaunchKernel");
  ck_assert_double_eq_tol(fact(f, "launched_after_gap_start_ms"), 5, 1e-9);
  /* no runtime call covers the gap: aten::index (3.0-6.99 ms) does, 3.99 of its 5.03 ms, after aten::cat's 1.01 ms */
  ck_assert_str_eq(sfact(f, "host"), "host_op");
  ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(f, "certainty")->valuestring, "likely");
  ck_assert_str_eq(sfact(f, "host_op"), "aten::index");
  ck_assert_str_eq(sfact(f, "host_op_category"), "cpu_op");
  ck_assert_double_eq_tol(fact(f, "host_op_ms"), 3.99, 1e-9);
  ck_assert_double_eq_tol(fact(f, "host_op_gap_pct"), 79.3, 1e-9);
  ck_assert_str_eq(obj(g, "host_op")->valuestring, "aten::index");
  /* and drawn on the timeline on a lane of its own, beside the flat host lane */
  const cJSON *sp;
  int drawn = 0;
  cJSON_ArrayForEach(sp, obj(env, "timeline")) {
    if (strcmp(obj(sp, "lane")->valuestring, "cpu:op")) continue;
    drawn++;
    ck_assert_str_eq(obj(sp, "label")->valuestring, "aten::index");
    ck_assert_double_eq_tol(onum(sp, "start_us"), 3000, 1e-6);
    ck_assert_double_eq_tol(onum(sp, "end_us"), 6990, 1e-6);
  }
  ck_assert_int_eq(drawn, 1);
  cJSON_Delete(env);
}
END_TEST

/* External id alone ties a kernel to a runtime call of the same operator */
START_TEST(external_id_ties_when_correlation_is_missing) {
  const char *t = "{\"traceEvents\": ["
                  "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#0\",\"ts\":0,\"dur\":1000},"
                  "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":600,\"dur\":5,\"args\":{\"External id\":9}},"
                  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":640,\"dur\":100,\"args\":{\"External id\":9,\"stream\":7}}]}";
  lab_error err = {0};
  cJSON *env = lab_doctor_read(t, strlen(t), &err);
  ck_assert_ptr_nonnull(env);
  ck_assert_str_eq(obj(obj(env, "trace"), "tied_by")->valuestring, "external_id");
  const cJSON *g = cJSON_GetArrayItem(obj(cJSON_GetArrayItem(obj(env, "steps"), 0), "gaps"), 0);
  ck_assert_double_eq_tol(onum(g, "ms"), 0.64, 1e-9);
  ck_assert_str_eq(obj(g, "tied_by")->valuestring, "external_id");
  ck_assert_double_eq_tol(onum(g, "launch_to_start_us"), 40, 1e-9);
  cJSON_Delete(env);
}
END_TEST

/* without correlation or flows nothing is tied and gaps fall back to time overlap */
START_TEST(without_flows_gaps_fall_back_to_overlap) {
  cJSON *env = doctor_file("idle_item.json");
  ck_assert_double_eq(onum(obj(env, "trace"), "gpu_ops_tied_to_launch"), 0);
  ck_assert_ptr_null(obj(cJSON_GetArrayItem(obj(cJSON_GetArrayItem(obj(env, "steps"), 2), "gaps"), 0), "launched_by"));
  ck_assert_str_eq(sfact(doctor_test_finding(env, "gpu_idle"), "host"), "item");
  cJSON_Delete(env);
}
END_TEST

/* the idle step drawn as an experiment's timeline: lanes cpu and gpu:0/stream7,
 * µs from the step's start, the .item() hiding the calls inside it */
START_TEST(the_idle_step_is_drawn_as_a_timeline) {
  cJSON *env = doctor_file("idle_item.json");
  const cJSON *of = obj(env, "timeline_of"), *tl = obj(env, "timeline"), *sp;
  ck_assert_str_eq(obj(of, "step")->valuestring, "ProfilerStep#12");
  ck_assert_int_eq(cJSON_GetArraySize(tl), (int)onum(of, "spans"));
  ck_assert_double_eq(onum(of, "spans_left_out"), 2); /* _local_scalar_dense and the synchronize inside aten::item */
  int gpu = 0, item = 0;
  cJSON_ArrayForEach(sp, tl) {
    const char *lane = obj(sp, "lane")->valuestring;
    ck_assert(!strcmp(lane, "cpu") || !strcmp(lane, "gpu:0/stream7"));
    gpu += !strcmp(lane, "gpu:0/stream7");
    if (!strcmp(obj(sp, "label")->valuestring, "aten::item")) {
      item++;
      ck_assert_double_eq_tol(onum(sp, "start_us"), 3000, 1e-6);
      ck_assert_double_eq_tol(onum(sp, "end_us"), 10000, 1e-6);
    }
  }
  ck_assert_int_eq(gpu, 3);
  ck_assert_int_eq(item, 1);
  cJSON_Delete(env);
  env = doctor_file("cpu_train.json"); /* no GPU events: the first step, its host calls */
  ck_assert_ptr_nonnull(strstr(obj(obj(env, "timeline_of"), "why")->valuestring, "first profiler step"));
  cJSON_Delete(env);
}
END_TEST

/* a step of 5000 kernels is drawn with the 2000 longest, the rest counted */
START_TEST(a_crowded_step_keeps_its_longest_spans) {
  size_t cap = 5000 * 140 + 256, o = 0;
  char *s = malloc(cap);
  o += (size_t)snprintf(s + o, cap - o, "{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"ts\":0,\"dur\":20000}");
  for (int i = 0; i < 5000; i++)
    o += (size_t)snprintf(s + o, cap - o, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":%d,\"dur\":%d,\"args\":{\"stream\":7}}",
                          i * 4, i % 3 ? 1 : 3);
  o += (size_t)snprintf(s + o, cap - o, "]}");
  lab_error err = {0};
  cJSON *env = lab_doctor_read(s, o, &err);
  ck_assert_ptr_nonnull(env);
  const cJSON *of = obj(env, "timeline_of"), *sp;
  ck_assert_double_eq(onum(of, "spans"), 2000);
  ck_assert_double_eq(onum(of, "spans_left_out"), 3000);
  double prev = -1;
  int long_ones = 0;
  cJSON_ArrayForEach(sp, obj(env, "timeline")) {
    ck_assert(onum(sp, "start_us") >= prev); /* in time order */
    prev = onum(sp, "start_us");
    long_ones += onum(sp, "end_us") - onum(sp, "start_us") > 2;
  }
  ck_assert_int_eq(long_ones, 1667); /* every 3 us kernel (i % 3 == 0) is kept */
  cJSON_Delete(env);
  free(s);
}
END_TEST

/* Built for the purpose (tests/doctor/make_synthetic.py): a cold first step, a stream whose next op
 * (a collective) was queued before the GPU went idle, and a genuinely launch-bound step each get
 * their own finding; the first two never the launch-bound sentence. */
static int says_launch_bound(const cJSON *env) {
  const cJSON *f;
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(env, "findings")) {
    const char *t = cJSON_GetObjectItemCaseSensitive(f, "text")->valuestring;
    if (strstr(t, "cannot queue kernels fast enough") || strstr(t, "paced by Python and launches")) return 1;
  }
  return 0;
}

START_TEST(built_cold_start_stream_wait_and_launch_bound_get_their_findings) {
  cJSON *j = doctor_file("cold_start.json");
  const cJSON *f = doctor_test_finding(j, "cold_start");
  ck_assert_msg(f, "no cold_start finding");
  ck_assert_str_eq(sfact(f, "call"), "cudaDeviceGetStreamPriorityRange");
  ck_assert_double_eq_tol(fact(f, "call_ms"), 24.0, 0.001);
  ck_assert(!doctor_test_finding(j, "launch_bound") && !says_launch_bound(j));
  cJSON_Delete(j);
  j = doctor_file("stream_wait.json");
  f = doctor_test_finding(j, "stream_wait");
  ck_assert_msg(f, "no stream_wait finding");
  ck_assert_str_eq(sfact(f, "waited_on"), "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)");
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(f, "facts"), "collective")));
  ck_assert(!doctor_test_finding(j, "gpu_idle") && !doctor_test_finding(j, "launch_bound") && !says_launch_bound(j));
  cJSON_Delete(j);
  j = doctor_file("launch_bound.json");
  ck_assert(doctor_test_finding(j, "launch_bound"));
  ck_assert_str_eq(sfact(doctor_test_finding(j, "gpu_idle"), "host"), "launches");
  cJSON_Delete(j);
}
END_TEST

Suite *make_doctor_suite(void) {
  Suite *s = suite_create("doctor");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, idle_step_behind_item_is_found_with_its_numbers);
  tcase_add_test(tc, built_cold_start_stream_wait_and_launch_bound_get_their_findings);
  tcase_add_test(tc, launch_bound_kernels_are_counted_with_their_median);
  tcase_add_test(tc, pageable_copies_in_the_step_have_bytes_and_bandwidth);
  tcase_add_test(tc, cpu_torch_trace_says_what_it_cannot_tell);
  tcase_add_test(tc, any_chunking_gives_the_same_answer);
  tcase_add_test(tc, bad_inputs_get_their_codes);
  tcase_add_test(tc, names_past_the_cap_count_as_other);
  tcase_add_test(tc, flows_tie_a_gap_to_the_launch_of_the_op_after_it);
  tcase_add_test(tc, without_flows_gaps_fall_back_to_overlap);
  tcase_add_test(tc, external_id_ties_when_correlation_is_missing);
  tcase_add_test(tc, the_idle_step_is_drawn_as_a_timeline);
  tcase_add_test(tc, a_crowded_step_keeps_its_longest_spans);
  suite_add_tcase(s, tc);
  return s;
}
