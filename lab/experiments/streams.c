/* `streams`: parameters, envelope builder and simulator. The simulator runs
 * the several-stream model of lab/sim/stream_sim.h: each chunk's H2D copy,
 * kernel and D2H copy go on stream i mod K; one copy engine per direction
 * and one compute engine; a copy from pageable memory blocks the host, so
 * nothing is issued behind it. The race places each kernel against the
 * copy that writes its input and counts the values read before they were
 * written (the copy writes front to back, the kernel reads front to back). */
#include "streams.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "descriptor.h"
#include "rng.h"
#include "sim_measure.h"
#include "stats.h"
#include "stream_sim.h"
#include "text.h"

#define MIB 1048576.0

static const char *const memory_choices[] = {"pinned", "pageable", NULL};

LAB_PARAMS_DEFINE(streams)


static const char *const stage_name[LAB_ST_STAGES] = {"H2D", "kernel", "D2H"};
static const char *const config_label[LAB_ST_CONFIGS] = {"1 stream, pinned", "K streams, pinned",
                                                         "1 stream, pageable", "K streams, pageable"};
static const char *const config_id[LAB_ST_CONFIGS] = {"one_stream_pinned", "streams_pinned", "one_stream_pageable",
                                                      "streams_pageable"};

int lab_streams_check(const lab_params *p, lab_error *err) {
  const lab_params_streams tp = lab_params_streams_of(p);
  double n = (double)tp.chunks, mib = (double)tp.chunk_mib;
  if (n * mib > LAB_STREAMS_MAX_TOTAL_MIB)
    return lab_fail(err, LAB_E_INVALID_PARAM, "chunk_mib",
                    "%.0f chunks of %.0f MiB is %.0f MiB, above the %d MiB limit; use chunk_mib <= %.0f or fewer "
                    "chunks",
                    n, mib, n * mib, LAB_STREAMS_MAX_TOTAL_MIB, floor(LAB_STREAMS_MAX_TOTAL_MIB / n));
  return 0;
}

void lab_streams_setup(const lab_params *p, lab_streams_measure *m) {
  const lab_params_streams tp = lab_params_streams_of(p);
  memset(m, 0, sizeof *m);
  m->chunks = (int)tp.chunks;
  m->chunk_bytes = (double)tp.chunk_mib * MIB;
  m->kernel_us = (double)tp.kernel_us;
  m->streams = (int)tp.streams;
  m->pinned = strcmp(memory_choices[tp.memory], "pinned") == 0;
  m->wait = tp.wait;
  m->samples = LAB_STREAMS_SAMPLES;
  m->warmup = LAB_STREAMS_WARMUP;
  m->validated = -1;
}

float lab_streams_ref(float x) { return fmaf(x, fmaf(x, 0.5f, 0.25f), -1.0f); }

lab_streams_config lab_streams_asked(const lab_streams_measure *m) {
  if (m->pinned) return m->streams > 1 ? LAB_ST_MANY_PINNED : LAB_ST_ONE_PINNED;
  return m->streams > 1 ? LAB_ST_MANY_PAGEABLE : LAB_ST_ONE_PAGEABLE;
}

lab_streams_config lab_streams_baseline(const lab_streams_measure *m) {
  return m->pinned ? LAB_ST_ONE_PINNED : LAB_ST_ONE_PAGEABLE;
}

void lab_streams_summarize(lab_streams_measure *m) {
  for (int c = 0; c < LAB_ST_CONFIGS; c++) {
    lab_summary s;
    if (lab_summarize(m->total_ms[c], (size_t)m->samples, &s) == 0) {
      m->median_ms[c] = s.median;
      m->iqr_pct[c] = s.iqr_pct;
    }
  }
}

/* ---- envelope ---- */

static void add_run(cJSON *env, const lab_streams_run *r, const char *prefix, int engines, const int *stale) {
  static const char *const engine[LAB_ST_STAGES] = {"engine/h2d", "engine/compute", "engine/d2h"};
  char lane[64], label[64];
  for (int i = 0; i < r->n_spans; i++) {
    const lab_streams_span *s = &r->span[i];
    int bad = stale && s->stage == LAB_ST_KERNEL && s->chunk < LAB_STREAMS_MAX_CHUNKS && stale[s->chunk];
    lab_text t; /* appended, not printed: every span of every drawn run (lab/base/text.h) */
    lab_text_init(&t, label, sizeof label);
    lab_text_add(&t, stage_name[s->stage]);
    lab_text_add(&t, " ");
    lab_text_int(&t, s->chunk);
    lab_text_add(&t, bad ? " (read stale data)" : "");
    lab_text_init(&t, lane, sizeof lane);
    lab_text_add(&t, prefix);
    lab_text_add(&t, "gpu:0/stream");
    lab_text_int(&t, s->stream);
    lab_env_event(env, lane, label, s->start_us, s->end_us);
    if (engines) {
      lab_text_init(&t, lane, sizeof lane);
      lab_text_add(&t, prefix);
      lab_text_add(&t, "gpu:0/");
      lab_text_add(&t, engine[s->stage]);
      lab_env_event(env, lane, label, s->start_us, s->end_us);
    }
  }
}

static void add_findings(cJSON *env, const lab_streams_measure *m) {
  lab_streams_config asked = lab_streams_asked(m), base = lab_streams_baseline(m);
  const double *st = m->stage_us[m->pinned];
  double total = m->median_ms[asked], one = m->median_ms[base];
  double bound = 0;
  int busiest = 0;
  for (int s = 0; s < LAB_ST_STAGES; s++)
    if (st[s] > st[busiest]) busiest = s;
  bound = m->chunks * st[busiest] / 1e3;
  const char *mem = m->pinned ? "pinned" : "pageable";
  if (m->streams > 1)
    lab_env_finding(env, "On one stream the %d chunks took %.2f ms; spread over %d streams with %s memory they took "
                    "%.2f ms: %.2f× %s.",
                    m->chunks, one, m->streams, mem, total, total > 0 ? one / total : 0,
                    one > 1.1 * total ? "faster, because copies and kernels of different chunks ran at the same time"
                                      : "— hardly any gain: nothing overlapped");
  else
    lab_env_finding(env, "With one stream every copy and kernel waits for the one before it: the %d chunks took "
                    "%.2f ms. Set streams to 4 to let them overlap (%s memory on 4 streams would be the next step).",
                    m->chunks, total, mem);
  lab_env_finding(env, "One chunk: H2D %.0f µs, kernel %.0f µs, D2H %.0f µs (%s memory). The busiest engine (%s) "
                  "needs %.2f ms for all chunks, the floor any number of streams can reach; this run is at %.0f%% "
                  "of it.",
                  st[0], st[1], st[2], mem, busiest == LAB_ST_KERNEL ? "compute" : stage_name[busiest], bound,
                  total > 0 ? 100 * bound / total : 0);
  double pin_gain = m->median_ms[LAB_ST_MANY_PINNED] > 0
                        ? m->median_ms[LAB_ST_ONE_PINNED] / m->median_ms[LAB_ST_MANY_PINNED] : 0;
  double page_gain = m->median_ms[LAB_ST_MANY_PAGEABLE] > 0
                         ? m->median_ms[LAB_ST_ONE_PAGEABLE] / m->median_ms[LAB_ST_MANY_PAGEABLE] : 0;
  lab_env_finding(env, "With pageable memory %d stream%s took %.2f ms against %.2f ms on one (%.2f×); with pinned "
                  "memory %.2f ms against %.2f ms (%.2f×): a copy from pageable memory blocks the host until it is "
                  "done, so nothing queued behind it can overlap.",
                  m->streams, m->streams == 1 ? "" : "s", m->median_ms[LAB_ST_MANY_PAGEABLE],
                  m->median_ms[LAB_ST_ONE_PAGEABLE], page_gain, m->median_ms[LAB_ST_MANY_PINNED],
                  m->median_ms[LAB_ST_ONE_PINNED], pin_gain);
  if (!m->wait && m->stale_chunks > 0)
    lab_env_finding(env, "Race: without an event wait, %d of %d chunks read stale data (%.0f of %.0f values wrong "
                    "against the CPU reference): the kernel on the compute stream started before the copy stream "
                    "had finished writing its input. Set wait to true.",
                    m->stale_chunks, m->chunks, m->stale_elements, m->checked_elements);
  else if (!m->wait)
    lab_env_finding(env, "Race: without an event wait, 0 of %d chunks read stale data this time — each copy happened "
                    "to finish before its kernel started. The race is still there: a smaller kernel_us or a bigger "
                    "chunk_mib exposes it.",
                    m->chunks);
  else
    lab_env_finding(env, "Race fixed: with cudaStreamWaitEvent before each kernel, %d of %d chunks read stale data "
                    "(%.0f of %.0f values wrong); the race run took %.2f ms.",
                    m->stale_chunks, m->chunks, m->stale_elements, m->checked_elements, m->race_ms);
  if (m->iqr_pct[asked] > LAB_NOISY_IQR_PCT)
    lab_env_finding(env, "The samples spread by %.0f%% (IQR): the run was noisy; run it again.", m->iqr_pct[asked]);
}

cJSON *lab_streams_envelope(const lab_params *p, const lab_streams_measure *m, const char *backend,
                            const char *device_name, const lab_profile *prof) {
  cJSON *env = lab_envelope_new("streams", backend, device_name, prof ? prof->name : NULL, lab_params_to_json(p));
  if (!env) return NULL;
  lab_streams_config asked = lab_streams_asked(m), base = lab_streams_baseline(m);
  const double *st = m->stage_us[m->pinned];
  double bound = 0, serial = 0;
  for (int s = 0; s < LAB_ST_STAGES; s++) {
    bound = fmax(bound, m->chunks * st[s] / 1e3);
    serial += m->chunks * st[s] / 1e3;
  }
  double total = m->median_ms[asked], one = m->median_ms[base];
  lab_env_metric(env, "total_ms", total);
  lab_env_metric(env, "one_stream_ms", one);
  lab_env_metric(env, "speedup", total > 0 ? one / total : 0);
  for (int c = 0; c < LAB_ST_CONFIGS; c++) {
    char key[48];
    snprintf(key, sizeof key, "%s_ms", config_id[c]);
    lab_env_metric(env, key, m->median_ms[c]);
  }
  lab_env_metric(env, "pinned_speedup", m->median_ms[LAB_ST_MANY_PINNED] > 0
                                            ? m->median_ms[LAB_ST_ONE_PINNED] / m->median_ms[LAB_ST_MANY_PINNED] : 0);
  lab_env_metric(env, "pageable_speedup",
                 m->median_ms[LAB_ST_MANY_PAGEABLE] > 0
                     ? m->median_ms[LAB_ST_ONE_PAGEABLE] / m->median_ms[LAB_ST_MANY_PAGEABLE] : 0);
  lab_env_metric(env, "bound_ms", bound);
  lab_env_metric(env, "stages_sum_ms", serial);
  /* Share of the time overlap could save (sum of stages − busiest engine) that it did save. */
  double hidden = serial > bound ? 100 * (serial - total) / (serial - bound) : 0;
  lab_env_metric(env, "overlap_pct", hidden < 0 ? 0 : hidden > 100 ? 100 : hidden);
  lab_env_metric(env, "h2d_us", st[LAB_ST_H2D]);
  lab_env_metric(env, "kernel_run_us", st[LAB_ST_KERNEL]);
  lab_env_metric(env, "d2h_us", st[LAB_ST_D2H]);
  lab_env_metric(env, "h2d_gbps", st[LAB_ST_H2D] > 0 ? m->chunk_bytes / (st[LAB_ST_H2D] * 1e3) : 0);
  lab_env_metric(env, "d2h_gbps", st[LAB_ST_D2H] > 0 ? m->chunk_bytes / (st[LAB_ST_D2H] * 1e3) : 0);
  lab_env_metric(env, "stale_chunks", m->stale_chunks);
  lab_env_metric(env, "race_chunks", m->chunks);
  lab_env_metric(env, "stale_elements", m->stale_elements);
  lab_env_metric(env, "checked_elements", m->checked_elements);
  lab_env_metric(env, "race_ms", m->race_ms);
  for (int c = 0; c < LAB_ST_CONFIGS; c++) {
    char label[64];
    snprintf(label, sizeof label, "%s", config_label[c]);
    if (m->streams > 1 && label[0] == 'K') snprintf(label, sizeof label, "%d%s", m->streams, config_label[c] + 1);
    if (m->streams == 1 && label[0] == 'K') snprintf(label, sizeof label, "1 stream%s", config_label[c] + 9);
    cJSON *pts = lab_env_series(env, config_id[c], label, "sample", "ms");
    for (int i = 0; i < m->samples; i++) lab_series_point(pts, i + 1, m->total_ms[c][i]);
  }
  add_run(env, &m->many, "", 1, NULL);
  if (m->streams > 1) add_run(env, &m->one, "baseline:", 0, NULL);
  add_run(env, &m->race, "race:", 0, m->stale_chunk);
  cJSON *d = lab_env_details(env);
  if (d) {
    cJSON_AddNumberToObject(d, "streams", m->streams);
    cJSON_AddStringToObject(d, "memory", m->pinned ? "pinned" : "pageable");
    cJSON_AddBoolToObject(d, "wait", m->wait);
    cJSON_AddStringToObject(d, "lanes", "gpu:0/streamN and gpu:0/engine/*: the run asked for; baseline:…: the same "
                                        "chunks on one stream; race:gpu:0/stream0 copies, race:gpu:0/stream1 kernels");
  }
  add_findings(env, m);
  if (!strcmp(backend, "simulated"))
    lab_env_stats(env, m->samples, m->warmup, "total_ms", m->iqr_pct[asked],
                  "Simulated with the several-stream model of the profile: chunk i goes on stream i mod K; a copy "
                  "takes copy_latency_us + bytes / bandwidth (pinned or pageable figures, ±3% jitter) on its "
                  "direction's copy engine, a kernel max(kernel_us, its memory pass) on the compute engine; each "
                  "engine serves its ops in order; a pageable copy blocks the host until it ends. Medians of the "
                  "samples of each of the four pipelines.");
  else
    lab_env_stats(env, m->samples, m->warmup, "total_ms", m->iqr_pct[asked],
                  "Each sample enqueues every chunk's H2D copy, kernel and D2H copy (chunk i on stream i mod K) "
                  "behind a spin kernel that holds the GPU until all is queued; CUDA events before and after each "
                  "op, elapsed from a start event all streams wait on, give the timeline and the total (start to "
                  "last event). An op whose engine was busy is drawn from when the engine freed up (each copy "
                  "engine and the compute engine taken in order). The kernel fills every SM. Medians of the samples "
                  "of each of the four pipelines; outputs checked against the CPU.");
  if (m->validated >= 0) lab_env_validation(env, m->validated, m->max_abs_err);
  return env;
}

/* ---- simulator ---- */

/* The hold: the GPU starts once the host has queued everything (the spin
 * kernel of the GPU side), so time 0 is when the start event completes. */
static void sim_pipeline(const lab_profile *prof, const lab_streams_measure *m, int k, int pinned, lab_rng *r,
                         double *total_ms, double stage_us[LAB_ST_STAGES], lab_streams_run *draw) {
  lab_profile jp = *prof;
  jp.launch_us *= lab_rng_jitter(r, 8);
  lab_streams_sim s;
  lab_streams_init(&s, &jp, k, NULL);
  double hold = pinned ? 3 * m->chunks * jp.launch_us + 20 : 0;
  for (int i = 0; i < s.n_streams; i++) lab_streams_wait(&s, i, hold);
  double h2d_gbps = pinned ? prof->h2d_pinned_gbps : prof->h2d_pageable_gbps;
  double d2h_gbps = pinned ? prof->d2h_pinned_gbps : prof->d2h_pageable_gbps;
  /* The kernel reads and writes the chunk once, then works until kernel_us. */
  double pass_us = 2 * m->chunk_bytes / (prof->mem_bw_gbps * 1e3);
  double origin = fmax(hold, 0), end = 0;
  if (draw) draw->n_streams = s.n_streams, draw->n_spans = 0;
  for (int c = 0; c < m->chunks; c++) {
    int st = c % s.n_streams;
    double start[LAB_ST_STAGES], stop[LAB_ST_STAGES];
    stop[0] = lab_streams_copy(&s, st, LAB_ENGINE_H2D, "H2D", m->chunk_bytes, h2d_gbps * lab_rng_jitter(r, 3), pinned,
                               &start[0]);
    stop[1] = lab_streams_op(&s, st, LAB_ENGINE_COMPUTE, "kernel",
                             fmax(m->kernel_us, pass_us) * lab_rng_jitter(r, 1), 0, &start[1]);
    stop[2] = lab_streams_copy(&s, st, LAB_ENGINE_D2H, "D2H", m->chunk_bytes, d2h_gbps * lab_rng_jitter(r, 3), pinned,
                               &start[2]);
    for (int g = 0; g < LAB_ST_STAGES; g++) {
      if (stage_us && c == 0) stage_us[g] = stop[g] - start[g];
      if (draw)
        draw->span[draw->n_spans++] = (lab_streams_span){c, st, g, start[g] - origin, stop[g] - origin};
    }
  }
  end = lab_streams_end(&s);
  *total_ms = (end - origin) / 1e3;
}

/* Share of a chunk the kernel read before the copy wrote it: the copy
 * writes position f at cs + lat + f·D, the kernel reads it at ks + f·pass. */
static double stale_share(double cs, double ce, double lat, double ks, double pass_us) {
  double d = ce - cs - lat;
  double a = ks - cs - lat, b = pass_us - d; /* read − write time at f is a + b·f */
  if (fabs(b) < 1e-12) return a < 0 ? 1 : 0;
  double f0 = -a / b;
  f0 = f0 < 0 ? 0 : f0 > 1 ? 1 : f0;
  return b > 0 ? f0 : 1 - f0;
}

static void sim_race(const lab_profile *prof, lab_streams_measure *m, lab_rng *r) {
  lab_streams_sim s;
  lab_streams_init(&s, prof, 2, NULL);
  double hold = 4 * m->chunks * prof->launch_us + 20;
  lab_streams_wait(&s, 0, hold);
  lab_streams_wait(&s, 1, hold);
  double pass_us = 2 * m->chunk_bytes / (prof->mem_bw_gbps * 1e3), elems = m->chunk_bytes / 4;
  m->race.n_streams = 2;
  m->race.n_spans = 0;
  for (int c = 0; c < m->chunks; c++) {
    double cs, ks, ds;
    double ce = lab_streams_copy(&s, 0, LAB_ENGINE_H2D, "H2D", m->chunk_bytes,
                                 prof->h2d_pinned_gbps * lab_rng_jitter(r, 3), 1, &cs);
    if (m->wait) lab_streams_wait(&s, 1, lab_streams_event(&s, 0));
    double ke = lab_streams_op(&s, 1, LAB_ENGINE_COMPUTE, "kernel", fmax(m->kernel_us, pass_us) * lab_rng_jitter(r, 1),
                               0, &ks);
    double de = lab_streams_copy(&s, 1, LAB_ENGINE_D2H, "D2H", m->chunk_bytes,
                                 prof->d2h_pinned_gbps * lab_rng_jitter(r, 3), 1, &ds);
    double bad = floor(stale_share(cs, ce, prof->copy_latency_us, ks, pass_us) * elems);
    m->stale_chunk[c] = bad > 0;
    m->stale_chunks += bad > 0;
    m->stale_elements += bad;
    m->checked_elements += elems;
    m->race.span[m->race.n_spans++] = (lab_streams_span){c, 0, LAB_ST_H2D, cs - hold, ce - hold};
    m->race.span[m->race.n_spans++] = (lab_streams_span){c, 1, LAB_ST_KERNEL, ks - hold, ke - hold};
    m->race.span[m->race.n_spans++] = (lab_streams_span){c, 1, LAB_ST_D2H, ds - hold, de - hold};
  }
  m->race_ms = (lab_streams_end(&s) - hold) / 1e3;
}

static int simulate(const lab_params *p, const lab_profile *prof, cJSON **out, lab_error *err) {
  lab_streams_measure m;
  lab_streams_setup(p, &m);
  lab_rng r;
  lab_rng_seed(&r, 0x57e4u ^ ((uint64_t)m.chunks << 8) ^ ((uint64_t)m.chunk_bytes) ^ ((uint64_t)m.kernel_us << 32) ^
                       ((uint64_t)m.streams << 48));
  for (int c = 0; c < LAB_ST_CONFIGS; c++) {
    int pinned = c == LAB_ST_ONE_PINNED || c == LAB_ST_MANY_PINNED;
    int k = (c == LAB_ST_MANY_PINNED || c == LAB_ST_MANY_PAGEABLE) ? m.streams : 1;
    double t, stage[LAB_ST_STAGES];
    double stages[LAB_ST_STAGES][LAB_STREAMS_SAMPLES];
    for (int w = 0; w < m.warmup; w++) sim_pipeline(prof, &m, k, pinned, &r, &t, NULL, NULL);
    for (int i = 0; i < m.samples; i++) {
      sim_pipeline(prof, &m, k, pinned, &r, &m.total_ms[c][i], stage, NULL);
      m.total_ms[c][i] = lab_event_ms(m.total_ms[c][i]); /* timed with CUDA events on a GPU */
      for (int g = 0; g < LAB_ST_STAGES; g++) stages[g][i] = stage[g];
    }
    if (k == 1) {
      for (int g = 0; g < LAB_ST_STAGES; g++) {
        lab_summary s;
        lab_summarize(stages[g], (size_t)m.samples, &s);
        m.stage_us[pinned][g] = s.median;
      }
    }
  }
  /* The drawn runs: the one asked for and its one-stream twin. */
  double t;
  sim_pipeline(prof, &m, m.streams, m.pinned, &r, &t, NULL, &m.many);
  sim_pipeline(prof, &m, 1, m.pinned, &r, &t, NULL, &m.one);
  sim_race(prof, &m, &r);
  lab_streams_summarize(&m);
  *out = lab_streams_envelope(p, &m, "simulated", prof->device_name, prof);
  return *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
}

/* The device memory one run allocates (see lab_experiment.gpu_bytes). */
static double gpu_bytes(const lab_params *p, const char **param) {
  const lab_params_streams tp = lab_params_streams_of(p);
  *param = "chunk_mib"; /* an input and an output buffer per chunk */
  return 2.0 * (double)tp.chunks * (double)tp.chunk_mib * 1024 * 1024;
}

/* CPU cost (lab_experiment_cpu_ms): the stream model per chunk and
 * stream; 0.3 ms measured at 32 chunks × 8 streams (bench/cpu_cost):
 * 10 µs a chunk over the 1 ms floor. */
LAB_CPU_MS(streams);

LAB_CPU_MS(streams) {
  const lab_params_streams tp = lab_params_streams_of(p);
  *param = "chunks";
  return 1.0 + 0.01 * (double)tp.chunks;
}

const lab_experiment lab_exp_streams = {
    .name = "streams",
    .title = "Streams: copies and kernels overlapping",
    .summary = "Chunks copied in, computed on and copied back on one stream vs several, pinned vs pageable, and the "
               "race when one stream reads what another is still writing.",
    .lesson = "02-cuda-toolbox",
    .params = lab_params_streams_spec,
    .n_params = LAB_PARAMS_COUNT(streams),
    .check = lab_streams_check,
    .gpu_bytes = gpu_bytes,
    .simulate = LAB_SIMULATOR(simulate),
};
