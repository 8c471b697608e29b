/* A learner's run beside the simulator: each experiment of the kit file
 * simulated on the chosen profile with the run's own parameters, and for
 * its headline figures (and every figure with a physical limit) the
 * measured value, the prediction, their ratio and the physical check. A
 * run on the CPU gets predictions but no ratios: they would compare a CPU
 * with a GPU. */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare_claims.h"
#include "compare_profile.h"
#include "kit_file.h"
#include "kit_plan.h"
#include "plausible.h"
#include "registry.h"

/* The figures a learner reads first, per experiment (gpulab's own names). */
static const struct {
  const char *experiment;
  const char *metrics[7];
} headlines[] = {
    {"device", {"memory_total_bytes", "sm_count"}},
    {"placement", {"forward_ms", "copy_ms"}},
    {"memory", {"peak_allocated_bytes", "peak_reserved_bytes"}},
    {"train_step", {"every_step_ms", "every_n_ms", "cost_per_read_us"}},
    {"transfer", {"h2d_pinned_gbps", "h2d_pageable_gbps", "d2h_pinned_gbps", "d2h_pageable_gbps", "small_copy_gbps",
                  "per_copy_overhead_us"}},
    {"timing", {"events_ms", "host_sync_ms", "host_nosync_ms", "tflops", "launch_us", "cold_ms"}},
    {"crossover", {"cpu_ms_largest", "gpu_ms_largest", "gpu_kernel_gflops", "crossover_n"}},
    {"precision", {"fp32_tflops", "tf32_tflops", "bf16_tflops", "fp16_tflops"}},
    {"allocator", {"cache_alloc_free_us", "cuda_malloc_us", "peak_reserved_bytes"}},
    {"graphs", {"eager_per_kernel_us", "graph_per_kernel_us", "graph_speedup"}},
    {"profile", {"step_ms", "gpu_idle_pct"}},
    {"streams", {"one_stream_ms", "total_ms", "speedup"}},
};

/* The unit a metric's name carries (docs/architecture.md: units in the key,
 * as a word of it: cpu_ms_largest, h2d_pinned_gbps, gpu_kernel_gflops); "n"
 * (a size, crossover_n) only when no other unit is named (every_n_ms is ms). */
static const char *unit_of(const char *key) {
  static const struct {
    const char *word, *unit;
  } units[] = {{"gbps", "GB/s"}, {"ms", "ms"}, {"us", "µs"}, {"bytes", "bytes"}, {"tflops", "TFLOPS"},
               {"gflops", "GFLOPS"}, {"pct", "%"}, {"speedup", "×"}, {"n", "N"}};
  const char *size = "";
  for (const char *w = key; *w;) {
    size_t len = strcspn(w, "_");
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
      if (strlen(units[i].word) == len && !strncmp(w, units[i].word, len)) {
        if (strcmp(units[i].word, "n") != 0) return units[i].unit;
        size = units[i].unit;
      }
    w += len + (w[len] == '_');
  }
  return size;
}

static double metric(const cJSON *env, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "metrics"), key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void add_number(cJSON *o, const char *key, double v) {
  if (isfinite(v)) cJSON_AddNumberToObject(o, key, v);
  else cJSON_AddNullToObject(o, key);
}

/* crossover's CPU line: the simulator times the CPU it runs on, not the learner's. */
static int host_side(const char *exp, const char *key) { return !strcmp(exp, "crossover") && !strncmp(key, "cpu_", 4); }

static void add_figure(cJSON *figs, const char *exp, const char *key, const cJSON *env, const cJSON *sim,
                       const lab_profile *datasheet, int gpu, int *implausible) {
  double measured = metric(env, key), predicted = host_side(exp, key) ? NAN : metric(sim, key);
  if (!isfinite(measured)) return;
  char why[400];
  lab_plausible p = gpu ? lab_plausible_check(exp, key, env, datasheet, why, sizeof why) : LAB_PLAUSIBLE_UNCHECKED;
  if (!gpu) snprintf(why, sizeof why, "ran on the CPU: no GPU limit applies");
  cJSON *f = cJSON_CreateObject();
  cJSON_AddItemToArray(figs, f);
  cJSON_AddStringToObject(f, "metric", key);
  cJSON_AddStringToObject(f, "unit", unit_of(key));
  add_number(f, "measured", measured);
  add_number(f, "predicted", predicted);
  add_number(f, "ratio", gpu && isfinite(predicted) && predicted != 0 ? measured / predicted : NAN);
  if (p == LAB_PLAUSIBLE_UNCHECKED) cJSON_AddNullToObject(f, "plausible");
  else cJSON_AddBoolToObject(f, "plausible", p == LAB_PLAUSIBLE_YES);
  cJSON_AddStringToObject(f, "reason", why);
  *implausible += p == LAB_PLAUSIBLE_NO;
}

/* prof NULL: no prediction (a hand-in's summary: the physical checks alone). */
static cJSON *experiment_entry(const cJSON *env, const lab_profile *prof, const lab_profile *datasheet, int gpu,
                               int flags, int *implausible) {
  const char *exp = cJSON_GetObjectItemCaseSensitive(env, "experiment")->valuestring;
  cJSON *o = cJSON_CreateObject(), *sim = NULL, *figs;
  lab_error err = {0};
  cJSON_AddStringToObject(o, "experiment", exp);
  if (!prof)
    ;
  else if (lab_simulate_with(lab_experiment_find(exp), cJSON_GetObjectItemCaseSensitive(env, "params"), prof, &sim, &err))
    cJSON_AddStringToObject(o, "note", err.message);
  else if (!gpu)
    cJSON_AddStringToObject(o, "note", "measured on the CPU; the prediction is the profile's GPU, so there is no ratio");
  figs = cJSON_AddArrayToObject(o, "figures");
  size_t h = 0;
  while (h < sizeof headlines / sizeof headlines[0] && strcmp(headlines[h].experiment, exp)) h++;
  for (int k = 0; h < sizeof headlines / sizeof headlines[0] && k < 7 && headlines[h].metrics[k]; k++)
    add_figure(figs, exp, headlines[h].metrics[k], env, sim, datasheet, gpu, implausible);
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(env, "metrics")) {
    int headline = 0;
    for (int k = 0; h < sizeof headlines / sizeof headlines[0] && k < 7 && headlines[h].metrics[k]; k++)
      headline |= !strcmp(headlines[h].metrics[k], m->string);
    if (!headline && lab_plausible_known(exp, m->string))
      add_figure(figs, exp, m->string, env, sim, datasheet, gpu, implausible);
  }
  if (sim && (flags & LAB_COMPARE_PREDICTIONS)) cJSON_AddItemToObject(o, "prediction", sim);
  else cJSON_Delete(sim);
  return o;
}

static void add_run(cJSON *rep, const cJSON *kit) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(kit, "provenance");
  const cJSON *dev = cJSON_GetObjectItemCaseSensitive(p, "device");
  cJSON *r = cJSON_AddObjectToObject(rep, "run");
  static const char *const keys[] = {"torch", "platform", "date", "kit_version", "cuda_runtime", "hip_runtime", "driver"};
  const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dev, "name"));
  cJSON_AddStringToObject(r, "device", name ? name : "?");
  cJSON_AddStringToObject(r, "kind", lab_kit_kind(kit));
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, keys[i]));
    if (v) cJSON_AddStringToObject(r, keys[i], v);
    else cJSON_AddNullToObject(r, keys[i]);
  }
}

/* The plan run (kit/measure.py --plan), each counter beside the plan's; absent when the file has none. */
static void add_plan(cJSON *rep, const cJSON *kit) {
  const cJSON *pr = cJSON_GetObjectItemCaseSensitive(kit, "plan_run");
  if (cJSON_IsObject(pr)) cJSON_AddItemToObject(rep, "plan", lab_kit_plan_report(pr));
}

int lab_compare(const cJSON *kit, const cJSON *claims, const char *profile, cJSON **report, lab_error *err) {
  return lab_compare_with(kit, claims, profile, 0, report, err);
}

int lab_compare_with(const cJSON *kit, const cJSON *claims, const char *profile, int flags, cJSON **report,
                     lab_error *err) {
  lab_profile fit;
  const lab_profile *datasheet = NULL;
  char how[600];
  *report = NULL;
  const lab_profile *prof = lab_compare_profile(kit, profile, &fit, &datasheet, how, sizeof how, err);
  if (!prof) return -1;
  int gpu = strcmp(lab_kit_kind(kit), "cpu") != 0, implausible = 0;
  cJSON *rep = cJSON_CreateObject();
  if (!rep) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  cJSON_AddNumberToObject(rep, "compare", 1);
  add_run(rep, kit);
  cJSON *pj = cJSON_AddObjectToObject(rep, "profile");
  cJSON_AddStringToObject(pj, "name", prof->name);
  cJSON_AddStringToObject(pj, "label", prof->label);
  cJSON_AddStringToObject(pj, "how", how);
  if (prof == &fit) cJSON_AddItemToObject(pj, "fitted", lab_profile_json(&fit));
  cJSON *exps = cJSON_AddArrayToObject(rep, "experiments");
  const cJSON *env;
  cJSON_ArrayForEach(env, cJSON_GetObjectItemCaseSensitive(kit, "results"))
    cJSON_AddItemToArray(exps, experiment_entry(env, prof, datasheet, gpu, flags, &implausible));
  static const char *const lists[] = {"skipped", "failed"};
  for (int i = 0; i < 2; i++) {
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(kit, lists[i]);
    cJSON_AddItemToObject(rep, lists[i], cJSON_IsArray(l) ? cJSON_Duplicate(l, 1) : cJSON_CreateArray());
  }
  const char *note = NULL;
  cJSON_AddItemToObject(rep, "claims", lab_compare_claims(kit, claims, &note));
  if (note) cJSON_AddStringToObject(rep, "claims_note", note);
  cJSON_AddNumberToObject(rep, "implausible", implausible);
  add_plan(rep, kit);
  *report = rep;
  return 0;
}

cJSON *lab_compare_summary(const cJSON *kit) {
  const lab_profile *datasheet = lab_compare_datasheet(kit);
  int gpu = strcmp(lab_kit_kind(kit), "cpu") != 0, implausible = 0;
  cJSON *rep = cJSON_CreateObject(), *exps;
  const cJSON *env;
  if (!rep) return NULL;
  add_run(rep, kit);
  if (datasheet) cJSON_AddStringToObject(rep, "profile", datasheet->name);
  else cJSON_AddNullToObject(rep, "profile");
  exps = cJSON_AddArrayToObject(rep, "experiments");
  cJSON_ArrayForEach(env, cJSON_GetObjectItemCaseSensitive(kit, "results"))
    cJSON_AddItemToArray(exps, experiment_entry(env, NULL, datasheet, gpu, 0, &implausible));
  cJSON_AddNumberToObject(rep, "implausible", implausible);
  add_plan(rep, kit);
  return rep;
}
