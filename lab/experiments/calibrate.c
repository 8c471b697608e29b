/* The fit: each headline figure of a real run is tied to one profile figure
 * (bandwidths to bandwidths, per-copy overhead to copy latency, launch cost
 * to launch_us, sgemm time to the fp32 peak). Starting from the nearest
 * built-in profile, each tied figure is scaled by real/simulated and the
 * simulation re-run, a few rounds; the model is close to proportional in
 * each figure, so this settles quickly. A run of the measurement kit
 * (backend "pytorch") is simulated in the PyTorch view, and its launch cost,
 * which holds PyTorch's own host cost per op, is tied to torch_op_us on top
 * of the base's raw launch. A GPU run's launch cost is a cublasSgemm call:
 * a raw launch plus cuBLAS's own host cost (blas_us). The raw launch cannot
 * exceed the pace of the small copies (the host enqueued each one within
 * it; the model enqueues a copy at launch_us), so the fit keeps launch_us
 * under that pace and gives the rest to blas_us: on the H100 (lease of
 * 2026-11-28) a call cost 12.4 us and a small copy 2.6 us, and tying the
 * whole call to launch_us made every simulated copy 12.2 us. */
#include "calibrate.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"
#include "registry.h"

typedef struct {
  const char *experiment; /* "transfer" | "timing" */
  const char *metric;
  size_t field;  /* offset of the double in lab_profile it is tied to */
  int inverse;   /* the metric falls as the figure grows (time vs throughput) */
} tie;

static const tie ties[] = {
    {"transfer", "h2d_pinned_gbps", offsetof(lab_profile, h2d_pinned_gbps), 0},
    {"transfer", "d2h_pinned_gbps", offsetof(lab_profile, d2h_pinned_gbps), 0},
    {"transfer", "h2d_pageable_gbps", offsetof(lab_profile, h2d_pageable_gbps), 0},
    {"transfer", "d2h_pageable_gbps", offsetof(lab_profile, d2h_pageable_gbps), 0},
    {"transfer", "per_copy_overhead_us", offsetof(lab_profile, copy_latency_us), 0},
    {"timing", "launch_us", offsetof(lab_profile, launch_us), 0},
    {"timing", "sgemm_ms", offsetof(lab_profile, fp32_tflops), 1},
};
#define N_TIES (sizeof ties / sizeof ties[0])
#define ROUNDS 6

const lab_profile *lab_calibrate_base(const lab_gpu_info *gpu) {
  /* The same device first (an L4 and an RTX 4090 share compute capability 8.9), then the same architecture. */
  for (int i = 0; gpu && gpu->name[0] && i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    if (strcmp(p->device_name, gpu->name) == 0 && lab_profile_builtin(p)) return p;
  }
  /* No compute capability (an Apple or AMD GPU the kit measured) matches none: 0.0 is no architecture. */
  for (int i = 0; gpu && (gpu->cc_major || gpu->cc_minor) && i < lab_profile_count(); i++) {
    const lab_profile *p = lab_profile_at(i);
    if (p->cc_major == gpu->cc_major && p->cc_minor == gpu->cc_minor && lab_profile_builtin(p))
      return p;
  }
  return lab_profile_default();
}

static double metric(const cJSON *env, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "metrics"), key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const cJSON *real_of(const char *experiment, const cJSON *transfer, const cJSON *timing) {
  return strcmp(experiment, "transfer") == 0 ? transfer : timing;
}

static double param(const cJSON *env, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "params"), key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The host's time per small copy in a real transfer run (µs): what bounds
 * a raw launch from above; NAN when the run does not say. */
static double copy_pace_us(const cJSON *transfer) {
  double ms = metric(transfer, "small_copies_ms"), n = param(transfer, "small_copies");
  return isfinite(ms) && ms > 0 && isfinite(n) && n >= 1 ? ms * 1e3 / n : NAN;
}

/* A sgemm call's host cost (launch_us + blas_us) scaled to the real one,
 * then split: the raw launch up to the copies' pace, cuBLAS the rest. */
static void fit_call(lab_profile *p, double scale, double pace) {
  double call = (p->launch_us + p->blas_us) * scale;
  p->launch_us = isfinite(pace) && call > pace ? pace : call;
  p->blas_us = call - p->launch_us;
}

static int is_pytorch(const cJSON *env) {
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(env, "backend");
  return cJSON_IsString(b) && strcmp(b->valuestring, "pytorch") == 0;
}

/* The real run's params as the simulator must take them to match it: raw
 * CUDA launches (PyTorch's for a kit run) and the card's own link, as a GPU
 * run measures. */
static cJSON *params_like_gpu(const cJSON *env) {
  cJSON *p = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(env, "params"), 1);
  if (!p) p = cJSON_CreateObject();
  if (cJSON_GetObjectItemCaseSensitive(p, "view"))
    cJSON_ReplaceItemInObjectCaseSensitive(p, "view", cJSON_CreateString(is_pytorch(env) ? "pytorch" : "cuda"));
  if (cJSON_GetObjectItemCaseSensitive(p, "host"))
    cJSON_ReplaceItemInObjectCaseSensitive(p, "host", cJSON_CreateString("profile"));
  return p;
}

/* Simulates both experiments with the real runs' params; 0 or -1. */
static int simulate_both(const lab_profile *prof, const cJSON *transfer, const cJSON *timing, cJSON **sim_transfer,
                         cJSON **sim_timing, lab_error *err) {
  *sim_transfer = *sim_timing = NULL;
  cJSON *pt = params_like_gpu(transfer), *pm = params_like_gpu(timing);
  int rc = 0;
  if (lab_simulate_with(lab_experiment_find("transfer"), pt, prof, sim_transfer, err)) rc = -1;
  else if (lab_simulate_with(lab_experiment_find("timing"), pm, prof, sim_timing, err)) {
    cJSON_Delete(*sim_transfer);
    *sim_transfer = NULL;
    rc = -1;
  }
  cJSON_Delete(pt);
  cJSON_Delete(pm);
  return rc;
}

static int check_inputs(const cJSON *transfer, const cJSON *timing, lab_error *err) {
  for (size_t i = 0; i < N_TIES; i++) {
    const cJSON *env = real_of(ties[i].experiment, transfer, timing);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(env, "experiment");
    if (!cJSON_IsString(name) || strcmp(name->valuestring, ties[i].experiment) != 0)
      return lab_fail(err, LAB_E_INVALID_PARAM, ties[i].experiment, "calibration needs a %s result",
                      ties[i].experiment);
    double v = metric(env, ties[i].metric);
    if (!isfinite(v) || v <= 0)
      return lab_fail(err, LAB_E_INVALID_PARAM, ties[i].metric, "the %s result has no positive %s to fit",
                      ties[i].experiment, ties[i].metric);
  }
  return 0;
}

int lab_calibrate(const cJSON *real_transfer, const cJSON *real_timing, const lab_gpu_info *gpu, lab_profile *out,
                  cJSON **report, lab_error *err) {
  *report = NULL;
  if (check_inputs(real_transfer, real_timing, err)) return -1;
  tie fit[N_TIES];
  memcpy(fit, ties, sizeof fit);
  for (size_t i = 0; i < N_TIES && is_pytorch(real_timing); i++)
    if (fit[i].field == offsetof(lab_profile, launch_us)) fit[i].field = offsetof(lab_profile, torch_op_us);
  const lab_profile *base = lab_calibrate_base(gpu);
  lab_profile p = *base;
  snprintf(p.name, sizeof p.name, "calibrated");
  snprintf(p.label, sizeof p.label, "Calibrated on %.48s", gpu && gpu->name[0] ? gpu->name : "this GPU");
  snprintf(p.source, sizeof p.source, "fitted by gpulab calibrate to real transfer and timing runs (from %s)",
           base->name);
  if (gpu && gpu->name[0]) snprintf(p.device_name, sizeof p.device_name, "%s", gpu->name);
  if (gpu && gpu->sm_count) p.sm_count = gpu->sm_count;
  if (gpu && gpu->mem_total_bytes) p.memory_bytes = gpu->mem_total_bytes;
  size_t used = 0;
  for (size_t i = 0; i < N_TIES && used < sizeof p.calibrated_fields; i++) {
    const char *field = NULL;
#define LAB_X_FIELD(f) \
  if (fit[i].field == offsetof(lab_profile, f)) field = #f;
    LAB_PROFILE_POSITIVE(LAB_X_FIELD)
#undef LAB_X_FIELD
    if (field) used += (size_t)snprintf(p.calibrated_fields + used, sizeof p.calibrated_fields - used, "%s%s",
                                        used ? "," : "", field);
  }
  if (!is_pytorch(real_timing) && used < sizeof p.calibrated_fields)
    snprintf(p.calibrated_fields + used, sizeof p.calibrated_fields - used, ",blas_us");
  double pace = copy_pace_us(real_transfer);

  cJSON *sim_transfer = NULL, *sim_timing = NULL;
  for (int round = 0; round < ROUNDS; round++) {
    if (simulate_both(&p, real_transfer, real_timing, &sim_transfer, &sim_timing, err)) return -1;
    for (size_t i = 0; i < N_TIES; i++) {
      double real = metric(real_of(fit[i].experiment, real_transfer, real_timing), fit[i].metric);
      double sim = metric(real_of(fit[i].experiment, sim_transfer, sim_timing), fit[i].metric);
      double *figure = (double *)((char *)&p + fit[i].field);
      if (!(isfinite(sim) && sim > 0)) continue;
      if (fit[i].field == offsetof(lab_profile, launch_us)) fit_call(&p, real / sim, pace);
      else *figure *= fit[i].inverse ? sim / real : real / sim;
    }
    cJSON_Delete(sim_transfer);
    cJSON_Delete(sim_timing);
  }
  if (simulate_both(&p, real_transfer, real_timing, &sim_transfer, &sim_timing, err)) return -1;

  cJSON *rep = cJSON_CreateObject();
  cJSON_AddItemToObject(rep, "profile", lab_profile_json(&p));
  cJSON_AddStringToObject(rep, "base", base->name);
  cJSON *checks = cJSON_AddArrayToObject(rep, "checks");
  int all_ok = 1;
  for (size_t i = 0; i < N_TIES; i++) {
    double real = metric(real_of(fit[i].experiment, real_transfer, real_timing), fit[i].metric);
    double sim = metric(real_of(fit[i].experiment, sim_transfer, sim_timing), fit[i].metric);
    double error_pct = 100.0 * fabs(sim - real) / real;
    int ok = isfinite(error_pct) && error_pct <= LAB_CALIBRATE_TOLERANCE_PCT;
    all_ok &= ok;
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "experiment", fit[i].experiment);
    cJSON_AddStringToObject(c, "metric", fit[i].metric);
    cJSON_AddNumberToObject(c, "real", real);
    cJSON_AddNumberToObject(c, "simulated", sim);
    cJSON_AddNumberToObject(c, "error_pct", isfinite(error_pct) ? error_pct : -1);
    cJSON_AddBoolToObject(c, "ok", ok);
    cJSON_AddItemToArray(checks, c);
  }
  cJSON_AddNumberToObject(rep, "tolerance_pct", LAB_CALIBRATE_TOLERANCE_PCT);
  cJSON_AddBoolToObject(rep, "ok", all_ok);
  cJSON_Delete(sim_transfer);
  cJSON_Delete(sim_timing);
  *out = p;
  *report = rep;
  return 0;
}
