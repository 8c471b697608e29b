/* `crossover`: parameters, the real CPU timing (shared by the GPU run and
 * the simulator), the envelope builder and the simulator. The simulated GPU
 * side uses the stream model: launch_us + the sgemm model + sync_us, plus
 * pageable copies of A, B up and C down for the "with copies" line. */
#include "crossover.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cjson_compat.h"
#include "cpu_gemm.h"
#include "envelope.h"
#include "gpu_model.h"
#include "registry.h"
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

static void add_findings(cJSON *env, const lab_crossover_measure *m, const char *backend, const lab_profile *prof) {
  int last = m->n_sizes - 1, big = m->n[last], small = m->n[0];
  int x = lab_crossover_point(m, m->gpu_ms, m->cpu_ms);
  int xc = lab_crossover_point(m, m->gpu_copies_ms, m->cpu_ms);
  char a[32], b[32], c[32];
  if (x)
    lab_env_finding(env, "With the data already on it, the GPU beat this CPU from N = %d on: at N = %d it was %.0f× "
                    "faster (%s vs %s).",
                    x, big, m->gpu_ms[last] > 0 ? m->cpu_ms[last] / m->gpu_ms[last] : 0,
                    dur(m->gpu_ms[last], a, sizeof a), dur(m->cpu_ms[last], b, sizeof b));
  else
    lab_env_finding(env, "Up to N = %d the GPU never beat this CPU for good (at N = %d: GPU %s, CPU %s): the work "
                    "is too small to pay for using the GPU.",
                    big, big, dur(m->gpu_ms[last], a, sizeof a), dur(m->cpu_ms[last], b, sizeof b));
  if (xc)
    lab_env_finding(env, "Counting the copies of A and B to the GPU and of C back, the GPU wins from N = %d (at "
                    "N = %d: %s with copies, %s without).",
                    xc, big, dur(m->gpu_copies_ms[last], a, sizeof a), dur(m->gpu_ms[last], b, sizeof b));
  else
    lab_env_finding(env, "Counting the copies of A and B to the GPU and of C back, the GPU never won up to N = %d "
                    "(%s with copies vs %s on the CPU): keep data on the GPU between steps.",
                    big, dur(m->gpu_copies_ms[last], a, sizeof a), dur(m->cpu_ms[last], b, sizeof b));
  lab_env_finding(env, "At N = %d the CPU needed %s but the GPU %s, of which the sgemm itself ran only %s: launch "
                  "and synchronize cost about %.0f µs, so tiny work loses on a GPU.",
                  small, dur(m->cpu_ms[0], a, sizeof a), dur(m->gpu_ms[0], b, sizeof b),
                  dur(m->gpu_kernel_ms[0], c, sizeof c), (m->gpu_ms[0] - m->gpu_kernel_ms[0]) * 1e3);
  char how[96];
  lab_cpu_gemm_describe(how, sizeof how);
  lab_env_finding(env, "At N = %d this CPU reached %.1f GFLOPS (%s); the GPU's sgemm reached %.0f GFLOPS.", big,
                  gflops(big, m->cpu_ms[last]), how, gflops(big, m->gpu_kernel_ms[last]));
  if (!lab_cpu_gemm_is_blas())
    lab_env_finding(env, "This CPU side is one thread of plain loops, not a tuned BLAS such as OpenBLAS or MKL on all "
                    "cores (what numpy and PyTorch use): a real CPU is many times faster, so the GPU wins later than "
                    "shown here.");
  if (!strcmp(backend, "simulated") && prof)
    lab_env_finding(env, "The CPU times were measured for real on this machine; the GPU times come from the model of "
                    "the %s profile.", prof->name);
  if (m->cpu_iqr_pct > LAB_NOISY_IQR_PCT)
    lab_env_finding(env, "The CPU timings spread by up to %.0f%% (IQR): something else was running; run it again.",
                    m->cpu_iqr_pct);
}

cJSON *lab_crossover_envelope(const lab_params *p, const lab_crossover_measure *m, const char *backend,
                              const char *device_name, const lab_profile *prof) {
  cJSON *env = lab_envelope_new("crossover", backend, device_name, prof ? prof->name : NULL, lab_params_to_json(p));
  if (!env || m->n_sizes < 1) return env;
  int last = m->n_sizes - 1;
  lab_env_metric(env, "crossover_n", lab_crossover_point(m, m->gpu_ms, m->cpu_ms));
  lab_env_metric(env, "crossover_copies_n", lab_crossover_point(m, m->gpu_copies_ms, m->cpu_ms));
  lab_env_metric(env, "largest_n", m->n[last]);
  lab_env_metric(env, "cpu_ms_largest", m->cpu_ms[last]);
  lab_env_metric(env, "gpu_ms_largest", m->gpu_ms[last]);
  lab_env_metric(env, "gpu_copies_ms_largest", m->gpu_copies_ms[last]);
  lab_env_metric(env, "speedup_largest", m->gpu_ms[last] > 0 ? m->cpu_ms[last] / m->gpu_ms[last] : 0);
  lab_env_metric(env, "speedup_copies_largest",
                 m->gpu_copies_ms[last] > 0 ? m->cpu_ms[last] / m->gpu_copies_ms[last] : 0);
  lab_env_metric(env, "cpu_ms_smallest", m->cpu_ms[0]);
  lab_env_metric(env, "gpu_ms_smallest", m->gpu_ms[0]);
  lab_env_metric(env, "gpu_overhead_us", (m->gpu_ms[0] - m->gpu_kernel_ms[0]) * 1e3);
  lab_env_metric(env, "cpu_gflops", gflops(m->n[last], m->cpu_ms[last]));
  lab_env_metric(env, "gpu_kernel_gflops", gflops(m->n[last], m->gpu_kernel_ms[last]));
  char cpu_label[128], how[96];
  lab_cpu_gemm_describe(how, sizeof how);
  snprintf(cpu_label, sizeof cpu_label, "CPU sgemm (%s)", how);
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
  add_findings(env, m, backend, prof);
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
    lab_stream_kernel(&sim, "sgemm", run);
    xg[s] = lab_stream_sync(&sim, "synchronize") / 1e3;
    xk[s] = (run > jp.kernel_min_us ? run : jp.kernel_min_us) / 1e3;
    lab_stream_init(&sim, &jp, NULL);
    lab_stream_copy(&sim, "A to GPU", bytes, jp.h2d_pageable_gbps, 0);
    lab_stream_copy(&sim, "B to GPU", bytes, jp.h2d_pageable_gbps, 0);
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
