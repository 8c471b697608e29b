/* `profile`: parameters and simulator. The one-stream model (lab/sim/stream_sim.h)
 * runs the training loop: the host gathers a batch, copies it (pinned: two
 * staging buffers, async; pageable: the host waits), launches the step's
 * kernels, and on logging steps waits for the loss; every phase's host range
 * and every op's GPU span go into a trace that lab/experiments/profile.c summarises. */
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "gpu_model.h"
#include "profile.h"
#include "rng.h"
#include "stats.h"
#include "stream_sim.h"

#define F LAB_PHASES_FEATURES
#define C LAB_PHASES_CLASSES
#define SIM_RUNS 5
/* The host's gather + normalise loop, bytes written per second (1e9 B/s):
 * one core reading rows scattered by the shuffle. This is the host, not
 * the GPU, so it is the same for every profile; a Python DataLoader
 * collating per sample is typically several times slower. */
#define HOST_COLLATE_GBPS 4.0

LAB_PARAMS_DEFINE(profile)

/* GPU time (µs) of every kernel of the step, from the profile: the sgemms
 * by the fp32 model, the element-wise kernels by the bytes they move. */
static void kernel_costs(const lab_profile *prof, double b, double h, double *us) {
  double bw = prof->mem_bw_gbps * 1e3; /* bytes per µs */
  double params = (double)lab_phases_param_count((int)h);
  us[2] = lab_gemm_us(prof, b, h, F);
  us[3] = 2.0 * b * h * 4.0 / bw;                 /* z1 in, a1 out */
  us[4] = lab_gemm_us(prof, b, C, h);
  us[5] = (3.0 * b * C * 4.0 + b * 4.0) / bw;     /* logits in, dlogits and row losses out */
  us[6] = b * 4.0 / bw;
  us[7] = lab_gemm_us(prof, C, h, b);
  us[8] = b * C * 4.0 / bw;
  us[9] = lab_gemm_us(prof, b, h, C);
  us[10] = 3.0 * b * h * 4.0 / bw;                /* dh and z1 in, dz1 out */
  us[11] = lab_gemm_us(prof, h, F, b);
  us[12] = b * h * 4.0 / bw;
  us[13] = 3.0 * params * 4.0 / bw;               /* read w and dw, write w */
}

/* Enqueues one op and writes its GPU span into the trace: on one stream it
 * starts when the host has issued it and the GPU is free (stream_sim's rule). */
static void op_span(lab_stream_sim *s, lab_phases_trace *t, int step, int op, double issue_us, double gpu_free_us,
                    double end_us) {
  size_t i = (size_t)step * LAB_PHASES_OPS + (size_t)op;
  double arrive = issue_us + s->prof->launch_us;
  t->op_start_us[i] = arrive > gpu_free_us ? arrive : gpu_free_us;
  t->op_end_us[i] = end_us;
}

static void run_model(const lab_profile *prof, int batch, int steps, int pinned, int every,
                      const double *cost, lab_rng *rng, lab_phases_trace *t) {
  lab_phases_trace_clear(t);
  lab_profile jp = *prof;
  jp.launch_us *= lab_rng_jitter(rng, 8);
  jp.sync_us *= lab_rng_jitter(rng, 10);
  lab_stream_sim s;
  lab_stream_init(&s, &jp, NULL);
  double xbytes = (double)batch * F * 4, ybytes = (double)batch * 4;
  double h2d = pinned ? jp.h2d_pinned_gbps : jp.h2d_pageable_gbps;
  for (int st = 0; st < steps; st++) {
    double *rs = t->range_start_us + (size_t)st * LAB_PHASES_PHASES;
    double *re = t->range_end_us + (size_t)st * LAB_PHASES_PHASES;
    /* data load: with two pinned staging buffers, the host may refill one
     * only once its copy two steps ago has finished. */
    rs[LAB_PH_DATA] = s.host_us;
    if (pinned && st >= 2) {
      double done = t->op_end_us[(size_t)(st - 2) * LAB_PHASES_OPS + 1];
      if (done > s.host_us) s.host_us = done;
    }
    t->prep_us[st] = xbytes / (HOST_COLLATE_GBPS * 1e3) * lab_rng_jitter(rng, 5);
    lab_stream_host(&s, "gather batch", t->prep_us[st]);
    for (int o = 0; o < LAB_PHASES_OPS; o++) {
      lab_phases_phase ph = lab_phases_ops[o].phase;
      if (ph == LAB_PH_LOGGING) break;
      if (o > 0 && ph != lab_phases_ops[o - 1].phase) {
        re[lab_phases_ops[o - 1].phase] = s.host_us;
        rs[ph] = s.host_us;
      }
      double issue = s.host_us, free_us = s.gpu_free_us, end;
      if (o <= 1) end = lab_stream_copy(&s, lab_phases_ops[o].label, o == 0 ? xbytes : ybytes, h2d, pinned);
      else end = lab_stream_kernel(&s, lab_phases_ops[o].label, cost[o] * lab_rng_jitter(rng, 3));
      op_span(&s, t, st, o, issue, free_us, end);
    }
    re[LAB_PH_OPTIMIZER] = s.host_us;
    if ((st + 1) % every == 0 || st == steps - 1) {
      /* .item(): a 4-byte copy into pageable memory, the host waits for
       * everything queued before it, then pays a synchronize. */
      rs[LAB_PH_LOGGING] = s.host_us;
      double issue = s.host_us, free_us = s.gpu_free_us;
      double end = lab_stream_copy(&s, "loss", 4, jp.d2h_pageable_gbps, 0);
      op_span(&s, t, st, LAB_PHASES_OPS - 1, issue, free_us, end);
      lab_stream_sync(&s, "item");
      re[LAB_PH_LOGGING] = s.host_us;
    }
  }
  t->end_us = s.host_us;
}

static int simulate(const lab_params *p, const lab_profile *prof, cJSON **out, lab_error *err) {
  const lab_params_profile tp = lab_params_profile_of(p);
  lab_phases_measure *m = calloc(1, sizeof *m);
  lab_phases_trace tr[SIM_RUNS];
  int made = 0;
  *out = NULL;
  if (!m) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  m->batch = (int)tp.batch;
  m->hidden = (int)tp.hidden;
  m->steps = (int)tp.steps;
  m->pinned = tp.pinned;
  m->log_every = (int)tp.log_every;
  m->runs = SIM_RUNS;
  m->warmup = 1;
  m->validated = -1;
  for (; made < SIM_RUNS; made++)
    if (lab_phases_trace_alloc(&tr[made], m->steps)) goto nomem;
  double cost[LAB_PHASES_OPS] = {0};
  kernel_costs(prof, m->batch, m->hidden, cost);
  lab_rng rng;
  lab_rng_seed(&rng, LAB_PHASES_SEED ^ ((uint64_t)m->batch << 32) ^ ((uint64_t)m->hidden << 12) ^
                         ((uint64_t)m->steps << 4) ^ (uint64_t)(m->pinned * 2 + 1) ^ ((uint64_t)m->log_every << 40));
  for (int r = 0; r < SIM_RUNS; r++) {
    run_model(prof, m->batch, m->steps, m->pinned, m->log_every, cost, &rng, &tr[r]);
    m->run_ms[r] = lab_phases_trace_wall_ms(&tr[r]);
  }
  lab_summary su;
  lab_summarize(m->run_ms, SIM_RUNS, &su);
  m->step_ms = su.median / m->steps;
  m->iqr_pct = su.iqr_pct;
  for (int r = 0; r < SIM_RUNS; r++)
    if (m->run_ms[r] == su.median) {
      lab_phases_summarize(&tr[r], m);
      break;
    }
  *out = lab_phases_envelope(p, m, "simulated", prof->device_name, prof);
  for (int r = 0; r < made; r++) lab_phases_trace_free(&tr[r]);
  free(m);
  return *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
nomem:
  for (int r = 0; r < made; r++) lab_phases_trace_free(&tr[r]);
  free(m);
  return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
}

/* The device memory one run allocates (see lab_experiment.gpu_bytes). */
static double gpu_bytes(const lab_params *p, const char **param) {
  const lab_params_profile tp = lab_params_profile_of(p);
  double b = (double)tp.batch, h = (double)tp.hidden;
  *param = "hidden"; /* weights, gradients and SGD state of 1024->hidden->10, activations and their grads */
  return 4.0 * (3 * (1024 * h + h * 10 + h + 10) + 3 * b * (1024 + h + 10) + 2 * b * 1024);
}

/* CPU cost (lab_experiment_cpu_ms): the stream model per step; 0.9 ms
 * measured at 200 steps (bench/cpu_cost): 5 µs a step over the 1 ms floor. */
LAB_CPU_MS(profile);

LAB_CPU_MS(profile) {
  const lab_params_profile tp = lab_params_profile_of(p);
  *param = "steps";
  return 1.0 + 0.005 * (double)tp.steps;
}

const lab_experiment lab_exp_profile = {
    .name = "profile",
    .title = "Profiling a training step",
    .summary = "NVTX ranges around data load, forward, loss, backward, optimizer step and logging: a profiler "
               "table and a timeline that show where the host waits and where the GPU idles.",
    .lesson = "02-cuda-toolbox",
    .params = lab_params_profile_spec,
    .n_params = LAB_PARAMS_COUNT(profile),
    .gpu_bytes = gpu_bytes,
    .simulate = LAB_SIMULATOR(simulate),
};
