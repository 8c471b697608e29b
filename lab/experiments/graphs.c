/* `graphs`: parameters, envelope builder and simulator. The simulator runs
 * the stream model (lab/sim/stream_sim.h) for eager launches: the host pays
 * launch_us per kernel, the GPU at least kernel_min_us per kernel. A graph
 * replay costs the host one launch plus a little per node, and the GPU walks
 * its prepared list paying only its own dispatch per node; so tiny kernels
 * gain, and kernels much longer than a launch do not. */
#include "graphs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "descriptor.h"
#include "rng.h"
#include "stats.h"
#include "sim_measure.h"
#include "stream_sim.h"
#include "text.h"
#include "units.h"
#include "framework.h"

LAB_PARAMS_DEFINE(graphs)


/* a < 1 keeps the chain bounded however long it is; both are exact in fp32. */
float lab_graphs_coef_a(void) { return 0.9990234375f; }
float lab_graphs_coef_b(int k) { return 0.0009765625f * (float)(k % 7 - 3); }

float lab_graphs_reference(float x0, int kernels) {
  float x = x0, a = lab_graphs_coef_a();
  for (int k = 0; k < kernels; k++) x = fmaf(x, a, lab_graphs_coef_b(k));
  return x;
}

int lab_graphs_sweep_elements(int i) { return 1 << (10 + 2 * i); }

void lab_graphs_summarize(lab_graphs_measure *m) {
  lab_graphs_mode *modes[2] = {&m->eager, &m->graph};
  for (int i = 0; i < 2; i++) {
    lab_summary t, l, g;
    lab_summarize(modes[i]->total_us, (size_t)m->samples, &t);
    lab_summarize(modes[i]->launch_us, (size_t)m->samples, &l);
    lab_summarize(modes[i]->gpu_us, (size_t)m->samples, &g);
    modes[i]->med_total_us = t.median;
    modes[i]->med_launch_us = l.median;
    modes[i]->med_gpu_us = g.median;
    modes[i]->iqr_pct = t.iqr_pct;
  }
}

/* Replays after which capture + instantiate are paid back; 0 when never. */
static long payback(const lab_graphs_measure *m) {
  double saved = m->eager.med_total_us - m->graph.med_total_us;
  return saved > 0 ? (long)ceil((m->capture_us + m->instantiate_us) / saved) : 0;
}

/* First sweep point where the graph saves under 10 %; -1 when none. */
static int no_gain_point(const lab_graphs_measure *m) {
  for (int i = 0; i < m->n_sweep; i++)
    if (m->sweep_graph_us[i] >= 0.9 * m->sweep_eager_us[i]) return i;
  return -1;
}

static void add_findings(cJSON *env, const lab_graphs_measure *m) {
  double e = m->eager.med_total_us, g = m->graph.med_total_us, k = m->kernels;
  char verdict[96];
  if (g > 0 && e / g >= 1.1) snprintf(verdict, sizeof verdict, "the graph was %.1f× faster", e / g);
  else if (g > 0 && g / e >= 1.1) snprintf(verdict, sizeof verdict, "the graph was %.1f× slower", g / e);
  else snprintf(verdict, sizeof verdict, "about the same (%+.1f%% with the graph)", e > 0 ? 100 * (g - e) / e : 0);
  lab_env_finding(env, "Launched one by one, the %d kernels took %.2f ms, %.2f µs each; replayed as one CUDA graph "
                  "they took %.2f ms, %.2f µs each: %s.",
                  m->kernels, e / 1e3, e / k, g / 1e3, g / k, verdict);
  lab_env_finding(env, "The host spent %.0f µs inside %d launch calls (%.2f µs each) but %.1f µs inside one "
                  "cudaGraphLaunch; the GPU's work spanned %.0f µs eagerly against %.0f µs as a graph: %s.",
                  m->eager.med_launch_us, m->kernels, m->eager.med_launch_us / k, m->graph.med_launch_us,
                  m->eager.med_gpu_us, m->graph.med_gpu_us,
                  m->eager.med_gpu_us > 1.2 * m->graph.med_gpu_us
                      ? "eagerly the GPU kept waiting for the next launch"
                      : "the kernels themselves, not the launches, set the pace");
  long r = payback(m);
  if (r > 0)
    lab_env_finding(env, "Capturing the chain cost %.0f µs and instantiating it %.0f µs, once; each replay saves "
                    "%.0f µs, so the graph pays for itself after %ld replay%s — a training loop replays it "
                    "every step.",
                    m->capture_us, m->instantiate_us, e - g, r, r == 1 ? "" : "s");
  else
    lab_env_finding(env, "Capturing the chain cost %.0f µs and instantiating it %.0f µs, and a replay saved "
                    "nothing here: with these kernels the graph never pays back.",
                    m->capture_us, m->instantiate_us);
  if (m->n_sweep > 0) {
    int i = no_gain_point(m), last = m->n_sweep - 1;
    lab_env_finding(env, "In the sweep, with %.0f elements per kernel the graph took %.2f µs per kernel against "
                    "%.2f µs one by one; with %.0f elements (%.1f µs of GPU work each) %.2f against %.2f µs.",
                    m->sweep_elements[0], m->sweep_graph_us[0], m->sweep_eager_us[0], m->sweep_elements[last],
                    m->sweep_body_us[last], m->sweep_graph_us[last], m->sweep_eager_us[last]);
    if (i >= 0)
      lab_env_finding(env, "From %.0f elements per kernel (%.1f µs of GPU work each, more than a launch costs) "
                      "the graph saves under 10%%: when kernels are long, launches hide behind them and a graph "
                      "does not help.",
                      m->sweep_elements[i], m->sweep_body_us[i]);
    else
      lab_env_finding(env, "The graph saved 10%% or more at every swept size: even %.1f µs kernels were short "
                      "enough for launches to matter on this device.",
                      m->sweep_body_us[last]);
  }
  double iqr = fmax(m->eager.iqr_pct, m->graph.iqr_pct);
  if (iqr > LAB_NOISY_IQR_PCT)
    lab_env_finding(env, "The batch times spread by %.0f%% (IQR): the run was noisy; run it again.", iqr);
  if (m->validated == 0)
    lab_env_finding(env, "The buffer did not match the CPU reference (max error %s): do not trust these timings.",
                    LAB_PLAIN(m->max_abs_err));
}

static void add_timeline(cJSON *env, const lab_graphs_measure *m) {
  char label[64];
  for (int i = 0; i < m->n_tl; i++) {
    lab_env_event(env, "cpu", lab_text_numbered(label, sizeof label, "launch kernel ", i + 1, ""), m->tl_launch_start[i],
                  m->tl_launch_end[i]);
    lab_env_event(env, "gpu:0/stream0", lab_text_numbered(label, sizeof label, "kernel ", i + 1, " (one by one)"),
                  m->tl_eager_start[i], m->tl_eager_end[i]);
  }
  if (m->n_tl == 0) return;
  lab_env_event(env, "cpu", "synchronize (host waits)", m->tl_eager_sync_start, m->tl_eager_sync_end);
  lab_env_event(env, "cpu", lab_text_numbered(label, sizeof label, "cudaGraphLaunch (", m->n_tl, " kernels)"),
                m->tl_glaunch_start, m->tl_glaunch_end);
  for (int i = 0; i < m->n_tl; i++)
    lab_env_event(env, "gpu:0/stream0", lab_text_numbered(label, sizeof label, "graph node ", i + 1, ""), m->tl_graph_start[i],
                  m->tl_graph_end[i]);
  lab_env_event(env, "cpu", "synchronize after the graph", m->tl_graph_sync_start, m->tl_graph_sync_end);
}

/* Cumulative time of r runs: eager r·E against capture + instantiate + r·G. */
static void add_cost_series(cJSON *env, const lab_graphs_measure *m) {
  cJSON *ce = lab_env_series(env, "cost_eager", "one by one, r runs", "replays", "ms");
  cJSON *cg = lab_env_series(env, "cost_graph", "capture + instantiate + r replays", "replays", "ms");
  long r = payback(m), hi = r > 0 ? 10 * r : 1000;
  if (hi < 20) hi = 20;
  double one_off = m->capture_us + m->instantiate_us;
  for (long x = 1; x <= hi; x = x < 10 ? x + 1 : (long)ceil(x * 1.5)) {
    lab_series_point(ce, (double)x, x * m->eager.med_total_us / 1e3);
    lab_series_point(cg, (double)x, (one_off + x * m->graph.med_total_us) / 1e3);
  }
}

cJSON *lab_graphs_envelope(const lab_params *p, const lab_graphs_measure *m, const char *backend,
                           const char *device_name, const lab_profile *prof) {
  const lab_params_graphs tp = lab_params_graphs_of(p);
  cJSON *env = lab_envelope_new("graphs", backend, device_name, prof ? prof->name : NULL, lab_params_to_json(p));
  if (!env) return NULL;
  double e = m->eager.med_total_us, g = m->graph.med_total_us, k = m->kernels;
  lab_env_metric(env, "eager_total_us", e);
  lab_env_metric(env, "graph_total_us", g);
  lab_env_metric(env, "eager_per_kernel_us", e / k);
  lab_env_metric(env, "graph_per_kernel_us", g / k);
  lab_env_metric(env, "graph_speedup", g > 0 ? e / g : 0);
  lab_env_metric(env, "eager_launch_us", m->eager.med_launch_us);
  lab_env_metric(env, "eager_launch_per_kernel_us", m->eager.med_launch_us / k);
  lab_env_metric(env, "graph_launch_us", m->graph.med_launch_us);
  lab_env_metric(env, "eager_gpu_us", m->eager.med_gpu_us);
  lab_env_metric(env, "graph_gpu_us", m->graph.med_gpu_us);
  lab_env_metric(env, "capture_us", m->capture_us);
  lab_env_metric(env, "instantiate_us", m->instantiate_us);
  lab_env_metric(env, "one_off_us", m->capture_us + m->instantiate_us);
  lab_env_metric(env, "saved_per_replay_us", e - g);
  if (payback(m) > 0) lab_env_metric(env, "payback_replays", (double)payback(m));
  if (m->n_sweep > 0) {
    cJSON *se = lab_env_series(env, "sweep_eager", "one by one", "elements", "µs");
    cJSON *sg = lab_env_series(env, "sweep_graph", "CUDA graph", "elements", "µs");
    cJSON *sb = lab_env_series(env, "sweep_body", "GPU time per kernel inside the graph (events)", "elements", "µs");
    for (int i = 0; i < m->n_sweep; i++) {
      lab_series_point(se, m->sweep_elements[i], m->sweep_eager_us[i]);
      lab_series_point(sg, m->sweep_elements[i], m->sweep_graph_us[i]);
      lab_series_point(sb, m->sweep_elements[i], m->sweep_body_us[i]);
    }
    int i = no_gain_point(m);
    if (i >= 0) lab_env_metric(env, "no_gain_from_elements", m->sweep_elements[i]);
    lab_env_metric(env, "sweep_small_speedup", m->sweep_eager_us[0] / m->sweep_graph_us[0]);
    lab_env_metric(env, "sweep_large_speedup", m->sweep_eager_us[m->n_sweep - 1] / m->sweep_graph_us[m->n_sweep - 1]);
  }
  add_cost_series(env, m);
  add_timeline(env, m);
  add_findings(env, m);
  double iqr = fmax(m->eager.iqr_pct, m->graph.iqr_pct);
  bool simulated = !strcmp(backend, "simulated"), pytorch = lab_framework_report(env, tp.view, simulated ? prof : NULL);
  char method[1200];
  lab_text t; /* appended, not printed (lab/base/text.h) */
  lab_text_init(&t, method, sizeof method);
  if (simulated)
    lab_text_add(&t, "Simulated: launched one by one, each kernel costs the host launch_us (±8% jitter) and runs at "
                     "least kernel_min_us on the GPU (the stream model); as a graph, one launch plus 0.02 µs per node "
                     "on the host and graph_node_us of GPU dispatch per node. A kernel's own work is a 0.6 µs "
                     "memory round trip plus 8 bytes per element at the memory bandwidth (both estimates). "
                     "Capture costs 0.7 and instantiate 0.6 launches per kernel. GPU spans are rounded to 0.5 µs, "
                     "as a GPU run's events would read them. Medians of the samples.");
  else
    lab_text_add(&t, "Each sample runs the whole chain once, from the same random normal buffer: the host clock spans "
                     "the first launch call to the return of cudaStreamSynchronize (per-kernel = that / kernels), and "
                     "CUDA events bracket the chain on the stream. Capture (stream capture) and cudaGraphInstantiate "
                     "are timed once on the host clock; two warm-ups per mode come first. The timeline is one extra "
                     "short chain whose kernels stamp %globaltimer, aligned to the host clock at the first kernel's "
                     "start. Both buffers are checked against a CPU reference. Medians of the samples.");
  lab_text_add(&t, lab_framework_sentence(simulated, simulated && pytorch));
  lab_env_stats(env, m->samples, m->warmup, "graph_per_kernel_us", iqr, method);
  if (m->validated >= 0) lab_env_validation(env, m->validated, m->max_abs_err);
  return env;
}

/* ---- the simulator -------------------------------------------------- */

/* One kernel's own work (µs): a DRAM round trip (read, then the dependent
 * write: about 0.6 µs) plus 8 bytes per element (read + write) at the
 * memory bandwidth. */
static double body_us(const lab_profile *prof, double elements) {
  return 0.6 + 8 * elements / (prof->mem_bw_gbps * 1e3);
}

/* The GPU front end's own cost per kernel node of a replayed graph; one by
 * one, a kernel also occupies the GPU at least kernel_min_us. */
static double dispatch_us(const lab_profile *prof) { return prof->graph_node_us; }

typedef struct sim_batch {
  double total_us, launch_us, gpu_us;
} sim_batch;

/* One chain of n kernels launched one by one; draws the first n_tl when tl. */
static sim_batch sim_eager(const lab_profile *prof, int n, double elements, lab_rng *r, lab_graphs_measure *tl) {
  lab_stream_sim s;
  lab_stream_init(&s, prof, NULL);
  s.launch_us *= lab_rng_jitter(r, 8); /* jittered in the model, not in a copy of the profile (912 bytes a run) */
  s.sync_us *= lab_rng_jitter(r, 10);
  double work = (dispatch_us(prof) + body_us(prof, elements)) * lab_rng_jitter(r, 2), first = -1, end = 0;
  if (!tl) end = lab_stream_kernels(&s, "kernel", work, n, &first); /* the samples: no call per launch */
  for (int i = 0; tl && i < n; i++) {
    double ls = s.host_us;
    end = lab_stream_kernel(&s, "kernel", work);
    /* not fmax: in wasm that is a libm call, not an instruction */
    double start = end - (work > prof->kernel_min_us ? work : prof->kernel_min_us);
    if (first < 0) first = start;
    if (i < tl->n_tl) {
      tl->tl_launch_start[i] = ls;
      tl->tl_launch_end[i] = s.host_us;
      tl->tl_eager_start[i] = start;
      tl->tl_eager_end[i] = end;
    }
  }
  sim_batch b = {.launch_us = s.host_us};
  if (tl) tl->tl_eager_sync_start = s.host_us;
  b.total_us = lab_stream_sync(&s, "synchronize");
  if (tl) tl->tl_eager_sync_end = b.total_us;
  b.gpu_us = lab_event_us(end - first);
  return b;
}

/* One replay of the n-node graph, starting at host time t0 (timeline only). */
static sim_batch sim_graph(const lab_profile *prof, int n, double elements, lab_rng *r, lab_graphs_measure *tl,
                           double t0) {
  double launch = (prof->launch_us + 0.02 * n) * lab_rng_jitter(r, 8);
  double node = (dispatch_us(prof) + body_us(prof, elements)) * lab_rng_jitter(r, 2);
  double gpu = n * node, sync = prof->sync_us * lab_rng_jitter(r, 10);
  if (tl) {
    tl->tl_glaunch_start = t0;
    tl->tl_glaunch_end = t0 + launch;
    for (int i = 0; i < tl->n_tl; i++) {
      tl->tl_graph_start[i] = t0 + launch + i * node;
      tl->tl_graph_end[i] = t0 + launch + (i + 1) * node;
    }
    tl->tl_graph_sync_start = t0 + launch;
    tl->tl_graph_sync_end = t0 + launch + gpu + sync;
  }
  return (sim_batch){.total_us = launch + gpu + sync, .launch_us = launch, .gpu_us = lab_event_us(gpu)};
}

/* Warm-ups, then the samples of both modes; returns the median per-kernel times. */
static void sim_modes(const lab_profile *prof, int n, double elements, int warmup, int samples, lab_rng *r,
                      lab_graphs_mode *eager, lab_graphs_mode *graph) {
  for (int i = 0; i < warmup; i++) {
    sim_eager(prof, n, elements, r, NULL);
    sim_graph(prof, n, elements, r, NULL, 0);
  }
  for (int i = 0; i < samples; i++) {
    sim_batch e = sim_eager(prof, n, elements, r, NULL), g = sim_graph(prof, n, elements, r, NULL, 0);
    eager->total_us[i] = e.total_us;
    eager->launch_us[i] = e.launch_us;
    eager->gpu_us[i] = e.gpu_us;
    graph->total_us[i] = g.total_us;
    graph->launch_us[i] = g.launch_us;
    graph->gpu_us[i] = g.gpu_us;
  }
}

static double median_of(const double *x, int n) {
  lab_summary s;
  lab_summarize(x, (size_t)n, &s);
  return s.median;
}

static int simulate(const lab_params *p, const lab_profile *base, cJSON **out, lab_error *err) {
  const lab_params_graphs tp = lab_params_graphs_of(p);
  lab_profile viewed; /* in the PyTorch view every launch, graph.replay() included, pays torch_op_us */
  lab_framework_profile(base, lab_framework_pytorch(tp.view), &viewed);
  const lab_profile *prof = &viewed;
  lab_graphs_measure m;
  memset(&m, 0, sizeof m);
  m.kernels = (int)tp.kernels;
  m.elements = (int)tp.elements;
  m.sweep = tp.sweep;
  m.samples = (int)tp.samples;
  m.warmup = LAB_GRAPHS_WARMUP;
  lab_rng r;
  lab_rng_seed(&r, 0x6a9full ^ ((uint64_t)m.kernels << 24) ^ (uint64_t)m.elements);
  /* Capture walks the launch path without submitting; instantiate builds
   * the executable graph node by node (host work, scaled by host speed). */
  m.capture_us = (10 + 0.7 * prof->launch_us * m.kernels) * lab_rng_jitter(&r, 5);
  m.instantiate_us = (30 + 0.6 * prof->launch_us * m.kernels) * lab_rng_jitter(&r, 5);
  sim_modes(prof, m.kernels, m.elements, m.warmup, m.samples, &r, &m.eager, &m.graph);
  lab_graphs_summarize(&m);
  if (m.sweep) {
    lab_graphs_mode e, g;
    m.sweep_kernels = m.kernels < LAB_GRAPHS_SWEEP_KERNELS ? m.kernels : LAB_GRAPHS_SWEEP_KERNELS;
    for (int i = 0; i < LAB_GRAPHS_SWEEP_POINTS; i++) {
      double el = lab_graphs_sweep_elements(i);
      sim_modes(prof, m.sweep_kernels, el, m.warmup, m.samples, &r, &e, &g);
      m.sweep_elements[i] = el;
      m.sweep_eager_us[i] = median_of(e.total_us, m.samples) / m.sweep_kernels;
      m.sweep_graph_us[i] = median_of(g.total_us, m.samples) / m.sweep_kernels;
      m.sweep_body_us[i] = median_of(g.gpu_us, m.samples) / m.sweep_kernels;
    }
    m.n_sweep = LAB_GRAPHS_SWEEP_POINTS;
  }
  m.n_tl = m.kernels < LAB_GRAPHS_TL_KERNELS ? m.kernels : LAB_GRAPHS_TL_KERNELS;
  sim_eager(prof, m.n_tl, m.elements, &r, &m);
  sim_graph(prof, m.n_tl, m.elements, &r, &m, m.tl_eager_sync_end + 2 * prof->launch_us);
  m.validated = -1;
  *out = lab_graphs_envelope(p, &m, "simulated", base->device_name, base);
  return *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
}

/* The device memory one run allocates (see lab_experiment.gpu_bytes). */
static double gpu_bytes(const lab_params *p, const char **param) {
  const lab_params_graphs tp = lab_params_graphs_of(p);
  *param = "elements"; /* the chain's buffer, its copy, and the sweep's largest buffer (2^24 floats) */
  return 4.0 * (2 * (double)tp.elements + (tp.sweep ? 16777216.0 : 0));
}

/* CPU cost (lab_experiment_cpu_ms): the stream model launches every
 * kernel of every sample (and the sweep's shorter runs); 15.7 ms measured
 * at 10 000 kernels × 30 samples with the sweep, 23-30 at other tries, and
 * 6.5-11.8 ms at 10 000 × 7 (bench/cpu_cost): 0.15 µs per kernel-sample
 * over the 1 ms floor. */
LAB_CPU_MS(graphs);

LAB_CPU_MS(graphs) {
  const lab_params_graphs tp = lab_params_graphs_of(p);
  *param = "kernels";
  return 1.0 + 1.5e-4 * (double)tp.kernels * (double)tp.samples;
}

const lab_experiment lab_exp_graphs = {
    .name = "graphs",
    .title = "CUDA graphs against one-by-one launches",
    .summary = "Many tiny kernels launched one by one or replayed as one captured graph: the launch cost per "
               "kernel, what capture costs, when it pays back, and when a graph does not help.",
    .lesson = "02-cuda-toolbox",
    .params = lab_params_graphs_spec,
    .n_params = LAB_PARAMS_COUNT(graphs),
    .gpu_bytes = gpu_bytes,
    .simulate = LAB_SIMULATOR(simulate),
};
