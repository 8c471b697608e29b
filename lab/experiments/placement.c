/* Placement bookkeeping shared by the GPU side and the simulator: where each
 * tensor lives, the preflight that stops a mixed-device step before any
 * kernel runs (naming the field and both devices), the envelope, and a
 * model of the copies and the layer for a profile. */
#include "placement.h"

#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "envelope.h"
#include "units.h"
#include "gpu_model.h"
#include "rng.h"
#include "stats.h"
#include "stream_sim.h"

LAB_PARAMS_DEFINE(placement)

const char *lab_where_name(lab_where w) { return w == LAB_ON_GPU ? "cuda:0" : "cpu"; }

static void set_tensor(lab_tensor_info *t, const char *name, const char *role, const char *dtype, lab_where w,
                       int moved, int rank, long d0, long d1) {
  t->name = name;
  t->role = role;
  t->dtype = dtype;
  t->where = w;
  t->moved = moved;
  t->rank = rank;
  t->shape[0] = d0;
  t->shape[1] = rank > 1 ? d1 : 0;
  t->bytes = (uint64_t)d0 * (uint64_t)(rank > 1 ? d1 : 1) * 4u; /* float32 and int32 are both 4 bytes */
}

void lab_placement_plan(const lab_params *p, lab_placement_measure *m) {
  const lab_params_placement tp = lab_params_placement_of(p);
  long b = tp.batch, f = tp.features, c = tp.classes;
  int model = tp.model_on_gpu;
  int mf = tp.move_features, mm = tp.move_mask,
      ml = tp.move_labels;
  memset(m, 0, sizeof *m);
  m->validated = -1;
  set_tensor(&m->t[LAB_T_WEIGHT], "weight", "model", "float32", model ? LAB_ON_GPU : LAB_ON_CPU, model, 2, c, f);
  set_tensor(&m->t[LAB_T_BIAS], "bias", "model", "float32", model ? LAB_ON_GPU : LAB_ON_CPU, model, 1, c, 0);
  set_tensor(&m->t[LAB_T_FEATURES], "features", "batch", "float32", mf ? LAB_ON_GPU : LAB_ON_CPU, mf, 2, b, f);
  set_tensor(&m->t[LAB_T_MASK], "mask", "batch", "float32", mm ? LAB_ON_GPU : LAB_ON_CPU, mm, 1, b, 0);
  set_tensor(&m->t[LAB_T_LABELS], "labels", "batch", "int32", ml ? LAB_ON_GPU : LAB_ON_CPU, ml, 1, b, 0);
  for (int i = 0; i < LAB_T_COUNT; i++)
    if (m->t[i].moved) m->copied_bytes += m->t[i].bytes;
  m->preflight_ok = lab_placement_preflight(m->t, LAB_T_COUNT, &m->stray, m->message, sizeof m->message);
  m->compute = m->t[LAB_T_WEIGHT].where;
  m->out_rows = b;
  m->out_cols = c;
}

int lab_placement_preflight(const lab_tensor_info *t, int n, int *stray, char *msg, unsigned msg_size) {
  *stray = -1;
  if (msg_size) msg[0] = 0;
  if (n <= 0) return 1;
  /* The model's device is the reference: a step runs where the weights are. */
  lab_where ref = t[0].where;
  for (int i = 1; i < n; i++) {
    if (t[i].where == ref) continue;
    *stray = i;
    /* .to() returns a copy: the name must be bound to it, as the lesson teaches. */
    const char *fix = ref == LAB_ON_GPU ? "copy it over with %s = %s.to(\"cuda\") before the step"
                                        : "either move the model to the GPU too, or leave %s on the host";
    char fixbuf[128];
    snprintf(fixbuf, sizeof fixbuf, fix, t[i].name, t[i].name);
    snprintf(msg, msg_size,
             "Stopped before any kernel ran: the tensors of this step are on two devices. '%s' is on %s, "
             "but the model's %s is on %s. Every tensor a step touches must be on one device: %s.",
             t[i].name, lab_where_name(t[i].where), t[0].name, lab_where_name(ref), fixbuf);
    return 0;
  }
  return 1;
}

static cJSON *shape_json(const lab_tensor_info *t) {
  cJSON *a = cJSON_CreateArray();
  for (int d = 0; d < t->rank; d++) cJSON_AddItemToArray(a, cJSON_CreateNumber((double)t->shape[d]));
  return a;
}

static void add_details(cJSON *env, const lab_placement_measure *m) {
  cJSON *d = lab_env_details(env);
  cJSON *arr = cJSON_AddArrayToObject(d, "tensors");
  for (int i = 0; i < LAB_T_COUNT; i++) {
    const lab_tensor_info *t = &m->t[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", t->name);
    cJSON_AddStringToObject(o, "role", t->role);
    cJSON_AddStringToObject(o, "device", lab_where_name(t->where));
    cJSON_AddItemToObject(o, "shape", shape_json(t));
    cJSON_AddStringToObject(o, "dtype", t->dtype);
    cJSON_AddNumberToObject(o, "bytes", (double)t->bytes);
    cJSON_AddBoolToObject(o, "moved", t->moved);
    cJSON_AddBoolToObject(o, "stray", !m->preflight_ok && t->where != m->t[0].where);
    cJSON_AddItemToArray(arr, o);
  }
  cJSON *pf = cJSON_AddObjectToObject(d, "preflight");
  cJSON_AddBoolToObject(pf, "ok", m->preflight_ok);
  if (m->preflight_ok) {
    cJSON_AddNullToObject(pf, "field");
    cJSON_AddNullToObject(pf, "message");
  } else {
    cJSON_AddStringToObject(pf, "field", m->t[m->stray].name);
    cJSON_AddStringToObject(pf, "message", m->message);
  }
  cJSON *devs = cJSON_AddArrayToObject(pf, "devices");
  int seen[2] = {0, 0};
  for (int i = 0; i < LAB_T_COUNT; i++) seen[m->t[i].where] = 1;
  for (int w = 1; w >= 0; w--)
    if (seen[w]) cJSON_AddItemToArray(devs, cJSON_CreateString(lab_where_name((lab_where)w)));
  cJSON *out = cJSON_AddObjectToObject(d, "output");
  cJSON_AddBoolToObject(out, "computed", m->ran);
  if (m->ran) {
    cJSON *shape = cJSON_AddArrayToObject(out, "shape");
    cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)m->out_rows));
    cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)m->out_cols));
    cJSON_AddStringToObject(out, "device", lab_where_name(m->compute));
    cJSON_AddStringToObject(out, "dtype", "float32");
    if (m->counted > 0) {
      cJSON_AddNumberToObject(out, "correct", m->correct);
      cJSON_AddNumberToObject(out, "counted", m->counted);
    }
  } else {
    cJSON_AddNullToObject(out, "shape");
    cJSON_AddNullToObject(out, "device");
  }
}

static void add_findings(cJSON *env, const lab_placement_measure *m, int simulated) {
  int on_gpu = 0;
  for (int i = 0; i < LAB_T_COUNT; i++) on_gpu += m->t[i].where == LAB_ON_GPU;
  if (!m->preflight_ok) {
    const lab_tensor_info *s = &m->t[m->stray];
    lab_env_finding(env, "The preflight caught it: '%s' stayed on %s while the model is on %s, so no kernel ran.",
                    s->name, lab_where_name(s->where), lab_where_name(m->t[0].where));
    lab_env_finding(env,
                    "PyTorch fails the same way, but only once a kernel gets the mixed tensors (\"expected all "
                    "tensors to be on the same device\"); checking every field first names the culprit.");
    return;
  }
  lab_env_finding(env, "All %d tensors are on %s, so the layer ran there and produced a %ld×%ld output on %s.",
                  LAB_T_COUNT, lab_where_name(m->compute), m->out_rows, m->out_cols, lab_where_name(m->compute));
  if (m->copied_bytes > 0 && m->copy_ms > 0) {
    char b[24], t1[24], t2[24], r[24];
    lab_env_finding(env, "%s %s to the GPU took %s (%s GB/s); the layer itself took %s.",
                    simulated ? "Copying" : "On this run, copying", lab_fmt_bytes_si((double)m->copied_bytes, b, sizeof b),
                    lab_fmt_ms(m->copy_ms, t1, sizeof t1),
                    lab_fmt_num((double)m->copied_bytes / 1e6 / m->copy_ms, r, sizeof r),
                    lab_fmt_ms(m->forward_ms, t2, sizeof t2));
  }
  if (on_gpu == 0)
    lab_env_finding(env, "Nothing was moved, so everything ran on the CPU: consistent, but the GPU sat idle.");
  if (m->counted > 0)
    lab_env_finding(env, "The untrained layer picked the right class for %d of %d real (unmasked) samples.",
                    m->correct, m->counted);
}

cJSON *lab_placement_envelope(const lab_params *p, const lab_placement_measure *m, const char *backend,
                              const char *device_name, const lab_profile *prof) {
  cJSON *env = lab_envelope_new("placement", backend, device_name, prof ? prof->name : NULL, lab_params_to_json(p));
  if (!env) return NULL;
  int on_gpu = 0;
  for (int i = 0; i < LAB_T_COUNT; i++) on_gpu += m->t[i].where == LAB_ON_GPU;
  lab_env_metric(env, "preflight_ok", m->preflight_ok);
  lab_env_metric(env, "tensors_on_gpu", on_gpu);
  lab_env_metric(env, "tensors_on_cpu", LAB_T_COUNT - on_gpu);
  lab_env_metric(env, "copied_bytes", (double)m->copied_bytes);
  lab_env_metric(env, "kernels_run", m->ran && m->compute == LAB_ON_GPU ? 2 : 0);
  lab_env_metric(env, "copy_ms", m->copy_ms); /* the copies happen before the preflight, as .to() does */
  if (m->ran) {
    lab_env_metric(env, "forward_ms", m->forward_ms);
    lab_env_metric(env, "output_rows", (double)m->out_rows);
    lab_env_metric(env, "output_cols", (double)m->out_cols);
  }
  add_details(env, m);
  add_findings(env, m, strcmp(backend, "simulated") == 0);
  if (m->validated >= 0) lab_env_validation(env, m->validated, m->max_abs_err);
  if (!m->ran) {
    lab_env_stats(env, 0, 0, NULL, 0, "The preflight compares every tensor's device before the step; nothing ran.");
  } else if (strcmp(backend, "simulated") == 0) {
    lab_env_stats(env, m->samples, m->warmup, "forward_ms", m->forward_iqr_pct,
                  "Modelled: each copy costs the profile's per-copy latency plus bytes over the pageable "
                  "host-to-device bandwidth; the layer is an sgemm at the profile's modelled efficiency.");
  } else {
    lab_env_stats(env, m->samples, m->warmup, "forward_ms", m->forward_iqr_pct,
                  "Copies timed with CUDA events around cudaMemcpy from pageable memory; the layer (cuBLAS sgemm "
                  "plus the mask-and-score kernel) timed with events, median of the samples after warm-up; the "
                  "output checked against a CPU reference.");
  }
  return env;
}

/* The model: copies as .to("cuda") does them (pageable, one per tensor),
 * the layer as one sgemm plus one small kernel, on the profile's figures,
 * with a little seeded jitter so the samples have a spread. */
static int simulate(const lab_params *p, const lab_profile *prof, cJSON **out, lab_error *err) {
  lab_placement_measure m;
  lab_placement_plan(p, &m);
  double copy_us = 0;
  for (int i = 0; i < LAB_T_COUNT; i++)
    if (m.t[i].moved) copy_us += lab_copy_us(prof, (double)m.t[i].bytes, prof->h2d_pageable_gbps);
  m.copy_ms = copy_us / 1e3;
  if (m.preflight_ok) {
    m.ran = 1;
    m.samples = 10;
    m.warmup = 2;
    double b = (double)m.out_rows, c = (double)m.out_cols, f = (double)m.t[LAB_T_FEATURES].shape[1];
    double base_us;
    if (m.compute == LAB_ON_GPU) {
      /* sgemm, then the mask-and-score kernel reads the output once */
      base_us = lab_gemm_us(prof, b, c, f) + prof->kernel_min_us + b * c * 4.0 / (prof->mem_bw_gbps * 1e3);
    } else {
      /* A plain C loop on one core sustains a few GFLOP/s; 4 GFLOP/s is the
       * model's figure for an unblocked fp32 dot-product loop. */
      base_us = 2.0 * b * c * f / 4e3 + 1.0;
    }
    lab_rng rng;
    lab_rng_seed(&rng, (uint64_t)(b * 131 + c * 7 + f));
    double x[10];
    for (int s = 0; s < m.samples; s++) x[s] = base_us * lab_rng_jitter(&rng, 3.0) / 1e3;
    lab_summary sum;
    lab_summarize(x, (size_t)m.samples, &sum);
    m.forward_ms = sum.median;
    m.forward_iqr_pct = sum.iqr_pct;
  }
  *out = lab_placement_envelope(p, &m, "simulated", prof->device_name, prof);
  return *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
}

/* The device memory one run allocates (see lab_experiment.gpu_bytes). */
static double gpu_bytes(const lab_params *p, const char **param) {
  const lab_params_placement tp = lab_params_placement_of(p);
  double b = (double)tp.batch, f = (double)tp.features, c = (double)tp.classes;
  *param = b >= c ? "batch" : "classes";
  /* features, mask, labels, weight, bias, output (fp32/int32), all moved */
  return 4.0 * (b * f + 2 * b + c * f + c + b * c) + 4;
}

/* CPU cost (lab_experiment_cpu_ms): a closed-form model of a few
 * copies and one matmul, whatever the sizes; under 0.1 ms measured
 * (bench/cpu_cost), so the 1 ms floor of an envelope. */
LAB_CPU_MS(placement);

LAB_CPU_MS(placement) {
  (void)p;
  *param = "batch";
  return 1.0;
}

const lab_experiment lab_exp_placement = {
    .name = "placement",
    .title = "Where do the tensors live?",
    .summary = "A linear layer on the GPU and a batch of named fields: every tensor of a step must be on one "
               "device, and a preflight names the one that is not.",
    .lesson = "01-cuda-intuition",
    .params = lab_params_placement_spec,
    .n_params = LAB_PARAMS_COUNT(placement),
    .gpu_bytes = gpu_bytes,
    .simulate = LAB_SIMULATOR(simulate),
};
