/* The trace export against the Trace Event Format's documented rules (every
 * event has name, ph, pid, tid and ts in µs; X has dur >= 0; X events on one
 * thread nest; every thread and process is named; flow ids pair s with f),
 * for every experiment's simulated result on every profile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "profiles.h"
#include "registry.h"
#include "suites.h"
#include "trace_export.h"

#define MAX_EV 4096

typedef struct {
  int pid, tid;
  double ts, dur;
} slice;

static int by_thread_then_start(const void *pa, const void *pb) {
  const slice *a = pa, *b = pb;
  if (a->pid != b->pid) return a->pid - b->pid;
  if (a->tid != b->tid) return a->tid - b->tid;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return a->dur > b->dur ? -1 : a->dur < b->dur;
}

static double num(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Whether a thread (pid, tid) or process (tid < 0) has its name event. */
static int named(const cJSON *events, int pid, int tid) {
  const cJSON *e;
  cJSON_ArrayForEach(e, events) {
    const char *ph = str(e, "ph"), *n = str(e, "name");
    if (!ph || strcmp(ph, "M") || (int)num(e, "pid") != pid) continue;
    if (tid < 0 && !strcmp(n, "process_name")) return 1;
    if (tid >= 0 && !strcmp(n, "thread_name") && (int)num(e, "tid") == tid) return 1;
  }
  return 0;
}

/* Whether some X event on (pid, tid) spans ts: where a flow binds. */
static int inside_slice(const slice *s, int n, int pid, int tid, double ts) {
  for (int i = 0; i < n; i++)
    if (s[i].pid == pid && s[i].tid == tid && s[i].ts <= ts && ts <= s[i].ts + s[i].dur) return 1;
  return 0;
}

/* Checks the trace of env by the format's rules; returns the number of X
 * events that are timeline spans (the ProfilerStep spans added have no lane). */
static int check_trace(const cJSON *env, const cJSON *trace, const char *what) {
  const cJSON *events = cJSON_GetObjectItemCaseSensitive(trace, "traceEvents");
  ck_assert_msg(cJSON_IsArray(events), "%s: traceEvents", what);
  ck_assert_msg(str(trace, "displayTimeUnit") && (!strcmp(str(trace, "displayTimeUnit"), "ms") ||
                                                   !strcmp(str(trace, "displayTimeUnit"), "ns")),
                "%s: displayTimeUnit is ms or ns", what);
  const cJSON *od = cJSON_GetObjectItemCaseSensitive(trace, "otherData");
  ck_assert_msg(str(od, "backend") && !strcmp(str(od, "backend"), str(env, "backend")), "%s: backend", what);
  ck_assert_msg(str(od, "source") && (strcmp(str(env, "backend"), "simulated") || strstr(str(od, "source"), "not a "
                                                                                                        "measurement")),
                "%s: says where it comes from, a simulation never as a measurement", what);
  slice *s = calloc(MAX_EV, sizeof *s);
  int n = 0, spans = 0, flows_s = 0, flows_f = 0, ids[MAX_EV] = {0};
  const cJSON *e;
  cJSON_ArrayForEach(e, events) {
    const char *ph = str(e, "ph");
    ck_assert_msg(ph && str(e, "name"), "%s: every event has name and ph", what);
    double pid = num(e, "pid"), tid = num(e, "tid"), ts = num(e, "ts");
    ck_assert_msg(isfinite(pid) && isfinite(tid) && isfinite(ts) && ts >= 0, "%s: %s event needs pid, tid, ts >= 0",
                  what, ph);
    ck_assert_msg(strchr("MXsfCi", ph[0]) && ph[1] == 0, "%s: phase %s", what, ph);
    if (ph[0] == 'X') {
      double dur = num(e, "dur");
      ck_assert_msg(isfinite(dur) && dur >= 0, "%s: X '%s' has dur >= 0", what, str(e, "name"));
      ck_assert_msg(named(events, (int)pid, (int)tid) && named(events, (int)pid, -1), "%s: thread %d/%d named", what,
                    (int)pid, (int)tid);
      ck_assert_int_lt(n, MAX_EV);
      s[n++] = (slice){(int)pid, (int)tid, ts, dur};
      spans += str(cJSON_GetObjectItemCaseSensitive(e, "args"), "lane") != NULL;
    } else if (ph[0] == 'C') {
      const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
      ck_assert_msg(isfinite(num(args, "allocated")) && isfinite(num(args, "reserved")), "%s: counter values", what);
      ck_assert_msg(named(events, (int)pid, -1), "%s: counter process named", what);
    } else if (ph[0] == 's' || ph[0] == 'f') {
      int id = (int)num(e, "id");
      ck_assert_msg(id > 0 && id < MAX_EV, "%s: flow id", what);
      ids[id] += ph[0] == 's' ? 1 : 100;
      if (ph[0] == 'f') ck_assert_msg(str(e, "bp") && !strcmp(str(e, "bp"), "e"), "%s: f binds to its slice", what);
      ph[0] == 's' ? flows_s++ : flows_f++;
    }
  }
  /* Nesting: on one thread, each slice ends within every slice still open. */
  qsort(s, (size_t)n, sizeof *s, by_thread_then_start);
  for (int i = 0; i < n; i++) {
    double open[64];
    int d = 0;
    int j = i;
    for (; j < n && s[j].pid == s[i].pid && s[j].tid == s[i].tid; j++) {
      while (d > 0 && open[d - 1] <= s[j].ts) d--;
      ck_assert_msg(d == 0 || s[j].ts + s[j].dur <= open[d - 1], "%s: partial overlap on thread %d/%d at %g µs",
                    what, s[j].pid, s[j].tid, s[j].ts);
      ck_assert_int_lt(d, 64);
      open[d++] = s[j].ts + s[j].dur;
    }
    i = j - 1;
  }
  ck_assert_int_eq(flows_s, flows_f);
  for (int id = 1; id < MAX_EV; id++) ck_assert_msg(ids[id] == 0 || ids[id] == 101, "%s: flow %d paired", what, id);
  cJSON_ArrayForEach(e, events) {
    const char *ph = str(e, "ph");
    if (ph[0] == 's' || ph[0] == 'f')
      ck_assert_msg(inside_slice(s, n, (int)num(e, "pid"), (int)num(e, "tid"), num(e, "ts")),
                    "%s: flow %s %d lies in a slice of its thread", what, ph, (int)num(e, "id"));
  }
  free(s);
  return spans;
}

static int finite_spans(const cJSON *env) {
  int n = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(env, "timeline")) n +=
      isfinite(num(e, "start_us")) && isfinite(num(e, "end_us"));
  return n;
}

START_TEST(every_experiment_on_every_profile_exports_a_well_formed_trace) {
  const lab_experiment *x = lab_experiment_at(_i);
  for (int k = 0; k < lab_profile_count(); k++) {
    if (!lab_experiment_applies(x, lab_profile_at(k))) continue; /* it answers not_applicable: no trace */
    cJSON *env = NULL;
    lab_error err;
    char what[96];
    snprintf(what, sizeof what, "%s on %s", x->name, lab_profile_at(k)->name);
    ck_assert_msg(lab_simulate_with(x, NULL, lab_profile_at(k), &env, &err) == 0, "%s: %s", what, err.message);
    cJSON *trace = lab_trace_from_envelope(env, "test", "2026-01-01T00:00:00Z", &err);
    ck_assert_msg(trace != NULL, "%s: %s", what, err.message);
    /* Round trip: every timeline span is one X event with its label and lane. */
    ck_assert_int_eq(check_trace(env, trace, what), finite_spans(env));
    const cJSON *ev, *sp;
    cJSON_ArrayForEach(sp, cJSON_GetObjectItemCaseSensitive(env, "timeline")) {
      int found = 0;
      cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(trace, "traceEvents")) {
        const char *lane = str(cJSON_GetObjectItemCaseSensitive(ev, "args"), "lane");
        const char *label = str(cJSON_GetObjectItemCaseSensitive(ev, "args"), "label");
        found |= !strcmp(str(ev, "ph"), "X") && label && !strcmp(label, str(sp, "label")) && lane &&
                 !strcmp(lane, str(sp, "lane")) && fabs(num(ev, "ts") - num(sp, "start_us")) < 1e-3;
      }
      ck_assert_msg(found, "%s: span '%s' on %s is in the trace", what, str(sp, "label"), str(sp, "lane"));
    }
    cJSON_Delete(trace);
    cJSON_Delete(env);
  }
}
END_TEST

static int count_ph(const cJSON *trace, const char *ph) {
  int n = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(trace, "traceEvents")) n += !strcmp(str(e, "ph"), ph);
  return n;
}

static cJSON *simulated_trace(const char *name, cJSON **env) {
  lab_error err;
  ck_assert_int_eq(lab_simulate_with(lab_experiment_find(name), NULL, lab_profile_default(), env, &err), 0);
  cJSON *t = lab_trace_from_envelope(*env, NULL, NULL, &err);
  ck_assert_ptr_nonnull(t);
  return t;
}

START_TEST(every_timing_launch_has_a_flow_to_its_sgemm) {
  cJSON *env = NULL, *t = simulated_trace("timing", &env);
  int launches = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(env, "timeline")) launches +=
      !strncmp(str(e, "label"), "launch ", 7);
  ck_assert_int_gt(launches, 0);
  ck_assert_int_eq(count_ph(t, "s"), launches);
  ck_assert_int_eq(count_ph(t, "f"), launches);
  cJSON_Delete(t);
  cJSON_Delete(env);
}
END_TEST

START_TEST(allocator_memory_becomes_allocated_and_reserved_counters) {
  cJSON *env = NULL, *t = simulated_trace("allocator", &env);
  const cJSON *pts = NULL, *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(env, "series")) if (!strcmp(str(s, "id"), "allocated")) pts =
      cJSON_GetObjectItemCaseSensitive(s, "points");
  ck_assert_int_gt(cJSON_GetArraySize(pts), 0);
  ck_assert_int_eq(count_ph(t, "C"), cJSON_GetArraySize(pts));
  ck_assert_ptr_nonnull(str(cJSON_GetObjectItemCaseSensitive(t, "otherData"), "memory_counters"));
  /* and as PyTorch writes memory: "[memory]" instant events in bytes */
  double peak = 0, top = 0;
  const cJSON *p;
  cJSON_ArrayForEach(p, pts) top = fmax(top, cJSON_GetArrayItem(p, 1)->valuedouble * 1048576.0);
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(t, "traceEvents")) if (!strcmp(str(s, "ph"), "i") &&
                                                                                 !strcmp(str(s, "name"), "[memory]"))
      peak = fmax(peak, num(cJSON_GetObjectItemCaseSensitive(s, "args"), "Total Allocated"));
  ck_assert_int_eq(count_ph(t, "i"), cJSON_GetArraySize(pts));
  ck_assert_double_eq_tol(peak, top, 1);
  ck_assert(lab_trace_has_timeline(env));
  cJSON_Delete(t);
  cJSON_Delete(env);
}
END_TEST

/* Two spans on one lane that overlap without nesting cannot share a thread:
 * the second goes to a sub-thread, named apart. */
START_TEST(overlapping_spans_of_one_lane_go_to_separate_threads) {
  cJSON *env = lab_envelope_new("timing", "recorded", "GPU", NULL, NULL);
  lab_env_event(env, "gpu:0/stream0", "a", 0, 10);
  lab_env_event(env, "gpu:0/stream0", "b", 5, 15);
  lab_env_event(env, "gpu:0/stream0", "c", 1, 2); /* nests in a */
  lab_error err;
  cJSON *t = lab_trace_from_envelope(env, NULL, NULL, &err);
  ck_assert_ptr_nonnull(t);
  check_trace(env, t, "overlap");
  int tid_a = -1, tid_b = -1, tid_c = -1;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(t, "traceEvents")) {
    if (strcmp(str(e, "ph"), "X")) continue;
    int tid = (int)num(e, "tid");
    const char *n = str(e, "name");
    if (!strcmp(n, "a")) tid_a = tid;
    if (!strcmp(n, "b")) tid_b = tid;
    if (!strcmp(n, "c")) tid_c = tid;
  }
  ck_assert_int_ne(tid_a, tid_b);
  ck_assert_int_eq(tid_a, tid_c);
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(t, "otherData"), "source"),
                   "recorded: measured on a real GPU earlier and replayed");
  cJSON_Delete(t);
  cJSON_Delete(env);
}
END_TEST

static const cJSON *first_x(const cJSON *t, const char *name, const char *label) {
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(t, "traceEvents")) {
    const char *l = str(cJSON_GetObjectItemCaseSensitive(e, "args"), "label");
    if (!strcmp(str(e, "ph"), "X") && !strcmp(str(e, "name"), name) && (!label || (l && !strcmp(l, label)))) return e;
  }
  return NULL;
}
static double arg(const cJSON *e, const char *k) { return num(cJSON_GetObjectItemCaseSensitive(e, "args"), k); }

/* Kineto's categories, names and args (libkineto/src/output_json.cpp): a
 * launch is a cuda_runtime cudaLaunchKernel sharing its correlation with
 * the kernel, which names its device and stream; a flow's id is that
 * correlation; deviceProperties name the profile's device. */
START_TEST(launches_and_kernels_are_written_as_kineto_writes_them) {
  cJSON *env = NULL, *t = simulated_trace("timing", &env);
  const cJSON *l = first_x(t, "cudaLaunchKernel", "launch sgemm 1"), *k = first_x(t, "sgemm 1", NULL);
  ck_assert_ptr_nonnull(l);
  ck_assert_ptr_nonnull(k);
  ck_assert_str_eq(str(l, "cat"), "cuda_runtime");
  ck_assert_str_eq(str(k, "cat"), "kernel");
  ck_assert_double_eq(arg(l, "correlation"), arg(k, "correlation"));
  ck_assert_double_eq(arg(k, "device"), 0);
  ck_assert_double_eq(arg(k, "stream"), 0);
  ck_assert_str_eq(str(first_x(t, "cudaDeviceSynchronize", NULL), "cat"), "cuda_runtime");
  const cJSON *e;
  int flows = 0;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(t, "traceEvents")) if (!strcmp(str(e, "ph"), "s")) {
    ck_assert_str_eq(str(e, "cat"), "ac2g");
    flows += num(e, "id") == arg(l, "correlation");
  }
  ck_assert_int_eq(flows, 1);
  const cJSON *dp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t, "deviceProperties"), 0);
  ck_assert_str_eq(str(dp, "name"), lab_profile_default()->device_name);
  ck_assert_double_eq(num(dp, "computeMajor"), lab_profile_default()->cc_major);
  cJSON_Delete(t);
  cJSON_Delete(env);
  /* a graph's nodes all carry their cudaGraphLaunch's correlation */
  t = simulated_trace("graphs", &env);
  double c = arg(first_x(t, "cudaGraphLaunch", NULL), "correlation");
  ck_assert(c > 0);
  ck_assert_double_eq(arg(first_x(t, "graph node 1", NULL), "correlation"), c);
  ck_assert_double_eq(arg(first_x(t, "graph node 5", NULL), "correlation"), c);
  cJSON_Delete(t);
  cJSON_Delete(env);
}
END_TEST

/* profile draws one training step: a ProfilerStep span holds its host spans,
 * the .item() is aten::_local_scalar_dense, the copies are pageable memcpys with bytes */
START_TEST(profile_step_item_and_copies_are_kineto_events) {
  cJSON *env = NULL, *t = simulated_trace("profile", &env);
  const cJSON *st = NULL, *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(t, "traceEvents")) if (!strncmp(str(e, "name"), "ProfilerStep#", 13)) st = e;
  ck_assert_ptr_nonnull(st);
  ck_assert_str_eq(str(st, "cat"), "user_annotation");
  const cJSON *item = first_x(t, "aten::_local_scalar_dense", NULL);
  ck_assert_ptr_nonnull(item);
  ck_assert(num(item, "ts") >= num(st, "ts") && num(item, "ts") + num(item, "dur") <= num(st, "ts") + num(st, "dur") + 1e-6);
  const cJSON *cp = first_x(t, "Memcpy HtoD (Pageable -> Device)", "H2D copy inputs");
  ck_assert_ptr_nonnull(cp);
  ck_assert_str_eq(str(cp, "cat"), "gpu_memcpy");
  ck_assert(arg(cp, "bytes") > 0);
  cJSON_Delete(t);
  cJSON_Delete(env);
}
END_TEST

START_TEST(a_trace_refuses_what_is_no_envelope) {
  cJSON *o = cJSON_Parse("{\"timeline\":[]}");
  lab_error err;
  ck_assert_ptr_null(lab_trace_from_envelope(o, NULL, NULL, &err));
  ck_assert_int_eq(err.code, LAB_E_INTERNAL);
  cJSON_Delete(o);
}
END_TEST

Suite *make_trace_export_suite(void) {
  Suite *s = suite_create("trace_export");
  TCase *tc = tcase_create("trace_export");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, every_experiment_on_every_profile_exports_a_well_formed_trace, 0, lab_experiment_count());
  tcase_add_test(tc, every_timing_launch_has_a_flow_to_its_sgemm);
  tcase_add_test(tc, allocator_memory_becomes_allocated_and_reserved_counters);
  tcase_add_test(tc, overlapping_spans_of_one_lane_go_to_separate_threads);
  tcase_add_test(tc, a_trace_refuses_what_is_no_envelope);
  tcase_add_test(tc, launches_and_kernels_are_written_as_kineto_writes_them);
  tcase_add_test(tc, profile_step_item_and_copies_are_kineto_events);
  suite_add_tcase(s, tc);
  return s;
}
