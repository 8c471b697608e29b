/* `gpulab doctor` stays linear in the trace where a trace is built to make
 * it quadratic, and what the bounds leave out is said: GPU ops tied by
 * flows that all start at one ts, steps that overlap, ops running across
 * a step's start past the walk's bound, names made to collide in the name
 * table; and every string of the answer is valid UTF-8, a name cut at
 * 256 bytes included. A .gz is refused past 64 times its size (real
 * traces: at most 30.3), and a server reads at most a set size of one
 * trace. (How long each took before: docs/doctor.md.) */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "doctor.h"
#include "doctor_stream.h"
#include "suites.h"
#include "utf8.h"

typedef struct text {
  char *s;
  size_t n, cap;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text *t, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int k = vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
    va_end(ap);
    if ((size_t)k < t->cap - t->n) {
      t->n += (size_t)k;
      return;
    }
    t->cap = t->cap * 2 + (size_t)k + 64;
    t->s = realloc(t->s, t->cap);
    ck_assert_ptr_nonnull(t->s);
  }
}

static cJSON *read_text(text *t) {
  lab_error err = {0};
  cJSON *env = lab_doctor_read(t->s, t->n, &err);
  ck_assert_msg(env != NULL, "doctor failed: %s", err.message);
  free(t->s);
  *t = (text){0};
  return env;
}

static const cJSON *obj(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static double num(const cJSON *o, const char *k) {
  const cJSON *v = obj(o, k);
  ck_assert_msg(cJSON_IsNumber(v), "%s is not a number", k);
  return v->valuedouble;
}

/* 20000 launches at one ts and their 20000 ops at another, tied by flows
 * alone: each op gets its own launch (before, each tie walked past every
 * record already tied at that ts: 8 s for a 31 MB trace). */
START_TEST(flows_at_one_ts_tie_every_op_once) {
  enum { N = 20000 };
  text t = {0};
  add(&t, "{\"traceEvents\":[");
  for (int i = 0; i < N; i++) add(&t, "%s{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":5,\"dur\":1}", i ? "," : "");
  for (int i = 0; i < N; i++) add(&t, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":7,\"dur\":1}");
  for (int i = 0; i < N; i++)
    add(&t, ",{\"ph\":\"s\",\"cat\":\"ac2g\",\"id\":%d,\"ts\":5},{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":%d,\"ts\":7,\"bp\":\"e\"}", i + 1,
        i + 1);
  add(&t, "]}");
  cJSON *env = read_text(&t);
  const cJSON *tr = obj(env, "trace");
  ck_assert_double_eq(num(tr, "gpu_ops_tied_to_launch"), N);
  ck_assert_str_eq(obj(tr, "tied_by")->valuestring, "ac2g_flows");
  cJSON_Delete(env);
}
END_TEST

/* Three steps that overlap (a trace merged from several processes): each
 * is read up to the next one's start, so no op is walked once per step. */
START_TEST(overlapping_steps_are_read_up_to_the_next_start) {
  text t = {0};
  add(&t, "{\"traceEvents\":[");
  add(&t, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"ts\":0,\"dur\":3000},");
  add(&t, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"ts\":1000,\"dur\":3000},");
  add(&t, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\",\"ts\":2000,\"dur\":1000}");
  for (int i = 0; i < 1500; i++) add(&t, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":%d,\"dur\":1}", i * 2);
  add(&t, "]}");
  cJSON *env = read_text(&t);
  const cJSON *steps = obj(env, "steps");
  ck_assert_int_eq(cJSON_GetArraySize(steps), 3);
  double wall[3] = {1, 1, 1}, kernels[3] = {500, 500, 500};
  for (int i = 0; i < 3; i++) {
    ck_assert_double_eq_tol(num(cJSON_GetArrayItem(steps, i), "wall_ms"), wall[i], 1e-9);
    ck_assert_double_eq(num(cJSON_GetArrayItem(steps, i), "kernels"), kernels[i]);
  }
  cJSON_Delete(env);
}
END_TEST

/* 3000 ops that run across every one of 50 steps' starts: the walk keeps
 * 1024 of them (more than a GPU runs at once) and says how many it left
 * out, instead of walking all of them for every step. */
START_TEST(ops_across_step_starts_past_the_bound_are_counted) {
  text t = {0};
  add(&t, "{\"traceEvents\":[");
  for (int i = 0; i < 50; i++)
    add(&t, "%s{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"ts\":%d,\"dur\":100}", i ? "," : "", i,
        10 + i * 100);
  for (int i = 0; i < 3000; i++) add(&t, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"long\",\"ts\":%d,\"dur\":100000}", i % 5);
  add(&t, "]}");
  cJSON *env = read_text(&t);
  ck_assert_double_eq(num(obj(env, "trace"), "events_left_out_of_steps"), 3000 - 1024);
  /* what is kept still covers every step (the answer lists the first 32) */
  ck_assert_double_eq(num(cJSON_GetArrayItem(obj(env, "steps"), 31), "gpu_busy_pct"), 100);
  cJSON_Delete(env);
}
END_TEST

/* Host operators past LAB_DOCTOR_MAX_HOST_OPS are counted, not kept; the
 * gap is still named by the operator kept first that covers it. */
START_TEST(host_ops_past_the_cap_are_counted) {
  enum { N = LAB_DOCTOR_MAX_HOST_OPS + 7 };
  text t = {0};
  add(&t, "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":0,\"dur\":1},"
          "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::nonzero\",\"ts\":1,\"dur\":%d}",
      N + 1000);
  for (int i = 1; i < N; i++) add(&t, ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"ts\":%d,\"dur\":0}", i + 2);
  add(&t, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":%d,\"dur\":1}]}", N + 1001);
  cJSON *env = read_text(&t);
  ck_assert_double_eq(num(obj(env, "trace"), "host_ops"), N);
  ck_assert_double_eq(num(obj(env, "trace"), "host_ops_not_analysed"), 7);
  const cJSON *f = cJSON_GetArrayItem(obj(env, "findings"), 0);
  ck_assert_str_eq(obj(obj(f, "facts"), "host_op")->valuestring, "aten::nonzero");
  cJSON_Delete(env);
}
END_TEST

/* FNV-1a, as the reader hashes names. */
static uint32_t fnv(const char *s) {
  uint32_t h = 2166136261u;
  while (*s) h = (h ^ (unsigned char)*s++) * 16777619u;
  return h;
}

/* 200 names made to fall in one slot of the name table: past the probe
 * bound they count as "other" (before, every event compared its name with
 * each of them). */
START_TEST(names_made_to_collide_count_as_other) {
  char name[64];
  text t = {0};
  int found = 0;
  add(&t, "{\"traceEvents\":[");
  for (uint32_t k = 0; found < 200; k++) {
    snprintf(name, sizeof name, "kernel_%08x", k);
    if ((fnv(name) & 8191) != 77) continue;
    for (int rep = 0; rep < 3; rep++)
      add(&t, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"ts\":%d,\"dur\":1}", t.n > 20 ? "," : "", name, found * 6 + rep * 2);
    found++;
  }
  add(&t, "]}");
  cJSON *env = read_text(&t);
  const cJSON *tr = obj(env, "trace");
  ck_assert_double_eq(num(tr, "gpu_events"), 600);
  ck_assert_double_eq(num(tr, "distinct_names"), 64);
  ck_assert_double_eq(num(tr, "events_named_other"), 3 * (200 - 64));
  cJSON_Delete(env);
}
END_TEST

/* A kernel name cut at 256 bytes inside a character, a name with a byte
 * that is not UTF-8, a device name cut inside a character: the answer is
 * valid UTF-8 (before, /api/doctor sent the first byte of the cut "é"). */
START_TEST(names_cut_inside_a_character_stay_valid_utf8) {
  char cut[300], bad[16];
  memset(cut, 'a', 255);
  snprintf(cut + 255, sizeof cut - 255, "\xc3\xa9tail");
  snprintf(bad, sizeof bad, "k\xff" "x");
  char dev[200];
  memset(dev, 'D', 126);
  snprintf(dev + 126, sizeof dev - 126, "\xe2\x82\xac GPU"); /* "€" across the 128-byte cut */
  text t = {0};
  add(&t, "{\"deviceProperties\":[{\"name\":\"%s\",\"totalGlobalMem\":1}],\"traceEvents\":[", dev);
  add(&t, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"ts\":0,\"dur\":5},", cut);
  add(&t, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"ts\":10,\"dur\":5}]}", bad);
  cJSON *env = read_text(&t);
  char *json = cJSON_PrintUnformatted(env);
  size_t at = 0;
  ck_assert_msg(lab_utf8_valid(json, strlen(json), &at), "not UTF-8 at byte %zu: %.40s", at, json + (at > 20 ? at - 20 : 0));
  ck_assert_ptr_nonnull(strstr(json, "k?x"));
  char want[300];
  memset(want, 'a', 255);
  want[255] = 0;
  snprintf(want + 255, sizeof want - 255, "\"");
  ck_assert_msg(strstr(json, want), "the cut name ends before its last whole character");
  cJSON_free(json);
  cJSON_Delete(env);
}
END_TEST

/* The gzip rule in numbers: past 64 MiB inflated, more than 64 times the
 * compressed bytes is a bomb; below 64 MiB, or at a real trace's ratio, not. */
START_TEST(gzip_past_64_times_its_size_is_a_bomb) {
  const double mib = 1048576;
  lab_error err = {0};
  ck_assert_int_eq(lab_doctor_gzip_check(1 * mib, 65 * mib, &err), -1); /* 65 times */
  ck_assert_int_eq(err.code, LAB_E_DOCTOR_GZIP_BOMB);
  err = (lab_error){0};
  ck_assert_int_eq(lab_doctor_gzip_check(3.7 * mib, 100 * mib, &err), 0);   /* 27 times: a real trace's ratio */
  ck_assert_int_eq(lab_doctor_gzip_check(33 * mib, 1000 * mib, &err), 0);   /* 30.3 times: the highest real one */
  ck_assert_int_eq(lab_doctor_gzip_check(0.1 * mib, 63 * mib, &err), 0);    /* under 64 MiB: any ratio */
  ck_assert_int_eq(lab_doctor_gzip_check(15.7 * mib, 1000 * mib, &err), 0); /* 63.7 times */
  ck_assert_int_eq(err.code, LAB_OK);
}
END_TEST

static size_t from_file(void *src, unsigned char *buf, size_t cap) { return fread(buf, 1, cap, src); }

/* A server's bound on the JSON it reads of one trace: the real CPU trace
 * (107,504 bytes once inflated) read under 1 MiB, refused under 50 KB with
 * doctor_too_large, plain or .gz alike. */
START_TEST(a_reader_with_a_bound_refuses_a_larger_trace) {
  const char *const files[] = {"tests/doctor/fixtures/cpu_train.json.gz", "tests/doctor/fixtures/cpu_train.json"};
  for (int i = 0; i < 2; i++) {
    lab_error err = {0};
    FILE *f = fopen(files[i], "rb");
    ck_assert_msg(f != NULL, "cannot open %s (run from the repository root)", files[i]);
    cJSON *env = srv_doctor_stream_capped(from_file, f, 1048576, &err);
    ck_assert_msg(env != NULL, "%s under 1 MiB: %s", files[i], err.message);
    cJSON_Delete(env);
    rewind(f);
    env = srv_doctor_stream_capped(from_file, f, 50000, &err);
    fclose(f);
    ck_assert_ptr_null(env);
    ck_assert_int_eq(err.code, LAB_E_DOCTOR_TOO_LARGE);
    ck_assert_ptr_nonnull(strstr(err.message, "#doctor"));
  }
}
END_TEST

Suite *make_doctor_bounds_suite(void) {
  Suite *s = suite_create("doctor_bounds");
  TCase *tc = tcase_create("bounds");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, flows_at_one_ts_tie_every_op_once);
  tcase_add_test(tc, overlapping_steps_are_read_up_to_the_next_start);
  tcase_add_test(tc, ops_across_step_starts_past_the_bound_are_counted);
  tcase_add_test(tc, host_ops_past_the_cap_are_counted);
  tcase_add_test(tc, names_made_to_collide_count_as_other);
  tcase_add_test(tc, names_cut_inside_a_character_stay_valid_utf8);
  tcase_add_test(tc, gzip_past_64_times_its_size_is_a_bomb);
  tcase_add_test(tc, a_reader_with_a_bound_refuses_a_larger_trace);
  suite_add_tcase(s, tc);
  return s;
}
