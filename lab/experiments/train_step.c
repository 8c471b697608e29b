/* The training-step lesson's portable half: the data, the CPU reference of
 * one SGD step, the envelope, and the simulator — a stream model of the six
 * launches per step and of the syncs a loss read forces, plus a real (small)
 * CPU training run so the simulated loss curve is a genuine one. */
#include "train_step.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cjson_compat.h"
#include "cutoff.h"
#include "envelope.h"
#include "gpu_model.h"
#include "rng.h"
#include "stats.h"
#include "stream_sim.h"
#include "units.h"

#define SIM_SAMPLES 5
/* The simulator's CPU curve stays small (about 0.1 s natively): beyond this
 * many multiply-adds it trains on fewer rows, and says so. */
#define CPU_CURVE_MACS 4e7

LAB_PARAMS_DEFINE(train_step)

const char *const lab_train_kernel_names[LAB_TRAIN_KERNELS] = {
    "sgemm forward", "softmax cross-entropy", "mean loss", "sgemm dW", "bias gradient", "SGD update"};

void lab_train_data(int batch, int features, int classes, uint64_t seed, float *x, int *y) {
  lab_rng r;
  lab_rng_seed(&r, seed);
  float *centre = malloc((size_t)classes * (size_t)features * sizeof *centre);
  double scale = 1.0 / sqrt((double)features);
  for (int i = 0; centre && i < classes * features; i++) centre[i] = (float)lab_rng_normal(&r);
  for (int i = 0; i < batch; i++) {
    int c = (int)(lab_rng_uniform(&r) * classes);
    y[i] = c < classes ? c : classes - 1;
    for (int k = 0; k < features; k++) {
      double mu = centre ? centre[(size_t)y[i] * (size_t)features + (size_t)k] : 0.0;
      x[(size_t)i * (size_t)features + (size_t)k] = (float)((mu + lab_rng_normal(&r)) * scale);
    }
  }
  free(centre);
}

void lab_train_init(int features, int classes, uint64_t seed, float *w, float *b) {
  lab_rng r;
  lab_rng_seed(&r, seed);
  for (int i = 0; i < classes * features; i++) w[i] = (float)(0.01 * lab_rng_normal(&r));
  for (int j = 0; j < classes; j++) b[j] = 0;
}

double lab_train_cpu_step(const float *x, const int *y, float *w, float *b, int batch, int features, int classes,
                          float lr, double *dw, double *db, double *z) {
  double loss = 0;
  memset(dw, 0, (size_t)classes * (size_t)features * sizeof *dw);
  memset(db, 0, (size_t)classes * sizeof *db);
  for (int i = 0; i < batch; i++) {
    const float *xi = x + (size_t)i * (size_t)features;
    double zmax = -INFINITY, sum = 0;
    for (int j = 0; j < classes; j++) {
      const float *wj = w + (size_t)j * (size_t)features;
      double acc = b[j];
      for (int k = 0; k < features; k++) acc += (double)wj[k] * xi[k];
      z[j] = acc;
      if (acc > zmax) zmax = acc;
    }
    for (int j = 0; j < classes; j++) sum += exp(z[j] - zmax);
    loss += log(sum) + zmax - z[y[i]];
    for (int j = 0; j < classes; j++) {
      double g = (exp(z[j] - zmax) / sum - (j == y[i])) / batch;
      double *dwj = dw + (size_t)j * (size_t)features;
      for (int k = 0; k < features; k++) dwj[k] += g * xi[k];
      db[j] += g;
    }
  }
  if (lr > 0) {
    for (int i = 0; i < classes * features; i++) w[i] -= (float)(lr * dw[i]);
    for (int j = 0; j < classes; j++) b[j] -= (float)(lr * db[j]);
  }
  return loss / batch;
}

double lab_train_accuracy(const float *x, const int *y, const float *w, const float *b, int batch, int features,
                          int classes) {
  int right = 0;
  for (int i = 0; i < batch; i++) {
    int best = 0;
    double best_z = -INFINITY;
    for (int j = 0; j < classes; j++) {
      double acc = b[j];
      for (int k = 0; k < features; k++) acc += (double)w[(size_t)j * features + k] * x[(size_t)i * features + k];
      if (acc > best_z) best_z = acc, best = j;
    }
    right += best == y[i];
  }
  return batch > 0 ? (double)right / batch : 0;
}

/* ---- envelope ---------------------------------------------------------- */

cJSON *lab_train_step_envelope(const lab_params *p, const lab_train_measure *m, const char *backend,
                               const char *device_name, const lab_profile *prof) {
  const lab_params_train_step tp = lab_params_train_step_of(p);
  cJSON *env = lab_envelope_new("train_step", backend, device_name, prof ? prof->name : NULL, lab_params_to_json(p));
  if (!env) return NULL;
  int simulated = strcmp(backend, "simulated") == 0;
  int steps = m->steps, n = m->read_every;
  double per_step_a = m->every_step_ms * 1e3 / steps, per_step_b = m->every_n_ms * 1e3 / steps;
  int extra_syncs = m->syncs_every_step - m->syncs_every_n;
  double per_read_us = extra_syncs > 0 ? (m->every_step_ms - m->every_n_ms) * 1e3 / extra_syncs : 0;
  double slowdown = m->every_n_ms > 0 ? m->every_step_ms / m->every_n_ms : 0;
  lab_env_metric(env, "every_step_ms", m->every_step_ms);
  lab_env_metric(env, "every_n_ms", m->every_n_ms);
  lab_env_metric(env, "per_step_every_step_us", per_step_a);
  lab_env_metric(env, "per_step_every_n_us", per_step_b);
  lab_env_metric(env, "cost_per_read_us", per_read_us);
  lab_env_metric(env, "slowdown", slowdown);
  lab_env_metric(env, "syncs_every_step", m->syncs_every_step);
  lab_env_metric(env, "syncs_every_n", m->syncs_every_n);
  lab_env_metric(env, "gpu_step_us", m->gpu_step_us);
  lab_env_metric(env, "first_loss", m->loss[0]);
  lab_env_metric(env, "final_loss", m->loss[steps - 1]);
  lab_env_metric(env, "final_accuracy", m->final_accuracy);

  cJSON *loss = lab_env_series(env, "loss", "training loss", "step", "nats");
  cJSON *ha = lab_env_series(env, "host_every_step", "host time, loss read every step", "step", "ms");
  cJSON *hb = lab_env_series(env, "host_every_n", "host time, loss read every N steps", "step", "ms");
  for (int s = 0; s < steps; s++) {
    lab_series_point(loss, s, m->loss[s]);
    lab_series_point(ha, s + 1, m->cum_every_step_ms[s]);
    lab_series_point(hb, s + 1, m->cum_every_n_ms[s]);
  }
  if (simulated) lab_env_series_source(env, "loss", "computed"); /* a real training run on this CPU */

  cJSON *d = lab_env_details(env);
  cJSON *model = cJSON_AddObjectToObject(d, "model");
  long batch = tp.batch, features = tp.features, classes = tp.classes;
  cJSON_AddNumberToObject(model, "batch", (double)batch);
  cJSON_AddNumberToObject(model, "features", (double)features);
  cJSON_AddNumberToObject(model, "classes", (double)classes);
  cJSON_AddNumberToObject(model, "parameters", (double)(classes * features + classes));
  cJSON *ks = cJSON_AddArrayToObject(d, "kernels_per_step");
  for (int k = 0; k < LAB_TRAIN_KERNELS; k++) cJSON_AddItemToArray(ks, cJSON_CreateString(lab_train_kernel_names[k]));
  cJSON_AddNumberToObject(d, "read_every", n);
  cJSON *cpu = cJSON_AddObjectToObject(d, "loss_curve");
  cJSON_AddStringToObject(cpu, "source", simulated ? "cpu" : "gpu");
  cJSON_AddNumberToObject(cpu, "rows", m->batch_used);
  if (simulated) cJSON_AddNumberToObject(cpu, "cpu_ms", m->cpu_curve_ms);

  lab_env_finding(env,
                  "Reading the loss after every step took %.2f ms for %d steps (%.1f µs a step); reading it every "
                  "%d steps took %.2f ms (%.1f µs a step): %.2f× %s.",
                  m->every_step_ms, steps, per_step_a, n, m->every_n_ms, per_step_b,
                  slowdown >= 1 ? slowdown : (slowdown > 0 ? 1 / slowdown : 0), slowdown >= 1 ? "slower" : "faster");
  lab_env_finding(env,
                  "Each read (like loss.item()) makes the host wait until the GPU has finished the step, then copy "
                  "one number back: here about %.1f µs per read, %d reads against %d. Meanwhile the GPU sits idle, "
                  "because the host has not queued the next step yet.",
                  per_read_us, m->syncs_every_step, m->syncs_every_n);
  lab_env_finding(env, "The GPU itself needed about %.1f µs per step for the %d kernels.", m->gpu_step_us,
                  LAB_TRAIN_KERNELS);
  /* The curve may train fewer rows than the batch (simulated, to stay
   * quick): its accuracy is theirs, and no more rows than the model has
   * weights can be fitted exactly, which says nothing about the batch. */
  char acc[200];
  if (m->batch_used < batch)
    snprintf(acc, sizeof acc, "accuracy on the %d samples trained: %.0f%%%s", m->batch_used, 100 * m->final_accuracy,
             m->batch_used <= features * classes + classes
                 ? "; fewer samples than the model has weights, so it can learn them by heart"
                 : "");
  else
    snprintf(acc, sizeof acc, "accuracy on the batch: %.0f%%", 100 * m->final_accuracy);
  lab_env_finding(env,
                  "The loss fell from %.4f to %.4f over %d steps (%s). Both modes compute "
                  "the same numbers: reading less often changes when you see the loss, not the training.",
                  m->loss[0], m->loss[steps - 1], steps, acc);
  if (simulated) {
    lab_env_finding(env,
                    "The loss curve is a real training run on this computer's CPU (%d samples%s); the timings are "
                    "a model of %s.",
                    m->batch_used, m->batch_used < batch ? ", fewer than the batch, to stay quick" : "",
                    prof ? prof->label : "the GPU");
    lab_env_stats(env, m->samples, m->warmup, "every_step_ms", m->every_step_iqr_pct,
                  "Modelled with a one-stream event model: each launch costs the host launch_us, kernels run "
                  "in order, a loss read waits for the GPU (sync_us) and copies from device memory; kernel "
                  "times from the profile's sgemm and bandwidth figures with ±3% seeded jitter.");
  } else {
    if (m->validated >= 0)
      lab_env_finding(env, "The first step's loss and gradients %s the CPU reference (max abs error %s).",
                      m->validated ? "match" : "do NOT match", LAB_PLAIN(m->max_abs_err));
    lab_env_stats(env, m->samples, m->warmup, "every_step_ms", m->every_step_iqr_pct,
                  "Host clock around the whole loop, from a synchronized start to the last loss read, median "
                  "of the samples after a warm-up run of each mode (the modes alternate); GPU time per step "
                  "from CUDA events around the steps without reads.");
  }
  if (m->validated >= 0) lab_env_validation(env, m->validated, m->max_abs_err);
  return env;
}

/* ---- the simulator ----------------------------------------------------- */

typedef struct step_cost {
  double us[LAB_TRAIN_KERNELS];
} step_cost;

/* Kernel times from the profile: the two matmuls by the sgemm model, the
 * element-wise kernels by the bytes they move over device bandwidth. */
static void kernel_costs(const lab_profile *prof, double b, double f, double c, step_cost *k) {
  double bw = prof->mem_bw_gbps * 1e3; /* bytes per µs */
  k->us[0] = lab_gemm_us(prof, b, c, f);
  k->us[1] = (3.0 * b * c * 4.0 + b * 4.0) / bw; /* logits in, dlogits and row losses out */
  k->us[2] = b * 4.0 / bw;
  k->us[3] = lab_gemm_us(prof, c, f, b);
  k->us[4] = b * c * 4.0 / bw;
  k->us[5] = 3.0 * (c * f + c) * 4.0 / bw; /* read w and dw, write w */
}

/* One run of `steps` steps; reads every `every` steps (1 = every step).
 * Returns the host time (µs); cum[s] gets the host clock after step s. */
static double run_model(const lab_profile *prof, const step_cost *k, int steps, int every, lab_rng *rng,
                        float *cum, cJSON *env, int *syncs) {
  lab_stream_sim s;
  lab_stream_init(&s, prof, env);
  s.max_events = 40;
  *syncs = 0;
  for (int step = 0; step < steps; step++) {
    for (int i = 0; i < LAB_TRAIN_KERNELS; i++)
      lab_stream_kernel(&s, lab_train_kernel_names[i], k->us[i] * lab_rng_jitter(rng, 3.0));
    if ((step + 1) % every == 0 || step == steps - 1) {
      int count = (step + 1) % every == 0 ? every : (step + 1) % every;
      lab_stream_sync(&s, every == 1 ? "loss.item(): wait for the GPU" : "wait for the GPU");
      lab_stream_copy(&s, "loss to host", count * 4.0, prof->d2h_pageable_gbps, 0);
      (*syncs)++;
    }
    cum[step] = (float)(s.host_us / 1e3);
  }
  return s.host_us;
}

static int simulate(const lab_params *p, const lab_profile *prof, cJSON **out, lab_error *err) {
  const lab_params_train_step tp = lab_params_train_step_of(p);
  int batch = (int)tp.batch, features = (int)tp.features,
      classes = (int)tp.classes, steps = (int)tp.steps,
      every = (int)tp.read_every;
  float lr = (float)tp.lr;
  *out = NULL;
  lab_train_measure *m = calloc(1, sizeof *m);
  float *cum = malloc(2u * SIM_SAMPLES * LAB_TRAIN_MAX_STEPS * sizeof *cum);
  if (!m || !cum) goto nomem;
  m->steps = steps;
  m->read_every = every;
  m->samples = SIM_SAMPLES;
  m->warmup = 1;
  m->validated = -1;

  /* The genuine loss curve: train on the CPU, as small as stays quick. */
  double per_row = (double)features * classes * steps;
  int rows = per_row * batch > CPU_CURVE_MACS ? (int)(CPU_CURVE_MACS / per_row) : batch;
  if (rows < 8) rows = 8;
  m->batch_used = rows;
  {
    float *x = malloc((size_t)rows * features * sizeof *x), *w = malloc((size_t)classes * features * sizeof *w),
          *b = malloc((size_t)classes * sizeof *b);
    int *y = malloc((size_t)rows * sizeof *y);
    double *dw = malloc((size_t)classes * features * sizeof *dw), *db = malloc((size_t)classes * sizeof *db),
           *z = malloc((size_t)classes * sizeof *z);
    int ok = x && w && b && y && dw && db && z, cut = 0;
    if (ok) {
      lab_train_data(rows, features, classes, LAB_TRAIN_SEED, x, y);
      lab_train_init(features, classes, LAB_TRAIN_SEED + 1, w, b);
      double t0 = lab_clock_ms();
      /* the server may stop a run whose client hung up, between steps (cutoff.h) */
      for (int s = 0; s < steps && !(cut = lab_cutoff(err)); s++)
        m->loss[s] = (float)lab_train_cpu_step(x, y, w, b, rows, features, classes, lr, dw, db, z);
      m->cpu_curve_ms = lab_clock_ms() - t0;
      m->final_accuracy = lab_train_accuracy(x, y, w, b, rows, features, classes);
    }
    free(x), free(w), free(b), free(y), free(dw), free(db), free(z);
    if (!ok) goto nomem;
    if (cut) {
      free(m);
      free(cum);
      return -1;
    }
  }

  /* The timings: both modes through the stream model, SIM_SAMPLES times
   * each with seeded jitter; the timeline shows the first steps of the
   * every-step mode, where the syncs are. */
  step_cost k;
  kernel_costs(prof, batch, features, classes, &k);
  m->gpu_step_us = 0;
  for (int i = 0; i < LAB_TRAIN_KERNELS; i++)
    m->gpu_step_us += k.us[i] > prof->kernel_min_us ? k.us[i] : prof->kernel_min_us;
  lab_rng rng;
  lab_rng_seed(&rng, (uint64_t)batch * 1000003u + (uint64_t)features * 101u + (uint64_t)classes + (uint64_t)steps);
  double ta[SIM_SAMPLES], tb[SIM_SAMPLES];
  cJSON *env = cJSON_CreateObject(); /* holds the timeline the stream model draws */
  if (!env || !cJSON_AddArrayToObject(env, "timeline")) {
    cJSON_Delete(env);
    goto nomem;
  }
  for (int r = 0; r < SIM_SAMPLES; r++) {
    ta[r] = run_model(prof, &k, steps, 1, &rng, cum + (size_t)(2 * r) * LAB_TRAIN_MAX_STEPS, r == 0 ? env : NULL,
                      &m->syncs_every_step);
    tb[r] = run_model(prof, &k, steps, every, &rng, cum + (size_t)(2 * r + 1) * LAB_TRAIN_MAX_STEPS, NULL,
                      &m->syncs_every_n);
  }
  lab_summary sa, sb;
  lab_summarize(ta, SIM_SAMPLES, &sa);
  lab_summarize(tb, SIM_SAMPLES, &sb);
  m->every_step_ms = sa.median / 1e3;
  m->every_n_ms = sb.median / 1e3;
  m->every_step_iqr_pct = sa.iqr_pct;
  m->every_n_iqr_pct = sb.iqr_pct;
  for (int r = 0; r < SIM_SAMPLES; r++) { /* the curves of the median samples */
    if (ta[r] == sa.median) memcpy(m->cum_every_step_ms, cum + (size_t)(2 * r) * LAB_TRAIN_MAX_STEPS, sizeof m->cum_every_step_ms);
    if (tb[r] == sb.median) memcpy(m->cum_every_n_ms, cum + (size_t)(2 * r + 1) * LAB_TRAIN_MAX_STEPS, sizeof m->cum_every_n_ms);
  }
  /* Rebuild the envelope with the final numbers, keeping the timeline. */
  *out = lab_train_step_envelope(p, m, "simulated", prof->device_name, prof);
  if (*out) {
    cJSON *tl = cJSON_DetachItemFromObjectCaseSensitive(env, "timeline");
    cJSON_ReplaceItemInObjectCaseSensitive(*out, "timeline", tl);
  }
  cJSON_Delete(env);
  free(m);
  free(cum);
  return *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
nomem:
  free(m);
  free(cum);
  return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
}

/* The device memory one run allocates (see lab_experiment.gpu_bytes). */
static double gpu_bytes(const lab_params *p, const char **param) {
  const lab_params_train_step tp = lab_params_train_step_of(p);
  double b = (double)tp.batch, f = (double)tp.features, c = (double)tp.classes;
  *param = "batch";
  /* x, y, two copies of W and b, z, row loss, dW, db, loss history */
  return 4.0 * (b * f + b + 3 * c * f + 3 * c + b * c + b + (double)tp.steps);
}

/* CPU cost (lab_experiment_cpu_ms): the genuine loss curve dominates:
 * rows × features × classes multiply-adds forward and again backward per
 * step (rows capped near CPU_CURVE_MACS, never below 8), measured by
 * bench/cpu_cost at 1.30-1.38 ns a multiply-add on the reference machine
 * (AMD EPYC, 2 cores) when it was quiet, up to 1.7 ns while other
 * processes shared its cores: counted at 1.8 ns. Then the random weights and
 * class centres (two normal draws per weight, ~33 ns each: 80 ns), the
 * stream model (10 runs of 6 launches a step, ~4.4 µs a step: 6 µs) and
 * the 1 ms floor. Largest parameters: 5.4-6.2 s measured, 7.6 s estimated. */
LAB_CPU_MS(train_step);

LAB_CPU_MS(train_step) {
  const lab_params_train_step tp = lab_params_train_step_of(p);
  double batch = (double)tp.batch, f = (double)tp.features, c = (double)tp.classes,
         steps = (double)tp.steps;
  /* Past the cap the simulator trains floor(cap / per_row) rows, at least 8:
   * at most max(cap, 8 × per_row) multiply-adds, without the floor's dips. */
  double per_row = f * c * steps, cap = 8 * per_row > CPU_CURVE_MACS ? 8 * per_row : CPU_CURVE_MACS;
  double macs = per_row * batch > CPU_CURVE_MACS ? cap : per_row * batch, curve = 1.8e-6 * macs;
  double rest = 1.0 + 8e-5 * c * f + 0.006 * steps;
  /* Past the cap the rows are already few: only steps, features and classes lower it. */
  *param = per_row * batch > CPU_CURVE_MACS ? "steps" : "batch";
  return curve + rest;
}

const lab_experiment lab_exp_train_step = {
    .name = "train_step",
    .title = "A whole training step on the GPU",
    .summary = "Forward, loss, backward and SGD update all run on the GPU; reading the loss every step forces a "
               "synchronization each time, reading it every N steps lets the host run ahead.",
    .lesson = "01-cuda-intuition",
    .params = lab_params_train_step_spec,
    .n_params = LAB_PARAMS_COUNT(train_step),
    .gpu_bytes = gpu_bytes,
    .simulate = LAB_SIMULATOR(simulate),
};
