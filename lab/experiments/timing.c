/* `timing`: parameters, envelope builder and simulator. The simulator runs
 * the stream model (lab/sim/stream_sim.h): each sgemm launch costs the host
 * launch_us and returns at once, the GPU runs the sgemms back to back for
 * lab_gemm_us each, a synchronize waits for the last one; the first run
 * pays cold_start_ms for loading the library and its kernels, after
 * context_ms for starting CUDA (the context, created at the first CUDA
 * call of the process: a part of the cold bar of its own). */
#include "timing.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "gpu_model.h"
#include "descriptor.h"
#include "rng.h"
#include "sim_measure.h"
#include "stats.h"
#include "stream_sim.h"
#include "text.h"
#include "units.h"
#include "framework.h"

LAB_PARAMS_DEFINE(timing)


int lab_timing_check(const lab_params *p, lab_error *err) {
  const lab_params_timing tp = lab_params_timing_of(p);
  double n = (double)tp.size, k = (double)tp.repeats;
  double flop = 2 * n * n * n * k;
  if (flop > LAB_TIMING_MAX_FLOP)
    return lab_fail(err, LAB_E_INVALID_PARAM, "repeats",
                    "size %.0f with repeats %.0f is %s TFLOP per batch, above the %s TFLOP limit; use at most %.0f "
                    "repeats or a smaller size",
                    n, k, LAB_PLAIN(flop / 1e12), LAB_PLAIN(LAB_TIMING_MAX_FLOP / 1e12), floor(LAB_TIMING_MAX_FLOP / (2 * n * n * n)));
  return 0;
}

/* Every sentence is a claim this run's numbers support: each branch tests
 * the claim it makes, and times are written by lab_fmt_ms so none reads
 * as zero. */
void lab_timing_findings(cJSON *env, const lab_timing_measure *m) {
  char a[24], b[24], c[24], d[24];
  int k = m->repeats;
  double ev = m->events_ms, sync = m->host_sync_ms, nosync = m->host_nosync_ms;
  double per_ms = k > 0 ? m->busy_ms / k : 0, launch_ms = k > 0 ? nosync / k : 0;
  /* The GPU's work began after the first launch, so it ended at least ev
   * after the timer started: when ev > nosync the timer stopped first. */
  if (ev > nosync)
    lab_env_finding(env, "Without synchronize the host timer saw %s while the GPU worked %s: the %d launch%s "
                    "returned before the work was done, and the timer stopped there.",
                    lab_fmt_ms(nosync, a, sizeof a), lab_fmt_ms(ev, b, sizeof b), k, k == 1 ? "" : "es");
  else
    lab_env_finding(env, "Without synchronize the host timer saw %s and the GPU worked %s: the GPU got through each "
                    "sgemm faster than the host launched the next (launch-bound), so here the launches, not the "
                    "GPU, set the pace. Larger matrices show the trap.",
                    lab_fmt_ms(nosync, a, sizeof a), lab_fmt_ms(ev, b, sizeof b));
  if (ev > 0) {
    double pct = 100 * fabs(sync - ev) / ev;
    lab_env_finding(env, "After synchronize the host timer saw %s, %s%% %s the CUDA events around the same batch "
                    "(%s): synchronize before reading the clock, or time with events.",
                    lab_fmt_ms(sync, a, sizeof a), lab_fmt_num(pct, d, sizeof d),
                    sync > ev ? "more than" : sync < ev ? "less than" : "off",
                    lab_fmt_ms(ev, b, sizeof b));
  }
  double warm = sync, ratio = warm > 0 ? m->cold_ms / warm : 0;
  char times[48], start[160] = "";
  if (ratio >= 1.05) snprintf(times, sizeof times, "%s times a warm batch", lab_fmt_num(ratio, d, sizeof d));
  else snprintf(times, sizeof times, "about as long as a warm batch");
  const char *part = lab_timing_start_part(m->platform);
  if (m->context_ms > 0 && part)
    snprintf(start, sizeof start, "%s (creating its context at the first %s call, not at import torch) took %s, "
             "%s%% of the first call; then ", part, m->platform == LAB_PLATFORM_ROCM ? "HIP" : "CUDA", lab_fmt_ms(m->context_ms, c, sizeof c),
             lab_fmt_num(100 * m->context_ms / (m->context_ms + m->cold_ms), d, sizeof d));
  if (m->cold_fresh == 1)
    lab_env_finding(env, "In a fresh process: %sthe first batch took %s (creating the cuBLAS handle and loading its "
                    "kernels), %s (%s). Warm up before you time, and never report the first run.",
                    start, lab_fmt_ms(m->cold_ms, a, sizeof a), times, lab_fmt_ms(warm, b, sizeof b));
  else if (m->cold_fresh == 0)
    lab_env_finding(env, "The first batch in this worker took %s, %s (%s). This worker may have loaded cuBLAS for "
                    "an earlier run, so a fresh process would pay more. Warm up before you time.",
                    lab_fmt_ms(m->cold_ms, a, sizeof a), times, lab_fmt_ms(warm, b, sizeof b));
  else if (!part)
    lab_env_finding(env, "The first run took %s in the model of a fresh process (loading cuBLAS and its kernels: "
                    "here MPS's kernels, with the Metal device's set-up; MPS has no CUDA context to start), %s (%s). "
                    "Warm up before you time, and never report the first run.",
                    lab_fmt_ms(m->cold_ms, a, sizeof a), times, lab_fmt_ms(warm, b, sizeof b));
  else
    lab_env_finding(env, "In the model of a fresh process: %sthe first run took %s (loading cuBLAS and its kernels), "
                    "%s (%s). Warm up before you time, and never report the first run.",
                    start, lab_fmt_ms(m->cold_ms, a, sizeof a), times, lab_fmt_ms(warm, b, sizeof b));
  if (k > 0 && m->busy_ms > 0)
    lab_env_finding(env, "Each launch cost the host about %s; each %d×%d sgemm ran %s on the GPU (%s TFLOPS, "
                    "timed in a batch held until all of it was queued).",
                    lab_fmt_ms(launch_ms, a, sizeof a), m->size, m->size, lab_fmt_ms(per_ms, b, sizeof b),
                    lab_fmt_num(2.0 * m->size * m->size * (double)m->size / (per_ms * 1e9), d, sizeof d));
  if (per_ms > 0 && per_ms < launch_ms)
    lab_env_finding(env, "Each sgemm (%s) is shorter than its launch (%s), so the GPU keeps waiting for the host "
                    "(launch-bound): bigger matrices, or fewer and larger kernels, keep it busy.",
                    lab_fmt_ms(per_ms, a, sizeof a), lab_fmt_ms(launch_ms, b, sizeof b));
  else if (per_ms > 0 && per_ms < 1.5 * launch_ms)
    lab_env_finding(env, "Each sgemm (%s) takes hardly longer than its launch (%s): a little smaller and the GPU "
                    "would wait for the host.",
                    lab_fmt_ms(per_ms, a, sizeof a), lab_fmt_ms(launch_ms, b, sizeof b));
  if (m->iqr_pct > LAB_NOISY_IQR_PCT)
    lab_env_finding(env, "The event timings spread by %.0f%% (IQR): the run was noisy; run it again.", m->iqr_pct);
}

void lab_timing_summarize(lab_timing_measure *m) {
  lab_summary sn, ss, se, sb;
  lab_summarize(m->nosync_ms, (size_t)m->samples, &sn);
  lab_summarize(m->sync_ms, (size_t)m->samples, &ss);
  lab_summarize(m->ev_ms, (size_t)m->samples, &se);
  lab_summarize(m->busy_samples_ms, (size_t)m->samples, &sb);
  m->host_nosync_ms = sn.median;
  m->host_sync_ms = ss.median;
  m->events_ms = se.median;
  m->iqr_pct = se.iqr_pct;
  m->busy_ms = sb.median;
  m->busy_iqr_pct = sb.iqr_pct;
}

const char *lab_timing_start_part(lab_platform platform) {
  return platform == LAB_PLATFORM_MPS ? NULL : platform == LAB_PLATFORM_ROCM ? "starting ROCm" : "starting CUDA";
}

/* The cold bar's parts, named for the page (details.first_call: [{part,
 * ms}]): starting CUDA (when measured or modelled), then the first batch
 * less a warm one (loading cuBLAS and its kernels), then the warm batch's
 * own work. The same for a real fresh process and the model. */
static void first_call_parts(cJSON *env, const lab_timing_measure *m) {
  cJSON *arr = cJSON_AddArrayToObject(lab_env_details(env), "first_call");
  const char *start = lab_timing_start_part(m->platform);
  double warm = m->host_sync_ms < m->cold_ms ? m->host_sync_ms : m->cold_ms;
  const char *library = m->platform == LAB_PLATFORM_MPS    ? "setting up Metal and loading its kernels"
                        : m->platform == LAB_PLATFORM_ROCM ? "loading rocBLAS and its kernels"
                                                           : "loading cuBLAS and its kernels";
  const char *names[3] = {start, library, "the matrix multiplies"};
  double ms[3] = {start ? m->context_ms : 0, m->cold_ms - warm, warm};
  for (int i = 0; arr && i < 3; i++) {
    if (!names[i] || !(ms[i] > 0)) continue;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "part", names[i]);
    cJSON_AddNumberToObject(o, "ms", ms[i]);
    cJSON_AddItemToArray(arr, o);
  }
}

cJSON *lab_timing_envelope(const lab_params *p, const lab_timing_measure *m, const char *backend,
                           const char *device_name, const lab_profile *prof) {
  const lab_params_timing tp = lab_params_timing_of(p);
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
  if (m->context_ms > 0) {
    lab_env_metric(env, "context_ms", m->context_ms);
    lab_env_metric(env, "context_share_pct", 100 * m->context_ms / (m->context_ms + m->cold_ms));
  }
  first_call_parts(env, m);
  lab_env_metric(env, "gpu_busy_ms", m->busy_ms);
  lab_env_metric(env, "launch_us", m->repeats ? m->host_nosync_ms * 1e3 / m->repeats : 0);
  lab_env_metric(env, "sgemm_ms", m->repeats ? m->busy_ms / m->repeats : 0);
  lab_env_metric(env, "tflops", m->busy_ms > 0 ? 2.0 * m->size * m->size * (double)m->size * m->repeats /
                                                     (m->busy_ms * 1e9)
                                               : 0);
  cJSON *e = lab_env_series(env, "events", "CUDA events", "sample", "ms");
  cJSON *s = lab_env_series(env, "host_sync", "host clock after synchronize", "sample", "ms");
  cJSON *n = lab_env_series(env, "host_nosync", "host clock, no synchronize", "sample", "ms");
  cJSON *g = lab_env_series(env, "gpu_busy", "GPU's own time (batch held until queued)", "sample", "ms");
  for (int i = 0; i < m->samples; i++) {
    lab_series_point(e, i + 1, m->ev_ms[i]);
    lab_series_point(s, i + 1, m->sync_ms[i]);
    lab_series_point(n, i + 1, m->nosync_ms[i]);
    lab_series_point(g, i + 1, m->busy_samples_ms[i]);
  }
  cJSON *runs = lab_env_series(env, "runs", "every batch in order (run 1 is cold)", "run", "ms");
  for (int i = 0; i < m->n_runs; i++) lab_series_point(runs, i + 1, m->run_ms[i]);
  for (int i = 0; i < m->n_launches; i++) {
    char label[48];
    /* appended, not printed (lab/base/text.h) */
    lab_env_event(env, "cpu", lab_text_numbered(label, sizeof label, "launch sgemm ", i + 1, ""),
                  m->launch_start_us[i], m->launch_end_us[i]);
    lab_env_event(env, "gpu:0/stream0", lab_text_numbered(label, sizeof label, "sgemm ", i + 1, ""),
                  m->gpu_start_us[i], m->gpu_end_us[i]);
  }
  lab_env_event(env, "cpu", "synchronize (host waits)", m->sync_start_us, m->sync_end_us);
  lab_timing_findings(env, m);
  bool simulated = !strcmp(backend, "simulated"), pytorch = lab_framework_report(env, tp.view, simulated ? prof : NULL);
  char method[1300];
  lab_text t; /* appended, not printed (lab/base/text.h) */
  lab_text_init(&t, method, sizeof method);
  if (simulated)
    lab_text_add(&t, "Simulated with the stream model of the profile: each launch costs the host launch_us (±8% "
                     "jitter) and returns; the GPU runs the sgemms in order, each taking 2·N³ flop at fp32 peak × "
                     "efficiency (lower for small matrices, ±1.5% jitter); a synchronize waits for the GPU and costs "
                     "sync_us; events span the batch from the first sgemm's start to the last one's end, waits for "
                     "launches included, at 0.5 µs resolution; the GPU's own time is the sgemms back to back; the first "
                     "run adds cold_start_ms (a fresh process loading cuBLAS), after context_ms (starting CUDA: the "
                     "context, ±10%). Medians of the samples.");
  else
    lab_text_add(&t, "Each sample is one batch of sgemms launched as a program launches them: the host clock is read "
                     "before the first launch, after the last launch (no synchronize) and after the synchronize; CUDA "
                     "events bracket the same batch. A second batch per sample is queued behind a kernel that waits "
                     "for a host-written flag until all of it is queued, and its events give the GPU's own time (per "
                     "sgemm and TFLOPS). The cold run is the first batch of a fresh process (cuBLAS handle and first "
                     "use; the context's creation timed apart), then two warm-ups. The timeline is one more warm "
                     "batch with an event after each sgemm: each starts at the later of its launch and the previous "
                     "one's end. Medians of the samples.");
  lab_text_add(&t, lab_framework_sentence(simulated, simulated && pytorch));
  lab_env_stats(env, m->samples, m->warmup, "events_ms", m->iqr_pct, method);
  if (m->validated >= 0) lab_env_validation(env, m->validated, m->max_abs_err);
  return env;
}

/* One batch on the stream model; fills the timeline arrays when `draw`. */
static void sim_batch(const lab_profile *prof, int n, int k, double cold_us, lab_rng *r, lab_timing_measure *m,
                      int draw, double *nosync_ms, double *sync_ms, double *ev_ms, double *busy_ms) {
  lab_profile jp = *prof;
  jp.launch_us *= lab_rng_jitter(r, 8); /* the host is never exactly as fast twice */
  jp.sync_us *= lab_rng_jitter(r, 10);
  lab_stream_sim s;
  lab_stream_init(&s, &jp, NULL);
  if (cold_us > 0) lab_stream_host(&s, "load cuBLAS and its kernels", cold_us);
  double first_start = -1, last_end = 0, busy_us = 0;
  for (int i = 0; i < k; i++) {
    double run = lab_gemm_us(&jp, n, n, n) * lab_rng_jitter(r, 1.5);
    busy_us += run > jp.kernel_min_us ? run : jp.kernel_min_us; /* the same sgemms held: back to back */
    double launch = s.host_us;
    if (jp.blas_us > 0) lab_stream_host(&s, "cuBLAS", jp.blas_us); /* its own host cost per call */
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
  *ev_ms = lab_event_ms((last_end - first_start) / 1e3);
  if (busy_ms) *busy_ms = busy_us / 1e3;
}

static int simulate(const lab_params *p, const lab_profile *base, cJSON **out, lab_error *err) {
  const lab_params_timing tp = lab_params_timing_of(p);
  lab_profile viewed;
  lab_framework_profile(base, lab_framework_pytorch(tp.view), &viewed);
  const lab_profile *prof = &viewed;
  lab_timing_measure m;
  memset(&m, 0, sizeof m);
  m.size = (int)tp.size;
  m.repeats = (int)tp.repeats;
  m.samples = (int)tp.samples;
  m.warmup = LAB_TIMING_WARMUP;
  lab_rng r;
  lab_rng_seed(&r, 0x71e1u ^ ((uint64_t)m.size << 20) ^ (uint64_t)m.repeats);
  double a, b, c, d;
  sim_batch(prof, m.size, m.repeats, prof->cold_start_ms * 1e3 * lab_rng_jitter(&r, 10), &r, &m, 0, &a, &b, &c, NULL);
  m.cold_ms = b;
  m.cold_fresh = -1;
  m.run_ms[m.n_runs++] = b;
  for (int i = 0; i < m.warmup; i++) {
    sim_batch(prof, m.size, m.repeats, 0, &r, &m, 0, &a, &b, &c, NULL);
    m.run_ms[m.n_runs++] = b;
  }
  for (int i = 0; i < m.samples; i++) {
    sim_batch(prof, m.size, m.repeats, 0, &r, &m, 0, &m.nosync_ms[i], &m.sync_ms[i], &m.ev_ms[i],
              &m.busy_samples_ms[i]);
    m.run_ms[m.n_runs++] = m.sync_ms[i];
  }
  sim_batch(prof, m.size, m.repeats, 0, &r, &m, 1, &a, &b, &d, NULL);
  /* drawn last, so the batches' draws are those of the model without it */
  m.context_ms = lab_timing_start_part(base->platform) ? prof->context_ms * lab_rng_jitter(&r, 10) : 0;
  m.platform = base->platform;
  lab_timing_summarize(&m);
  m.validated = -1;
  *out = lab_timing_envelope(p, &m, "simulated", base->device_name, base);
  return *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
}

/* The device memory one run allocates (see lab_experiment.gpu_bytes). */
static double gpu_bytes(const lab_params *p, const char **param) {
  const lab_params_timing tp = lab_params_timing_of(p);
  double n = (double)tp.size;
  *param = "size"; /* A, B, C of size² fp32 */
  return 3.0 * n * n * 4;
}

/* CPU cost (lab_experiment_cpu_ms): the stream model per repeat and
 * sample; 0.1 ms measured at 100 repeats × 7 samples (bench/cpu_cost):
 * 1 µs per launch over the 1 ms floor. */
LAB_CPU_MS(timing);

LAB_CPU_MS(timing) {
  const lab_params_timing tp = lab_params_timing_of(p);
  *param = "repeats";
  return 1.0 + 1e-3 * (double)tp.repeats * (double)tp.samples;
}

const lab_experiment lab_exp_timing = {
    .name = "timing",
    .title = "The asynchronous timing trap",
    .summary = "Why a host timer without synchronize lies, how events and a warm-up fix it, and the cold first run.",
    .lesson = "01-cuda-intuition",
    .params = lab_params_timing_spec,
    .n_params = LAB_PARAMS_COUNT(timing),
    .check = lab_timing_check,
    .gpu_bytes = gpu_bytes,
    .simulate = LAB_SIMULATOR(simulate),
};
