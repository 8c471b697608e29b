/* Round trip: every experiment's simulated result on every profile,
 * exported as a trace (lab/trace/trace_export.c) and read back by `gpulab doctor`
 * (lab/doctor/doctor.h), gives the GPU busy share and the largest idle gap that the
 * result's own timeline gives, computed here directly from its spans; the
 * doctor says the trace is a simulation; the experiments whose lesson is an
 * idle GPU, tiny kernels or copies get the matching finding; the doctor's
 * timeline holds the chosen step's GPU spans. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "doctor.h"
#include "profiles.h"
#include "registry.h"
#include "suites.h"
#include "trace_export.h"

/* Busy share in percentage points: both sides use the same spans (times kept
 * to the nanosecond by the export) and the doctor rounds to 0.1. */
#define BUSY_TOL_PCT 0.1
/* Gaps: the doctor rounds to the µs (r3 in ms). */
#define GAP_TOL_MS 0.0011

static const char *str(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : "";
}
static double num(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

typedef struct {
  double s, e;
} iv;

static int by_s(const void *x, const void *y) {
  double a = ((const iv *)x)->s, b = ((const iv *)y)->s;
  return (a > b) - (a < b);
}

/* The result's own GPU spans (lanes gpu:N/streamK: the run asked for, not
 * its copy-engine view nor its other runs), sorted by start. */
static int own_gpu(const cJSON *env, iv *out, int cap) {
  int n = 0, dev, stream;
  const cJSON *sp;
  cJSON_ArrayForEach(sp, cJSON_GetObjectItemCaseSensitive(env, "timeline")) {
    char tail;
    if (sscanf(str(sp, "lane"), "gpu:%d/stream%d%c", &dev, &stream, &tail) != 2) continue;
    double s = num(sp, "start_us"), e = num(sp, "end_us");
    if (!isfinite(s) || !isfinite(e) || n == cap) continue;
    out[n++] = (iv){s, e < s ? s : e};
  }
  qsort(out, (size_t)n, sizeof *out, by_s);
  return n;
}

/* Busy µs and the largest gap in [a, b) from the spans; *count: spans that overlap. */
static double busy_in(const iv *g, int n, double a, double b, double *largest, int *count) {
  double end = a, busy = 0;
  *largest = 0;
  *count = 0;
  for (int i = 0; i < n; i++) {
    double s = fmax(g[i].s, a), e = fmin(g[i].e, b);
    if (g[i].s >= b - 5e-4 || g[i].e <= a + 5e-4) continue; /* touching within the trace's 1 ns is not overlapping */
    (*count)++;
    if (s > end) *largest = fmax(*largest, s - end);
    if (e > end) {
      busy += e - fmax(s, end);
      end = e;
    }
  }
  if (b > end) *largest = fmax(*largest, b - end);
  return busy;
}

/* The window of a doctor step: its ProfilerStep in the trace, or the whole trace. */
static void window_of(const cJSON *trace, const char *step, double *a, double *b) {
  const cJSON *e;
  *a = INFINITY;
  *b = -INFINITY;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(trace, "traceEvents")) {
    if (strcmp(str(e, "ph"), "X")) continue;
    double ts = num(e, "ts"), end = ts + num(e, "dur");
    if (!strncmp(step, "ProfilerStep#", 13)) {
      if (!strcmp(str(e, "name"), step)) *a = ts, *b = end;
    } else {
      *a = fmin(*a, ts);
      *b = fmax(*b, end);
    }
  }
}

static int has_finding(const cJSON *doc, const char *id) {
  const cJSON *f;
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(doc, "findings")) if (!strcmp(str(f, "id"), id)) return 1;
  return 0;
}

/* The finding each experiment's own lesson is about, on every profile. */
static const char *expected_finding(const char *exp) {
  if (!strcmp(exp, "profile")) return "gpu_idle";     /* .item() every step (log_every=1) */
  if (!strcmp(exp, "graphs")) return "launch_bound";  /* tiny kernels */
  if (!strcmp(exp, "transfer")) return "host_to_device";
  if (!strcmp(exp, "streams")) return "host_to_device";
  return NULL;
}

START_TEST(every_exported_trace_reads_back_with_the_timelines_own_numbers) {
  const lab_experiment *x = lab_experiment_at(_i);
  iv *g = malloc(8192 * sizeof *g);
  ck_assert_ptr_nonnull(g);
  for (int k = 0; k < lab_profile_count(); k++) {
    if (!lab_experiment_applies(x, lab_profile_at(k))) continue; /* it answers not_applicable: no trace */
    cJSON *env = NULL;
    lab_error err = {0};
    char what[96];
    snprintf(what, sizeof what, "%s on %s", x->name, lab_profile_at(k)->name);
    ck_assert_msg(lab_simulate_with(x, NULL, lab_profile_at(k), &env, &err) == 0, "%s: %s", what, err.message);
    int n = own_gpu(env, g, 8192);
    if (n == 0) { /* no GPU spans: nothing for the doctor to time (allocator, memory: counters only) */
      cJSON_Delete(env);
      continue;
    }
    cJSON *trace = lab_trace_from_envelope(env, "test", "2026-01-01T00:00:00Z", &err);
    ck_assert_ptr_nonnull(trace);
    char *text = cJSON_PrintUnformatted(trace);
    cJSON *doc = lab_doctor_read(text, strlen(text), &err);
    ck_assert_msg(doc != NULL, "%s: the doctor refused gpulab's own trace: %s", what, err.message);
    /* the source sentence survives, and the doctor says it is a simulation */
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(doc, "trace");
    ck_assert_str_eq(str(tr, "source"), str(cJSON_GetObjectItemCaseSensitive(trace, "otherData"), "source"));
    ck_assert_msg(strstr(str(tr, "source"), "not a measurement"), "%s: source", what);
    ck_assert_msg(has_finding(doc, "simulated_trace"), "%s: says it is simulated", what);
    const cJSON *st;
    cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(doc, "steps")) {
      double a, b, largest;
      int count;
      window_of(trace, str(st, "name"), &a, &b);
      ck_assert_msg(b > a, "%s: window of %s", what, str(st, "name"));
      double busy = busy_in(g, n, a, b, &largest, &count);
      ck_assert_msg(fabs(num(st, "gpu_busy_pct") - 100 * busy / (b - a)) <= BUSY_TOL_PCT,
                    "%s %s: doctor busy %.2f%%, timeline %.2f%%", what, str(st, "name"), num(st, "gpu_busy_pct"),
                    100 * busy / (b - a));
      const cJSON *gap = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(st, "gaps"), 0);
      double dgap = gap ? num(gap, "ms") : 0;
      ck_assert_msg(fabs(dgap - largest / 1000) <= GAP_TOL_MS, "%s %s: doctor's largest gap %.4f ms, timeline %.4f ms",
                    what, str(st, "name"), dgap, largest / 1000);
    }
    /* the doctor's timeline: the chosen step's GPU spans, every one, on gpu:N/streamK lanes */
    const cJSON *of = cJSON_GetObjectItemCaseSensitive(doc, "timeline_of"), *tl = cJSON_GetObjectItemCaseSensitive(doc, "timeline");
    double a, b, largest;
    int count, gpu_spans = 0;
    window_of(trace, str(of, "step"), &a, &b);
    busy_in(g, n, a, b, &largest, &count);
    const cJSON *sp;
    cJSON_ArrayForEach(sp, tl) {
      int dev, stream;
      gpu_spans += sscanf(str(sp, "lane"), "gpu:%d/stream%d", &dev, &stream) == 2;
      ck_assert_msg(num(sp, "start_us") >= 0 && num(sp, "end_us") <= b - a + 1e-3, "%s: timeline span inside the step", what);
    }
    ck_assert_int_eq(cJSON_GetArraySize(tl), (int)num(of, "spans"));
    ck_assert_msg(gpu_spans == count, "%s: doctor's timeline has %d GPU spans, the step %d", what, gpu_spans, count);
    const char *want = expected_finding(x->name);
    ck_assert_msg(!want || has_finding(doc, want), "%s: the doctor finds %s", what, want);
    cJSON_Delete(doc);
    free(text);
    cJSON_Delete(trace);
    cJSON_Delete(env);
  }
  free(g);
}
END_TEST

/* train_step's steps (loss.item() in the step) read back: the idle gap's host is the .item() */
START_TEST(train_step_round_trip_puts_the_gap_on_item) {
  cJSON *env = NULL;
  lab_error err = {0};
  ck_assert_int_eq(lab_simulate_with(lab_experiment_find("train_step"), NULL, lab_profile_default(), &env, &err), 0);
  cJSON *trace = lab_trace_from_envelope(env, NULL, NULL, &err);
  char *text = cJSON_PrintUnformatted(trace);
  cJSON *doc = lab_doctor_read(text, strlen(text), &err);
  ck_assert_ptr_nonnull(doc);
  const cJSON *f;
  const char *host = NULL;
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(doc, "findings")) if (!strcmp(str(f, "id"), "gpu_idle")) host =
      str(cJSON_GetObjectItemCaseSensitive(f, "facts"), "host");
  ck_assert_ptr_nonnull(host);
  ck_assert_str_eq(host, "item");
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(doc, "trace"), "tied_by"), "correlation");
  cJSON_Delete(doc);
  free(text);
  cJSON_Delete(trace);
  cJSON_Delete(env);
}
END_TEST

Suite *make_trace_roundtrip_suite(void) {
  Suite *s = suite_create("trace_roundtrip");
  TCase *tc = tcase_create("trace_roundtrip");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, every_exported_trace_reads_back_with_the_timelines_own_numbers, 0, lab_experiment_count());
  tcase_add_test(tc, train_step_round_trip_puts_the_gap_on_item);
  suite_add_tcase(s, tc);
  return s;
}
