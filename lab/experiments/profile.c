/* `profile`: the phases of one training step of a small MLP, the CPU
 * reference that validates the GPU's step, the summary of a run's trace
 * (the profiler-like table, the GPU's idle share, one step's timeline) and
 * the envelope. The simulator lives in lab/experiments/profile_sim.c. */
#include "profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "rng.h"
#include "units.h"

#define F LAB_PHASES_FEATURES
#define C LAB_PHASES_CLASSES

const char *const lab_phases_phase_names[LAB_PHASES_PHASES] = {"data load", "forward",        "loss",
                                                                 "backward",  "optimizer step", "logging"};
const char *const lab_phases_phase_keys[LAB_PHASES_PHASES] = {"data", "forward", "loss",
                                                                "backward", "optimizer", "logging"};

const lab_phases_op lab_phases_ops[LAB_PHASES_OPS] = {
    {"H2D copy inputs", LAB_PH_DATA},       {"H2D copy labels", LAB_PH_DATA},
    {"sgemm fc1", LAB_PH_FORWARD},          {"bias + ReLU", LAB_PH_FORWARD},
    {"sgemm fc2", LAB_PH_FORWARD},          {"softmax cross-entropy", LAB_PH_LOSS},
    {"mean loss", LAB_PH_LOSS},             {"sgemm dW2", LAB_PH_BACKWARD},
    {"bias grad b2", LAB_PH_BACKWARD},      {"sgemm dh", LAB_PH_BACKWARD},
    {"ReLU backward", LAB_PH_BACKWARD},     {"sgemm dW1", LAB_PH_BACKWARD},
    {"bias grad b1", LAB_PH_BACKWARD},      {"SGD update (all parameters)", LAB_PH_OPTIMIZER},
    {"D2H copy loss (.item())", LAB_PH_LOGGING},
};

int64_t lab_phases_param_count(int hidden) { return (int64_t)hidden * F + hidden + (int64_t)C * hidden + C; }

void lab_phases_init(int hidden, uint64_t seed, float *params) {
  lab_rng r;
  lab_rng_seed(&r, seed);
  float *w1 = params, *b1 = w1 + (size_t)hidden * F, *w2 = b1 + hidden, *b2 = w2 + (size_t)C * hidden;
  double s1 = 1.0 / sqrt((double)F), s2 = 1.0 / sqrt((double)hidden);
  for (size_t i = 0; i < (size_t)hidden * F; i++) w1[i] = (float)(s1 * lab_rng_normal(&r));
  for (int i = 0; i < hidden; i++) b1[i] = 0;
  for (size_t i = 0; i < (size_t)C * hidden; i++) w2[i] = (float)(s2 * lab_rng_normal(&r));
  for (int i = 0; i < C; i++) b2[i] = 0;
}

void lab_phases_collate(const float *data, const int *labels, int rows, int batch, int step, float mean,
                         float inv_sd, float *x, int *y) {
  for (int i = 0; i < batch; i++) {
    /* A fixed shuffle: consecutive samples come from far-apart rows, as a
     * shuffled data loader reads them (no prefetcher-friendly streaming). */
    int r = (int)(((int64_t)step * batch + i) * 7919 % rows);
    const float *src = data + (size_t)r * F;
    float *dst = x + (size_t)i * F;
    for (int k = 0; k < F; k++) dst[k] = (src[k] - mean) * inv_sd;
    y[i] = labels[r];
  }
}

double lab_phases_cpu_grads(const float *x, const int *y, const float *params, int batch, int hidden, double *g,
                             double *scratch) {
  const float *w1 = params, *b1 = w1 + (size_t)hidden * F, *w2 = b1 + hidden, *b2 = w2 + (size_t)C * hidden;
  double *gw1 = g, *gb1 = gw1 + (size_t)hidden * F, *gw2 = gb1 + hidden, *gb2 = gw2 + (size_t)C * hidden;
  double *z1 = scratch, *dh = z1 + hidden, *z2 = dh + hidden, *dz2 = z2 + C;
  double loss = 0;
  memset(g, 0, (size_t)lab_phases_param_count(hidden) * sizeof *g);
  for (int i = 0; i < batch; i++) {
    const float *xi = x + (size_t)i * F;
    for (int h = 0; h < hidden; h++) {
      double acc = b1[h];
      const float *w = w1 + (size_t)h * F;
      for (int k = 0; k < F; k++) acc += (double)w[k] * xi[k];
      z1[h] = acc;
    }
    double zmax = -INFINITY, sum = 0;
    for (int c = 0; c < C; c++) {
      double acc = b2[c];
      const float *w = w2 + (size_t)c * hidden;
      for (int h = 0; h < hidden; h++) acc += (double)w[h] * (z1[h] > 0 ? z1[h] : 0);
      z2[c] = acc;
      if (acc > zmax) zmax = acc;
    }
    for (int c = 0; c < C; c++) sum += exp(z2[c] - zmax);
    loss += log(sum) + zmax - z2[y[i]];
    for (int c = 0; c < C; c++) dz2[c] = (exp(z2[c] - zmax) / sum - (c == y[i])) / batch;
    for (int h = 0; h < hidden; h++) dh[h] = 0;
    for (int c = 0; c < C; c++) {
      gb2[c] += dz2[c];
      for (int h = 0; h < hidden; h++) {
        gw2[(size_t)c * hidden + h] += dz2[c] * (z1[h] > 0 ? z1[h] : 0);
        dh[h] += dz2[c] * w2[(size_t)c * hidden + h];
      }
    }
    for (int h = 0; h < hidden; h++) {
      if (z1[h] <= 0) continue; /* ReLU passes no gradient */
      gb1[h] += dh[h];
      double *gw = gw1 + (size_t)h * F;
      for (int k = 0; k < F; k++) gw[k] += dh[h] * xi[k];
    }
  }
  return loss / batch;
}

/* ---- traces -------------------------------------------------------------- */

int lab_phases_trace_alloc(lab_phases_trace *t, int steps) {
  memset(t, 0, sizeof *t);
  t->steps = steps;
  size_t np = (size_t)steps * LAB_PHASES_PHASES, no = (size_t)steps * LAB_PHASES_OPS;
  t->range_start_us = malloc(np * sizeof(double));
  t->range_end_us = malloc(np * sizeof(double));
  t->op_start_us = malloc(no * sizeof(double));
  t->op_end_us = malloc(no * sizeof(double));
  t->prep_us = malloc((size_t)steps * sizeof(double));
  if (!t->range_start_us || !t->range_end_us || !t->op_start_us || !t->op_end_us || !t->prep_us) {
    lab_phases_trace_free(t);
    return -1;
  }
  lab_phases_trace_clear(t);
  return 0;
}

void lab_phases_trace_free(lab_phases_trace *t) {
  free(t->range_start_us), free(t->range_end_us), free(t->op_start_us), free(t->op_end_us), free(t->prep_us);
  t->range_start_us = t->range_end_us = t->op_start_us = t->op_end_us = t->prep_us = NULL;
}

void lab_phases_trace_clear(lab_phases_trace *t) {
  for (size_t i = 0; i < (size_t)t->steps * LAB_PHASES_PHASES; i++) t->range_start_us[i] = t->range_end_us[i] = -1;
  for (size_t i = 0; i < (size_t)t->steps * LAB_PHASES_OPS; i++) t->op_start_us[i] = t->op_end_us[i] = -1;
  for (int i = 0; i < t->steps; i++) t->prep_us[i] = 0;
  t->end_us = 0;
}

double lab_phases_trace_wall_ms(const lab_phases_trace *t) { return (t->end_us - t->range_start_us[0]) / 1e3; }

static void add_span(lab_phases_measure *m, const char *lane, const char *label, double s, double e) {
  if (m->n_spans >= LAB_PHASES_MAX_SPANS) return;
  int i = m->n_spans++;
  snprintf(m->span_lane[i], sizeof m->span_lane[i], "%s", lane);
  snprintf(m->span_label[i], sizeof m->span_label[i], "%s", label);
  m->span_start_us[i] = s;
  m->span_end_us[i] = e;
}

/* The last step always logs (the run ends with a loss read), so it shows
 * both things the lesson is about: the host waiting at .item(), and the
 * GPU lane's gaps. GPU work of earlier steps still running inside the
 * window is drawn too, labelled with its step, so a busy GPU looks busy. */
static void pick_timeline(const lab_phases_trace *t, lab_phases_measure *m) {
  int st = t->steps - 1;
  const double *rs = t->range_start_us + (size_t)st * LAB_PHASES_PHASES;
  const double *re = t->range_end_us + (size_t)st * LAB_PHASES_PHASES;
  double t0 = rs[LAB_PH_DATA], t1 = t0;
  m->tl_step = st;
  m->n_spans = 0;
  for (int p = 0; p < LAB_PHASES_PHASES; p++) {
    if (rs[p] < 0) continue;
    char label[48];
    if (p == LAB_PH_LOGGING) snprintf(label, sizeof label, "logging: .item() synchronize (host waits)");
    else snprintf(label, sizeof label, "%s", lab_phases_phase_names[p]);
    add_span(m, "cpu", label, rs[p] - t0, re[p] - t0);
    if (re[p] > t1) t1 = re[p];
  }
  for (int o = 0; o < LAB_PHASES_OPS; o++) {
    double e = t->op_end_us[(size_t)st * LAB_PHASES_OPS + o];
    if (e > t1) t1 = e;
  }
  for (int s = 0; s <= st; s++)
    for (int o = 0; o < LAB_PHASES_OPS; o++) {
      double a = t->op_start_us[(size_t)s * LAB_PHASES_OPS + o], e = t->op_end_us[(size_t)s * LAB_PHASES_OPS + o];
      if (a < 0 || e < t0 || a > t1) continue;
      char label[48];
      if (s == st) snprintf(label, sizeof label, "%s", lab_phases_ops[o].label);
      else snprintf(label, sizeof label, "step %d: %s", s + 1, lab_phases_ops[o].label);
      add_span(m, "gpu:0/stream0", label, (a > t0 ? a : t0) - t0, e - t0);
    }
}

void lab_phases_summarize(const lab_phases_trace *t, lab_phases_measure *m) {
  double first_gpu = -1;
  memset(m->calls, 0, sizeof m->calls);
  memset(m->host_ms, 0, sizeof m->host_ms);
  memset(m->gpu_ms, 0, sizeof m->gpu_ms);
  m->prep_ms = m->gpu_busy_ms = 0;
  for (int s = 0; s < t->steps; s++) {
    for (int p = 0; p < LAB_PHASES_PHASES; p++) {
      size_t i = (size_t)s * LAB_PHASES_PHASES + p;
      if (t->range_start_us[i] < 0) continue;
      m->calls[p]++;
      m->host_ms[p] += (t->range_end_us[i] - t->range_start_us[i]) / 1e3;
    }
    for (int o = 0; o < LAB_PHASES_OPS; o++) {
      size_t i = (size_t)s * LAB_PHASES_OPS + o;
      if (t->op_start_us[i] < 0) continue;
      double d = (t->op_end_us[i] - t->op_start_us[i]) / 1e3;
      m->gpu_ms[lab_phases_ops[o].phase] += d;
      m->gpu_busy_ms += d;
      if (first_gpu < 0 || t->op_start_us[i] < first_gpu) first_gpu = t->op_start_us[i];
    }
    m->prep_ms += t->prep_us[s] / 1e3;
    double start = t->range_start_us[(size_t)s * LAB_PHASES_PHASES];
    double next = s + 1 < t->steps ? t->range_start_us[(size_t)(s + 1) * LAB_PHASES_PHASES] : t->end_us;
    if (s < LAB_PHASES_MAX_STEPS) m->step_host_ms[s] = (float)((next - start) / 1e3);
  }
  m->wall_ms = lab_phases_trace_wall_ms(t);
  m->gpu_first_us = first_gpu - t->range_start_us[0];
  pick_timeline(t, m);
}

/* ---- envelope ------------------------------------------------------------ */

static int biggest_phase(const lab_phases_measure *m) {
  int best = 0;
  for (int p = 1; p < LAB_PHASES_PHASES; p++)
    if (m->host_ms[p] > m->host_ms[best]) best = p;
  return best;
}

static void add_table(cJSON *env, const lab_phases_measure *m) {
  cJSON *d = lab_env_details(env);
  cJSON *model = cJSON_AddObjectToObject(d, "model");
  cJSON_AddNumberToObject(model, "batch", m->batch);
  cJSON_AddNumberToObject(model, "features", F);
  cJSON_AddNumberToObject(model, "hidden", m->hidden);
  cJSON_AddNumberToObject(model, "classes", C);
  cJSON_AddNumberToObject(model, "parameters", (double)lab_phases_param_count(m->hidden));
  cJSON *tab = cJSON_AddArrayToObject(d, "table");
  for (int p = 0; p < LAB_PHASES_PHASES; p++) {
    cJSON *row = cJSON_CreateObject();
    cJSON_AddStringToObject(row, "phase", lab_phases_phase_names[p]);
    cJSON_AddNumberToObject(row, "calls", m->calls[p]);
    cJSON_AddNumberToObject(row, "host_ms", m->host_ms[p]);
    cJSON_AddNumberToObject(row, "gpu_ms", m->gpu_ms[p]);
    cJSON_AddNumberToObject(row, "host_ms_per_call", m->calls[p] ? m->host_ms[p] / m->calls[p] : 0);
    cJSON_AddNumberToObject(row, "pct_of_step", m->wall_ms > 0 ? 100 * m->host_ms[p] / m->wall_ms : 0);
    cJSON_AddItemToArray(tab, row);
  }
  cJSON *ops = cJSON_AddArrayToObject(d, "gpu_ops_per_step");
  for (int o = 0; o < LAB_PHASES_OPS; o++) {
    cJSON *op = cJSON_CreateObject();
    cJSON_AddStringToObject(op, "label", lab_phases_ops[o].label);
    cJSON_AddStringToObject(op, "phase", lab_phases_phase_names[lab_phases_ops[o].phase]);
    cJSON_AddItemToArray(ops, op);
  }
  cJSON_AddNumberToObject(d, "timeline_step", m->tl_step + 1);
}

static void add_findings(cJSON *env, const lab_phases_measure *m, int simulated) {
  int big = biggest_phase(m), n = m->steps;
  double idle_pct = m->wall_ms > 0 ? 100 * (1 - m->gpu_busy_ms / m->wall_ms) : 0;
  double gpu_step = m->gpu_busy_ms / n, prep = m->prep_ms / n;
  lab_env_finding(env,
                  "Over %d steps a step took %.3f ms; the biggest phase was %s with %.3f ms a step on the host "
                  "(%.0f%% of the step).",
                  n, m->step_ms, lab_phases_phase_names[big], m->host_ms[big] / n,
                  m->wall_ms > 0 ? 100 * m->host_ms[big] / m->wall_ms : 0);
  lab_env_finding(env,
                  "The GPU was busy %.3f ms of each %.3f ms step: it sat idle %.0f%% of the time. Preparing a batch "
                  "on the host took %.3f ms a step%s.",
                  gpu_step, m->wall_ms / n, idle_pct, prep,
                  prep > gpu_step ? ", longer than the GPU's whole step: the host, not the GPU, sets the pace" : "");
  if (m->calls[LAB_PH_LOGGING] > 0) {
    double wait = m->host_ms[LAB_PH_LOGGING] / m->calls[LAB_PH_LOGGING];
    lab_env_finding(env,
                    "Logging read the loss %d time%s (every %d step%s); each read waited %.3f ms on average, "
                    "because .item() must wait until the GPU has finished everything queued before it.",
                    m->calls[LAB_PH_LOGGING], m->calls[LAB_PH_LOGGING] == 1 ? "" : "s", m->log_every,
                    m->log_every == 1 ? "" : "s", wait);
  }
  if (!m->pinned)
    lab_env_finding(env,
                    "The batch was copied from pageable memory: each copy made the host wait for the GPU's earlier "
                    "work and for the copy itself (data load %.3f ms a step on the host: %.3f ms preparing, %.3f ms "
                    "copying and waiting), so the host could never run ahead of the GPU. Pin the batch "
                    "(pin_memory=True) and copy it with non_blocking=True.",
                    m->host_ms[LAB_PH_DATA] / n, prep, m->host_ms[LAB_PH_DATA] / n - prep);
  if (m->log_every < 10)
    lab_env_finding(env,
                    "Reading the loss every %d step%s stops the host from running ahead of the GPU: log every 10 "
                    "or more steps (keep the losses on the GPU and read them together).",
                    m->log_every, m->log_every == 1 ? "" : "s");
  if (idle_pct < 15)
    lab_env_finding(env, "With the GPU idle only %.0f%% of the time, the data loading is hidden behind the GPU's "
                    "work: to go faster, make the GPU's work faster (mixed precision, bigger kernels).", idle_pct);
  else if (m->pinned && m->log_every >= 10)
    lab_env_finding(env,
                    "Pinned and logged every %d steps, the GPU still idled %.0f%%: the host needs %.3f ms to prepare "
                    "a batch against %.3f ms of GPU work. Prepare batches in parallel (DataLoader num_workers) or "
                    "give the GPU more work per step.",
                    m->log_every, idle_pct, prep, gpu_step);
  if (simulated)
    lab_env_finding(env, "Each phase is a named range: on a real GPU gpulab wraps it in NVTX, so Nsight Systems or "
                    "torch.profiler show the same names above the kernels.");
  else if (m->validated >= 0)
    lab_env_finding(env, "The step's loss and gradients %s the CPU reference (max abs error %s); every phase ran "
                    "inside an NVTX range that Nsight Systems (nsys profile) shows by name.",
                    m->validated ? "match" : "do NOT match", LAB_PLAIN(m->max_abs_err));
}

cJSON *lab_phases_envelope(const lab_params *p, const lab_phases_measure *m, const char *backend,
                            const char *device_name, const lab_profile *prof) {
  cJSON *env = lab_envelope_new("profile", backend, device_name, prof ? prof->name : NULL, lab_params_to_json(p));
  if (!env) return NULL;
  int simulated = strcmp(backend, "simulated") == 0, n = m->steps;
  lab_env_metric(env, "step_ms", m->step_ms);
  lab_env_metric(env, "wall_ms", m->wall_ms);
  lab_env_metric(env, "gpu_busy_ms", m->gpu_busy_ms);
  lab_env_metric(env, "gpu_step_ms", m->gpu_busy_ms / n);
  lab_env_metric(env, "gpu_idle_pct", m->wall_ms > 0 ? 100 * (1 - m->gpu_busy_ms / m->wall_ms) : 0);
  lab_env_metric(env, "data_prep_ms", m->prep_ms);
  lab_env_metric(env, "biggest_phase", biggest_phase(m));
  for (int ph = 0; ph < LAB_PHASES_PHASES; ph++) {
    char key[48];
    const char *k = lab_phases_phase_keys[ph];
    snprintf(key, sizeof key, "%s_host_ms", k);
    lab_env_metric(env, key, m->host_ms[ph]);
    snprintf(key, sizeof key, "%s_gpu_ms", k);
    lab_env_metric(env, key, m->gpu_ms[ph]);
    snprintf(key, sizeof key, "%s_pct", k);
    lab_env_metric(env, key, m->wall_ms > 0 ? 100 * m->host_ms[ph] / m->wall_ms : 0);
    snprintf(key, sizeof key, "%s_calls", k);
    lab_env_metric(env, key, m->calls[ph]);
  }
  cJSON *hs = lab_env_series(env, "phase_host_ms", "host time per phase (all steps)", "phase", "ms");
  cJSON *gs = lab_env_series(env, "phase_gpu_ms", "GPU busy time per phase (all steps)", "phase", "ms");
  for (int ph = 0; ph < LAB_PHASES_PHASES; ph++) {
    lab_series_point(hs, ph, m->host_ms[ph]);
    lab_series_point(gs, ph, m->gpu_ms[ph]);
  }
  cJSON *st = lab_env_series(env, "step_host", "host time of each step", "step", "ms");
  for (int s = 0; s < n && s < LAB_PHASES_MAX_STEPS; s++) lab_series_point(st, s + 1, m->step_host_ms[s]);
  cJSON *runs = lab_env_series(env, "runs", "wall time of each timed run", "run", "ms");
  for (int r = 0; r < m->runs; r++) lab_series_point(runs, r + 1, m->run_ms[r]);
  for (int i = 0; i < m->n_spans; i++)
    lab_env_event(env, m->span_lane[i], m->span_label[i], m->span_start_us[i], m->span_end_us[i]);
  add_table(env, m);
  add_findings(env, m, simulated);
  if (simulated)
    lab_env_stats(env, m->runs, m->warmup, "step_ms", m->iqr_pct,
                  "Simulated with the one-stream model of the profile: the host gathers and normalises each batch "
                  "(a one-core loop at 4 GB/s), copies it (pinned: queued and the host goes on; pageable: the host "
                  "waits for the GPU and the copy), launches the step's kernels (launch_us each; sgemms from the "
                  "fp32 model, element-wise kernels from memory bandwidth, ±3% jitter), and on logging steps waits "
                  "for the loss (.item()). A real profiler (Nsight Systems, torch.profiler) shows these same "
                  "phases as NVTX ranges above the kernels; median of the runs.");
  else
    lab_env_stats(env, m->runs, m->warmup, "step_ms", m->iqr_pct,
                  "Each phase is an NVTX range (nvtxRangePush/Pop), so Nsight Systems or torch.profiler show the "
                  "same names; host time is the host clock inside each range; the GPU's busy time per op comes "
                  "from a CUDA event after every op, an op starting when the previous one ended or when the host "
                  "issued it, whichever is later (events aligned to the host clock when the GPU was idle). "
                  "A warm-up run first; median of the runs' wall time.");
  if (m->validated >= 0) lab_env_validation(env, m->validated, m->max_abs_err);
  return env;
}
