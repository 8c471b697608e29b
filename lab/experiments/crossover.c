/* `crossover`: parameters, the real CPU timing (shared by the GPU run and
 * the simulator), the envelope builder, the verdict (who wins at each size,
 * read back from the envelope's series) and the simulator. The simulated
 * GPU side uses the stream model: launch_us + the sgemm model + sync_us,
 * plus pageable copies of A, B up and C down for the "with copies" line. */
#include "crossover.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cjson_compat.h"
#include "cpu_gemm.h"
#include "cutoff.h"
#include "envelope.h"
#include "gpu_model.h"
#include "descriptor.h"
#include "rng.h"
#include "stats.h"
#include "stream_sim.h"

#define SAMPLE_MIN_MS 2.0 /* a CPU sample runs at least this long: browser clocks resolve 5–100 µs */

LAB_PARAMS_DEFINE(crossover)


int lab_crossover_sizes(int max_n, int *out, int cap) {
  int k = 0;
  for (int n = LAB_CROSSOVER_MIN_N; n <= max_n && k < cap; n *= 2) out[k++] = n;
  if (k < cap && (k == 0 || out[k - 1] < max_n)) out[k++] = max_n;
  return k;
}

void lab_crossover_inputs(float *a, float *b, int n) {
  size_t elems = (size_t)n * (size_t)n;
  lab_fill_normal(a, elems, 0xa000u + (uint64_t)n);
  lab_fill_normal(b, elems, 0xb000u + (uint64_t)n);
}

/* ms per matmul over `reps` back-to-back runs. */
static double time_reps(const float *a, const float *b, float *c, int n, int reps) {
  double t0 = lab_clock_ms();
  for (int r = 0; r < reps; r++) lab_cpu_sgemm(a, b, c, n);
  return (lab_clock_ms() - t0) / reps;
}

int lab_crossover_cpu(lab_crossover_measure *m, lab_error *err) {
  int max_n = m->n[m->n_sizes - 1];
  size_t bytes = (size_t)max_n * (size_t)max_n * sizeof(float);
  float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
  int rc = 0;
  if (!a || !b || !c) {
    rc = lab_fail(err, LAB_E_NOMEM, "max_size", "not enough memory for %d x %d matrices; lower max_size", max_n,
                  max_n);
    goto end;
  }
  m->cpu_iqr_pct = 0;
  for (int i = 0; i < m->n_sizes; i++) {
    int n = m->n[i], reps = 1;
    double x[LAB_CROSSOVER_MAX_SAMPLES], spent = 0;
    lab_crossover_inputs(a, b, n);
    /* Warm-up that also picks how many runs one sample needs: double until
     * a batch lasts SAMPLE_MIN_MS. */
    for (;;) {
      double ms = time_reps(a, b, c, n, reps) * reps;
      spent += ms;
      if (ms >= SAMPLE_MIN_MS || reps >= (1 << 20)) break;
      reps *= 2;
    }
    int s = 0;
    while (s < m->samples && (s == 0 || spent < LAB_CROSSOVER_SIZE_BUDGET_MS)) {
      if (lab_cutoff(err)) { /* the server's client hung up (cutoff.h) */
        rc = -1;
        goto end;
      }
      x[s] = time_reps(a, b, c, n, reps);
      spent += x[s] * reps;
      s++;
    }
    lab_summary sum;
    lab_summarize(x, (size_t)s, &sum);
    m->cpu_ms[i] = sum.median;
    m->cpu_samples[i] = s;
    if (s > 2 && sum.iqr_pct > m->cpu_iqr_pct) m->cpu_iqr_pct = sum.iqr_pct;
  }
end:
  free(a);
  free(b);
  free(c);
  return rc;
}

int lab_crossover_point(const lab_crossover_measure *m, const double *fast, const double *slow) {
  int from = 0;
  for (int i = m->n_sizes - 1; i >= 0 && fast[i] < slow[i]; i--) from = m->n[i];
  return from;
}

/* A duration for a sentence: µs below 0.1 ms, where ms would show zeros. */
static const char *dur(double ms, char *buf, size_t n) {
  if (ms < 0.1) snprintf(buf, n, "%.1f µs", ms * 1e3);
  else if (ms < 100) snprintf(buf, n, "%.2f ms", ms);
  else snprintf(buf, n, "%.0f ms", ms);
  return buf;
}

static double gflops(int n, double ms) { return ms > 0 ? 2.0 * n * n * (double)n / (ms * 1e6) : 0; }

/* ---- the verdict: who wins at each size ------------------------------ */

/* One comparison, read back from the envelope's series, so the metrics,
 * the findings and the page's headline all come from the same numbers. */
typedef struct verdict {
  int n_sizes;
  int n[LAB_CROSSOVER_MAX_SIZES];
  double cpu_ms[LAB_CROSSOVER_MAX_SIZES], gpu_kernel_ms[LAB_CROSSOVER_MAX_SIZES];
  double gpu_ms[LAB_CROSSOVER_MAX_SIZES], gpu_copies_ms[LAB_CROSSOVER_MAX_SIZES];
  const char *cpu_id, *cpu_label; /* the best CPU line (see read_verdict) */
  bool cpu_blas;
  const char *other_label; /* the other CPU line, when there are two */
  double other_gflops;
} verdict;

static cJSON *series_named(const cJSON *env, const char *id) {
  cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(env, "series")) {
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(s, "id");
    if (cJSON_IsString(sid) && !strcmp(sid->valuestring, id)) return s;
  }
  return NULL;
}

/* The y of series `id` at each size of v (ms); -1 when one is missing or
 * not a time (a GPU time of 0 is kept: a timer may round a tiny kernel). */
static int read_line(const cJSON *env, const char *id, const verdict *v, double *y) {
  const cJSON *s = series_named(env, id), *pt;
  if (!s) return -1;
  for (int i = 0; i < v->n_sizes; i++) y[i] = -1;
  cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(s, "points")) {
    const cJSON *x = cJSON_GetArrayItem(pt, 0), *val = cJSON_GetArrayItem(pt, 1);
    if (!cJSON_IsNumber(x) || !cJSON_IsNumber(val)) continue;
    for (int i = 0; i < v->n_sizes; i++)
      if (v->n[i] == (int)x->valuedouble) y[i] = val->valuedouble;
  }
  for (int i = 0; i < v->n_sizes; i++)
    if (!(y[i] >= 0) || !isfinite(y[i])) return -1;
  return 0;
}

static const char *line_label(const cJSON *env, const char *id) {
  const char *l = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(series_named(env, id), "label"));
  return l ? l : id;
}

static int read_verdict(const cJSON *env, verdict *v) {
  const cJSON *pt;
  memset(v, 0, sizeof *v);
  cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(series_named(env, "gpu"), "points")) {
    const cJSON *x = cJSON_GetArrayItem(pt, 0);
    if (cJSON_IsNumber(x) && v->n_sizes < LAB_CROSSOVER_MAX_SIZES) v->n[v->n_sizes++] = (int)x->valuedouble;
  }
  if (v->n_sizes < 1 || read_line(env, "gpu", v, v->gpu_ms) || read_line(env, "gpu_kernel", v, v->gpu_kernel_ms) ||
      read_line(env, "gpu_copies", v, v->gpu_copies_ms))
    return -1;
  /* The best CPU line: a tuned BLAS when the result has one (the server's
   * line beside the browser's one thread: what numpy and PyTorch run),
   * else the faster at the largest size. Chosen by kind first, so a noisy
   * sample never swaps the line the headline names. */
  static const char *const cpus[] = {"cpu", "cpu_server"};
  double y[LAB_CROSSOVER_MAX_SIZES];
  int last = v->n_sizes - 1;
  for (int c = 0; c < 2; c++) {
    if (read_line(env, cpus[c], v, y)) continue;
    bool blas = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(series_named(env, cpus[c]), "blas"));
    bool better = !v->cpu_id || (blas && !v->cpu_blas) || (blas == v->cpu_blas && y[last] < v->cpu_ms[last]);
    if (!better) {
      v->other_label = line_label(env, cpus[c]);
      v->other_gflops = gflops(v->n[last], y[last]);
      continue;
    }
    if (v->cpu_id) {
      v->other_label = v->cpu_label;
      v->other_gflops = gflops(v->n[last], v->cpu_ms[last]);
    }
    v->cpu_id = cpus[c];
    v->cpu_label = line_label(env, cpus[c]);
    v->cpu_blas = blas;
    memcpy(v->cpu_ms, y, sizeof y);
  }
  return v->cpu_id ? 0 : -1;
}

static int point(const verdict *v, const double *fast, const double *slow) {
  lab_crossover_measure m;
  m.n_sizes = v->n_sizes;
  memcpy(m.n, v->n, sizeof m.n);
  return lab_crossover_point(&m, fast, slow);
}

static void add_metrics(cJSON *env, const verdict *v) {
  int last = v->n_sizes - 1;
  lab_env_metric(env, "crossover_n", point(v, v->gpu_ms, v->cpu_ms));
  lab_env_metric(env, "crossover_copies_n", point(v, v->gpu_copies_ms, v->cpu_ms));
  lab_env_metric(env, "largest_n", v->n[last]);
  lab_env_metric(env, "cpu_ms_largest", v->cpu_ms[last]);
  lab_env_metric(env, "gpu_ms_largest", v->gpu_ms[last]);
  lab_env_metric(env, "gpu_copies_ms_largest", v->gpu_copies_ms[last]);
  lab_env_metric(env, "speedup_largest", v->gpu_ms[last] > 0 ? v->cpu_ms[last] / v->gpu_ms[last] : 0);
  lab_env_metric(env, "speedup_copies_largest",
                 v->gpu_copies_ms[last] > 0 ? v->cpu_ms[last] / v->gpu_copies_ms[last] : 0);
  lab_env_metric(env, "cpu_ms_smallest", v->cpu_ms[0]);
  lab_env_metric(env, "gpu_ms_smallest", v->gpu_ms[0]);
  lab_env_metric(env, "gpu_overhead_us", (v->gpu_ms[0] - v->gpu_kernel_ms[0]) * 1e3);
  lab_env_metric(env, "cpu_gflops", gflops(v->n[last], v->cpu_ms[last]));
  lab_env_metric(env, "gpu_kernel_gflops", gflops(v->n[last], v->gpu_kernel_ms[last]));
}

/* details.headline: which CPU line the verdict used, and who was faster at
 * each size (data on the GPU), for the page's headline. */
static void add_headline(cJSON *env, const verdict *v) {
  cJSON *h = cJSON_CreateObject(), *who = cJSON_CreateArray();
  cJSON_AddStringToObject(h, "cpu", v->cpu_id);
  cJSON_AddStringToObject(h, "cpu_label", v->cpu_label);
  for (int i = 0; i < v->n_sizes; i++) {
    cJSON *w = cJSON_CreateObject();
    cJSON_AddNumberToObject(w, "n", v->n[i]);
    cJSON_AddStringToObject(w, "faster", v->gpu_ms[i] < v->cpu_ms[i] ? "gpu" : "cpu");
    cJSON_AddItemToArray(who, w);
  }
  cJSON_AddItemToObject(h, "sizes", who);
  cJSON *d = lab_env_details(env);
  cJSON_DeleteItemFromObjectCaseSensitive(d, "headline");
  cJSON_AddItemToObject(d, "headline", h);
}

static void add_findings(cJSON *env, const verdict *v) {
  int last = v->n_sizes - 1, big = v->n[last], small = v->n[0];
  int x = point(v, v->gpu_ms, v->cpu_ms), xc = point(v, v->gpu_copies_ms, v->cpu_ms);
  const char *backend = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(env, "backend"));
  const char *profile = cJSON_GetStringValue(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "device"), "profile"));
  const cJSON *iqr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "stats"), "iqr_pct");
  char a[32], b[32], c[32];
  if (x)
    lab_env_finding(env, "Against the best CPU here (%s), the GPU with the data on it won from N = %d on: at "
                    "N = %d it was %.0f× faster (%s vs %s).",
                    v->cpu_label, x, big, v->gpu_ms[last] > 0 ? v->cpu_ms[last] / v->gpu_ms[last] : 0,
                    dur(v->gpu_ms[last], a, sizeof a), dur(v->cpu_ms[last], b, sizeof b));
  else
    lab_env_finding(env, "Against the best CPU here (%s), the GPU never won for good up to N = %d (at N = %d: "
                    "GPU %s, CPU %s): the work is too small to pay for using the GPU.",
                    v->cpu_label, big, big, dur(v->gpu_ms[last], a, sizeof a), dur(v->cpu_ms[last], b, sizeof b));
  if (xc)
    lab_env_finding(env, "Counting the copies of A and B to the GPU and of C back, the GPU won from N = %d (at "
                    "N = %d: %s with copies, %s without).",
                    xc, big, dur(v->gpu_copies_ms[last], a, sizeof a), dur(v->gpu_ms[last], b, sizeof b));
  else
    lab_env_finding(env, "Counting the copies of A and B to the GPU and of C back, the GPU never won up to N = %d "
                    "(%s with copies vs %s on the CPU): keep data on the GPU between steps.",
                    big, dur(v->gpu_copies_ms[last], a, sizeof a), dur(v->cpu_ms[last], b, sizeof b));
  double fixed_us = (v->gpu_ms[0] - v->gpu_kernel_ms[0]) * 1e3;
  if (v->cpu_ms[0] < v->gpu_ms[0])
    lab_env_finding(env, "At N = %d the CPU needed %s but the GPU %s, of which the sgemm itself ran only %s: launch "
                    "and synchronize cost about %.0f µs, so tiny work loses on a GPU.",
                    small, dur(v->cpu_ms[0], a, sizeof a), dur(v->gpu_ms[0], b, sizeof b),
                    dur(v->gpu_kernel_ms[0], c, sizeof c), fixed_us);
  else
    lab_env_finding(env, "At N = %d the GPU needed %s, of which the sgemm itself ran only %s (launch and "
                    "synchronize cost about %.0f µs), and this CPU was slower still (%s): a CPU that slow loses "
                    "even on tiny work.",
                    small, dur(v->gpu_ms[0], a, sizeof a), dur(v->gpu_kernel_ms[0], b, sizeof b), fixed_us,
                    dur(v->cpu_ms[0], c, sizeof c));
  lab_env_finding(env, "At N = %d the best CPU here reached %.1f GFLOPS (%s); the GPU's sgemm reached %.0f "
                  "GFLOPS.",
                  big, gflops(big, v->cpu_ms[last]), v->cpu_label, gflops(big, v->gpu_kernel_ms[last]));
  if (v->other_label)
    lab_env_finding(env, "The other CPU line, %s, reached %.1f GFLOPS at N = %d.", v->other_label, v->other_gflops,
                    big);
  if (!v->cpu_blas)
    lab_env_finding(env, "This CPU side is one thread without a BLAS library, not a tuned BLAS such as OpenBLAS or "
                    "MKL on all cores (what numpy and PyTorch use): such a CPU is several times faster at large "
                    "sizes, so against it the GPU wins later than shown here.");
  if (backend && !strcmp(backend, "simulated") && profile)
    lab_env_finding(env, "The CPU times were measured for real %s; the GPU times come from the model of the %s "
                    "profile.",
                    v->other_label ? "in your browser and on the server" : "on this machine", profile);
  if (cJSON_IsNumber(iqr) && iqr->valuedouble > LAB_NOISY_IQR_PCT)
    lab_env_finding(env, "The CPU timings spread by up to %.0f%% (IQR): something else was running; run it again.",
                    iqr->valuedouble);
}

int lab_crossover_judge(cJSON *env) {
  verdict v;
  if (!env || read_verdict(env, &v)) return -1;
  add_metrics(env, &v);
  add_headline(env, &v);
  cJSON *fresh = cJSON_CreateArray();
  if (!fresh) return -1;
  cJSON_ReplaceItemInObjectCaseSensitive(env, "findings", fresh);
  add_findings(env, &v);
  return 0;
}

cJSON *lab_crossover_envelope(const lab_params *p, const lab_crossover_measure *m, const char *backend,
                              const char *device_name, const lab_profile *prof) {
  cJSON *env = lab_envelope_new("crossover", backend, device_name, prof ? prof->name : NULL, lab_params_to_json(p));
  if (!env || m->n_sizes < 1) return env;
  char cpu_label[128], how[96];
  lab_cpu_gemm_describe(how, sizeof how, true);
  snprintf(cpu_label, sizeof cpu_label, "CPU sgemm (%s)", how);
  lab_cpu_gemm_describe(how, sizeof how, false); /* the method names the kernel */
  const struct {
    const char *id, *label;
  } lines[] = {{"cpu", cpu_label},
               {"gpu_kernel", "GPU sgemm alone (events)"},
               {"gpu", "GPU, data on the device (launch + sgemm + synchronize)"},
               {"gpu_copies", "GPU with copies (A, B up; C down)"}};
  const double *ys[] = {m->cpu_ms, m->gpu_kernel_ms, m->gpu_ms, m->gpu_copies_ms};
  for (int s = 0; s < 4; s++) {
    cJSON *pts = lab_env_series(env, lines[s].id, lines[s].label, "N", "ms");
    for (int i = 0; i < m->n_sizes; i++) lab_series_point(pts, m->n[i], ys[s][i]);
  }
  lab_env_series_source(env, "cpu", "measured"); /* timed here, whatever produced the GPU lines */
  cJSON_AddBoolToObject(series_named(env, "cpu"), "blas", lab_cpu_gemm_is_blas());
  char method[900];
  if (!strcmp(backend, "simulated"))
    snprintf(method, sizeof method,
             "CPU: measured for real here — %s, monotonic clock around batches of at least 2 ms, after a warm-up; "
             "median of the samples (fewer on a size past 0.6 s). GPU: the profile's model — sgemm at fp32 peak × "
             "efficiency (lower for small matrices), plus launch_us and sync_us, plus pageable copies (latency + "
             "bytes over bandwidth) for the line with copies; jittered samples, medians.",
             how);
  else
    snprintf(method, sizeof method,
             "CPU: %s, monotonic clock around batches of at least 2 ms, after a warm-up; median of the samples "
             "(fewer on a size past 0.6 s). GPU: cuBLAS sgemm after a warm-up; sgemm alone by CUDA events around a "
             "batch; 'data on the device' and 'with copies' by the host clock after synchronize, copies from "
             "pageable memory; medians. Same random normal inputs on both sides.",
             how);
  lab_env_stats(env, m->samples, m->warmup, "cpu_ms", m->cpu_iqr_pct, method);
  if (m->validated >= 0) lab_env_validation(env, m->validated, m->max_abs_err);
  lab_crossover_judge(env);
  return env;
}

/* The GPU side of one size on the stream model, `samples` times, medians. */
static void sim_gpu(const lab_profile *prof, int n, int samples, lab_rng *r, double *kernel_ms, double *gpu_ms,
                    double *copies_ms) {
  double xk[LAB_CROSSOVER_MAX_SAMPLES], xg[LAB_CROSSOVER_MAX_SAMPLES], xc[LAB_CROSSOVER_MAX_SAMPLES];
  double bytes = (double)n * n * sizeof(float);
  for (int s = 0; s < samples; s++) {
    lab_profile jp = *prof;
    jp.launch_us *= lab_rng_jitter(r, 8);
    jp.sync_us *= lab_rng_jitter(r, 10);
    double run = lab_gemm_us(&jp, n, n, n) * lab_rng_jitter(r, 2);
    lab_stream_sim sim;
    lab_stream_init(&sim, &jp, NULL);
    if (jp.blas_us > 0) lab_stream_host(&sim, "cuBLAS", jp.blas_us); /* its own host cost per call */
    lab_stream_kernel(&sim, "sgemm", run);
    xg[s] = lab_stream_sync(&sim, "synchronize") / 1e3;
    xk[s] = (run > jp.kernel_min_us ? run : jp.kernel_min_us) / 1e3;
    lab_stream_init(&sim, &jp, NULL);
    lab_stream_copy(&sim, "A to GPU", bytes, jp.h2d_pageable_gbps, 0);
    lab_stream_copy(&sim, "B to GPU", bytes, jp.h2d_pageable_gbps, 0);
    if (jp.blas_us > 0) lab_stream_host(&sim, "cuBLAS", jp.blas_us); /* its own host cost per call */
    lab_stream_kernel(&sim, "sgemm", run);
    lab_stream_copy(&sim, "C to host", bytes, jp.d2h_pageable_gbps, 0);
    xc[s] = lab_stream_sync(&sim, "synchronize") / 1e3;
  }
  lab_summary k, g, c;
  lab_summarize(xk, (size_t)samples, &k);
  lab_summarize(xg, (size_t)samples, &g);
  lab_summarize(xc, (size_t)samples, &c);
  *kernel_ms = k.median;
  *gpu_ms = g.median;
  *copies_ms = c.median;
}

static int simulate(const lab_params *p, const lab_profile *prof, cJSON **out, lab_error *err) {
  const lab_params_crossover tp = lab_params_crossover_of(p);
  lab_crossover_measure m;
  memset(&m, 0, sizeof m);
  m.samples = (int)tp.samples;
  m.warmup = 1;
  m.n_sizes = lab_crossover_sizes((int)tp.max_size, m.n, LAB_CROSSOVER_MAX_SIZES);
  if (lab_crossover_cpu(&m, err)) return -1;
  lab_rng r;
  lab_rng_seed(&r, 0xc2055u ^ (uint64_t)m.n[m.n_sizes - 1]);
  for (int i = 0; i < m.n_sizes; i++)
    sim_gpu(prof, m.n[i], m.samples, &r, &m.gpu_kernel_ms[i], &m.gpu_ms[i], &m.gpu_copies_ms[i]);
  m.validated = -1;
  *out = lab_crossover_envelope(p, &m, "simulated", prof->device_name, prof);
  return *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
}

/* The device memory one run allocates (see lab_experiment.gpu_bytes). */
static double gpu_bytes(const lab_params *p, const char **param) {
  const lab_params_crossover tp = lab_params_crossover_of(p);
  double n = (double)tp.max_size;
  *param = "max_size"; /* A, B, C of max_size² fp32 */
  return 3.0 * n * n * 4;
}

/* CPU cost (lab_experiment_cpu_ms). The CPU half really runs: for each
 * size of the sweep a warm-up that doubles the runs per batch until one
 * lasts SAMPLE_MIN_MS (so a batch lasts 2 to 4 ms of wall time, or one
 * matmul when that is longer), then `samples` batches, cut short once a
 * size has spent LAB_CROSSOVER_SIZE_BUDGET_MS. On the reference machine
 * (AMD EPYC, 2 cores, OpenBLAS on both) a short batch is counted as 6 ms of
 * CPU (3 ms on two threads) and a short warm-up as 20; a long batch as one
 * sgemm at 45 GFLOP per CPU second (bench/cpu_cost measured about 54); and
 * 100 ms once for OpenBLAS's worker spinning after the last call (2^28
 * cycles before it sleeps, which the process is charged for). The short
 * sizes' loops stop on wall time, so a busy machine spends less CPU on
 * them than an idle one: the estimate is the idle case. */
LAB_CPU_MS(crossover);

LAB_CPU_MS(crossover) {
  const lab_params_crossover tp = lab_params_crossover_of(p);
  int n[LAB_CROSSOVER_MAX_SIZES];
  int k = lab_crossover_sizes((int)tp.max_size, n, LAB_CROSSOVER_MAX_SIZES);
  double samples = (double)tp.samples, total = 1.0 + 100.0, last = 0;
  for (int i = 0; i < k; i++) {
    double sgemm = 2.0 * n[i] * n[i] * (double)n[i] / 4.5e7, batch = sgemm > 6.0 ? sgemm : 6.0;
    double timed = samples * batch, cap = 2.0 * LAB_CROSSOVER_SIZE_BUDGET_MS + batch; /* wall × 2 threads */
    /* Written without steps (no rounding, no switch) so that it never falls as a size grows. */
    last = (sgemm > 20.0 ? sgemm : 20.0) + (timed < cap ? timed : cap);
    total += last;
  }
  /* samples at 1 cannot go lower: then only a smaller sweep helps */
  *param = last > total / 2 || samples <= 1 ? "max_size" : "samples";
  return total;
}

const lab_experiment lab_exp_crossover = {
    .name = "crossover",
    .title = "CPU or GPU?",
    .summary = "The same matmul on the CPU and the GPU over growing sizes: where the GPU starts to win, and why tiny "
               "work loses.",
    .lesson = "01-cuda-intuition",
    .params = lab_params_crossover_spec,
    .n_params = LAB_PARAMS_COUNT(crossover),
    .gpu_bytes = gpu_bytes,
    .simulate = LAB_SIMULATOR(simulate),
};
