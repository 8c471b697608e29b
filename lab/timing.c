/* `timing`: parameters, envelope builder and simulator. The simulator runs
 * the stream model (lab/stream_sim.h): each sgemm launch costs the host
 * launch_us and returns at once, the GPU runs the sgemms back to back for
 * lab_gemm_us each, a synchronize waits for the last one; the first run
 * pays cold_start_ms for loading the library and its kernels. */
#include "timing.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "gpu_model.h"
#include "registry.h"
#include "rng.h"
#include "stats.h"
#include "stream_sim.h"

static const lab_param_spec timing_params[] = {
    {.name = "size", .type = LAB_P_INT, .min = 64, .max = 8192, .def = 2048, .unit = "elements",
     .help = "Side N of the square matrices multiplied (N x N times N x N, fp32)."},
    {.name = "repeats", .type = LAB_P_INT, .min = 1, .max = 100, .def = 10, .unit = NULL,
     .help = "How many sgemms one timed batch launches back to back (2 N^3 x repeats <= 4e12 flop)."},
    {.name = "samples", .type = LAB_P_INT, .min = 3, .max = LAB_TIMING_MAX_SAMPLES, .def = 7, .unit = NULL,
     .help = "Timed batches after the cold run and two warm-ups; medians are reported."},
};

#define N_PARAMS ((int)(sizeof timing_params / sizeof timing_params[0]))

int lab_timing_check(const lab_params *p, lab_error *err) {
  double n = lab_param(p, "size"), k = lab_param(p, "repeats");
  double flop = 2 * n * n * n * k;
  if (flop > LAB_TIMING_MAX_FLOP)
    return lab_fail(err, LAB_E_INVALID_PARAM, "repeats",
                    "size %.0f with repeats %.0f is %.2g flop per batch, above the %.0g limit; use at most %.0f "
                    "repeats or a smaller size",
                    n, k, flop, LAB_TIMING_MAX_FLOP, floor(LAB_TIMING_MAX_FLOP / (2 * n * n * n)));
  return 0;
}

static void add_findings(cJSON *env, const lab_timing_measure *m) {
  double ev = m->events_ms, per_ms = ev / m->repeats;
  double launch_us = m->host_nosync_ms * 1e3 / m->repeats;
  if (m->host_nosync_ms < 0.5 * ev)
    lab_env_finding(env, "Without synchronize the host timer saw %.3f ms while the GPU worked %.2f ms — the %d "
                    "launch%s returned before the work was done.",
                    m->host_nosync_ms, ev, m->repeats, m->repeats == 1 ? "" : "es");
  else
    lab_env_finding(env, "Without synchronize the host timer saw %.3f ms and the GPU worked %.2f ms: these sgemms "
                    "are so small that the GPU finishes about as fast as the host launches them, yet the timer "
                    "still stopped before the last one was done.",
                    m->host_nosync_ms, ev);
  lab_env_finding(env, "After synchronize the host timer saw %.2f ms, %.2f%% away from the CUDA events (%.2f ms): "
                  "synchronize before reading the clock, or time with events.",
                  m->host_sync_ms, ev > 0 ? 100 * fabs(m->host_sync_ms - ev) / ev : 0, ev);
  lab_env_finding(env, "The first run took %.1f ms, %.0f× a warm run (%.2f ms): it loaded cuBLAS and its kernels. "
                  "Warm up before you time, and never report the first run.",
                  m->cold_ms, m->host_sync_ms > 0 ? m->cold_ms / m->host_sync_ms : 0, m->host_sync_ms);
  char run[32];
  if (per_ms < 0.1) snprintf(run, sizeof run, "%.1f µs", per_ms * 1e3);
  else snprintf(run, sizeof run, "%.3f ms", per_ms);
  lab_env_finding(env, "Each launch cost the host about %.1f µs; each %d×%d sgemm ran %s on the GPU (%.1f TFLOPS).",
                  launch_us, m->size, m->size, run,
                  ev > 0 ? 2.0 * m->size * m->size * (double)m->size * m->repeats / (ev * 1e9) : 0);
  if (per_ms * 1e3 < 1.5 * launch_us)
    lab_env_finding(env, "Each sgemm takes hardly longer than its launch, so the GPU keeps waiting for the host "
                    "(launch-bound): bigger matrices, or fewer and larger kernels, keep it busy.");
  if (m->iqr_pct > LAB_NOISY_IQR_PCT)
    lab_env_finding(env, "The event timings spread by %.0f%% (IQR): the run was noisy; run it again.", m->iqr_pct);
}

void lab_timing_summarize(lab_timing_measure *m) {
  lab_summary sn, ss, se;
  lab_summarize(m->nosync_ms, (size_t)m->samples, &sn);
  lab_summarize(m->sync_ms, (size_t)m->samples, &ss);
  lab_summarize(m->ev_ms, (size_t)m->samples, &se);
  m->host_nosync_ms = sn.median;
  m->host_sync_ms = ss.median;
  m->events_ms = se.median;
  m->iqr_pct = se.iqr_pct;
}

cJSON *lab_timing_envelope(const lab_params *p, const lab_timing_measure *m, const char *backend,
                           const char *device_name, const lab_profile *prof) {
  cJSON *env = lab_envelope_new("timing", backend, device_name, prof ? prof->name : NULL, lab_params_to_json(p));
  if (!env) return NULL;
  double ev = m->events_ms;
  lab_env_metric(env, "events_ms", ev);
  lab_env_metric(env, "host_nosync_ms", m->host_nosync_ms);
  lab_env_metric(env, "host_sync_ms", m->host_sync_ms);
  lab_env_metric(env, "nosync_pct_of_events", ev > 0 ? 100 * m->host_nosync_ms / ev : 0);
  lab_env_metric(env, "sync_error_pct", ev > 0 ? 100 * fabs(m->host_sync_ms - ev) / ev : 0);
  lab_env_metric(env, "cold_ms", m->cold_ms);
  lab_env_metric(env, "warm_ms", m->host_sync_ms);
  lab_env_metric(env, "cold_over_warm", m->host_sync_ms > 0 ? m->cold_ms / m->host_sync_ms : 0);
  lab_env_metric(env, "launch_us", m->repeats ? m->host_nosync_ms * 1e3 / m->repeats : 0);
  lab_env_metric(env, "sgemm_ms", m->repeats ? ev / m->repeats : 0);
  lab_env_metric(env, "tflops", ev > 0 ? 2.0 * m->size * m->size * (double)m->size * m->repeats / (ev * 1e9) : 0);
  cJSON *e = lab_env_series(env, "events", "CUDA events", "sample", "ms");
  cJSON *s = lab_env_series(env, "host_sync", "host clock after synchronize", "sample", "ms");
  cJSON *n = lab_env_series(env, "host_nosync", "host clock, no synchronize", "sample", "ms");
  for (int i = 0; i < m->samples; i++) {
    lab_series_point(e, i + 1, m->ev_ms[i]);
    lab_series_point(s, i + 1, m->sync_ms[i]);
    lab_series_point(n, i + 1, m->nosync_ms[i]);
  }
  cJSON *runs = lab_env_series(env, "runs", "every batch in order (run 1 is cold)", "run", "ms");
  for (int i = 0; i < m->n_runs; i++) lab_series_point(runs, i + 1, m->run_ms[i]);
  for (int i = 0; i < m->n_launches; i++) {
    char label[48];
    snprintf(label, sizeof label, "launch sgemm %d", i + 1);
    lab_env_event(env, "cpu", label, m->launch_start_us[i], m->launch_end_us[i]);
    snprintf(label, sizeof label, "sgemm %d", i + 1);
    lab_env_event(env, "gpu:0/stream0", label, m->gpu_start_us[i], m->gpu_end_us[i]);
  }
  lab_env_event(env, "cpu", "synchronize (host waits)", m->sync_start_us, m->sync_end_us);
  add_findings(env, m);
  if (!strcmp(backend, "simulated"))
    lab_env_stats(env, m->samples, m->warmup, "events_ms", m->iqr_pct,
                  "Simulated with the stream model of the profile: each launch costs the host launch_us (±8% "
                  "jitter) and returns; the GPU runs the sgemms in order, each taking 2·N³ flop at fp32 peak × "
                  "efficiency (lower for small matrices, ±1.5% jitter); a synchronize waits for the GPU and costs "
                  "sync_us; events span the GPU's work; the first run adds cold_start_ms. Medians of the samples.");
  else
    lab_env_stats(env, m->samples, m->warmup, "events_ms", m->iqr_pct,
                  "Each sample is one batch of sgemms: the host clock is read before the first launch, after the "
                  "last launch (no synchronize) and after cudaStreamSynchronize; CUDA events bracket the same batch. "
                  "One cold run (cuBLAS handle creation and first use in this process) and two warm-ups come first. "
                  "The timeline is one extra warm batch with an event after each sgemm, aligned to the host clock "
                  "at the first event. Medians of the samples.");
  if (m->validated >= 0) lab_env_validation(env, m->validated, m->max_abs_err);
  return env;
}

/* One batch on the stream model; fills the timeline arrays when `draw`. */
static void sim_batch(const lab_profile *prof, int n, int k, double cold_us, lab_rng *r, lab_timing_measure *m,
                      int draw, double *nosync_ms, double *sync_ms, double *ev_ms) {
  lab_profile jp = *prof;
  jp.launch_us *= lab_rng_jitter(r, 8); /* the host is never exactly as fast twice */
  jp.sync_us *= lab_rng_jitter(r, 10);
  lab_stream_sim s;
  lab_stream_init(&s, &jp, NULL);
  if (cold_us > 0) lab_stream_host(&s, "load cuBLAS and its kernels", cold_us);
  double first_start = -1, last_end = 0;
  for (int i = 0; i < k; i++) {
    double run = lab_gemm_us(&jp, n, n, n) * lab_rng_jitter(r, 1.5);
    double launch = s.host_us;
    last_end = lab_stream_kernel(&s, "sgemm", run);
    double start = last_end - (run > jp.kernel_min_us ? run : jp.kernel_min_us);
    if (first_start < 0) first_start = start;
    if (draw && i < LAB_TIMING_MAX_LAUNCHES) {
      m->launch_start_us[i] = launch;
      m->launch_end_us[i] = s.host_us;
      m->gpu_start_us[i] = start;
      m->gpu_end_us[i] = last_end;
      m->n_launches = i + 1;
    }
  }
  double t1 = s.host_us;
  double t2 = lab_stream_sync(&s, "synchronize");
  if (draw) {
    m->sync_start_us = t1;
    m->sync_end_us = t2;
  }
  *nosync_ms = t1 / 1e3;
  *sync_ms = t2 / 1e3;
  /* Events are recorded on the stream: the start one completes as the GPU
   * reaches it (just before the first sgemm), the stop one after the last. */
  *ev_ms = (last_end - first_start) / 1e3;
}

static int simulate(const lab_params *p, const lab_profile *prof, cJSON **out, lab_error *err) {
  lab_timing_measure m;
  memset(&m, 0, sizeof m);
  m.size = (int)lab_param_int(p, "size");
  m.repeats = (int)lab_param_int(p, "repeats");
  m.samples = (int)lab_param_int(p, "samples");
  m.warmup = LAB_TIMING_WARMUP;
  lab_rng r;
  lab_rng_seed(&r, 0x71e1u ^ ((uint64_t)m.size << 20) ^ (uint64_t)m.repeats);
  double a, b, c, d;
  sim_batch(prof, m.size, m.repeats, prof->cold_start_ms * 1e3 * lab_rng_jitter(&r, 10), &r, &m, 0, &a, &b, &c);
  m.cold_ms = b;
  m.run_ms[m.n_runs++] = b;
  for (int i = 0; i < m.warmup; i++) {
    sim_batch(prof, m.size, m.repeats, 0, &r, &m, 0, &a, &b, &c);
    m.run_ms[m.n_runs++] = b;
  }
  for (int i = 0; i < m.samples; i++) {
    sim_batch(prof, m.size, m.repeats, 0, &r, &m, 0, &m.nosync_ms[i], &m.sync_ms[i], &m.ev_ms[i]);
    m.run_ms[m.n_runs++] = m.sync_ms[i];
  }
  sim_batch(prof, m.size, m.repeats, 0, &r, &m, 1, &a, &b, &d);
  lab_timing_summarize(&m);
  m.validated = -1;
  *out = lab_timing_envelope(p, &m, "simulated", prof->device_name, prof);
  return *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
}

/* The device memory one run allocates (see lab_experiment.gpu_bytes). */
static double gpu_bytes(const lab_params *p, const char **param) {
  double n = lab_param(p, "size");
  *param = "size"; /* A, B, C of size² fp32 */
  return 3.0 * n * n * 4;
}

const lab_experiment lab_exp_timing = {
    .name = "timing",
    .title = "The asynchronous timing trap",
    .summary = "Why a host timer without synchronize lies, how events and a warm-up fix it, and the cold first run.",
    .lesson = "01-cuda-intuition",
    .params = timing_params,
    .n_params = N_PARAMS,
    .check = lab_timing_check,
    .gpu_bytes = gpu_bytes,
    .simulate = simulate,
};
