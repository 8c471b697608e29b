/* The physical checks, one rule per figure: each names the limit the
 * device sets (its PCIe link's nominal one-way rate, its datasheet peak
 * for the format, the host cost of one launch from its profile, its
 * memory) or the run's own figure it cannot beat (a synchronized host
 * clock cannot read less than the GPU's events; a pipeline cannot finish
 * before its slowest stage), and the likely cause when a figure passes
 * it: the clock was read before the GPU had finished. */
#include "plausible.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host_link.h"
#include "platform.h"
#include "units.h"

typedef enum {
  LINK_H2D,       /* GB/s over the card's host link, host to device */
  LINK_D2H,       /* the same, device to host */
  PEAK_FP32,      /* TFLOPS against the datasheet peaks */
  PEAK_TF32,
  PEAK_BF16,
  PEAK_FP16,
  PEAK_FP32_GFLOPS,
  FLOOR_LAUNCH_US,      /* a kernel launched one by one costs at least a launch */
  FLOOR_LAUNCH_SYNC_MS, /* a launch, a tiny kernel and a synchronize */
  SYNC_VS_EVENTS,       /* a synchronized host clock against the GPU's events */
  STREAMS_BOUND,        /* a pipelined run against its slowest stage */
  MEMORY,               /* bytes against the device's memory */
} rule_kind;

static const struct {
  const char *experiment, *metric;
  rule_kind kind;
} rules[] = {
    {"transfer", "h2d_pinned_gbps", LINK_H2D},     {"transfer", "h2d_pageable_gbps", LINK_H2D},
    {"transfer", "small_copy_gbps", LINK_H2D},     {"transfer", "d2h_pinned_gbps", LINK_D2H},
    {"transfer", "d2h_pageable_gbps", LINK_D2H},   {"streams", "h2d_gbps", LINK_H2D},
    {"streams", "d2h_gbps", LINK_D2H},             {"timing", "tflops", PEAK_FP32},
    {"precision", "fp32_tflops", PEAK_FP32},       {"precision", "tf32_tflops", PEAK_TF32},
    {"precision", "bf16_tflops", PEAK_BF16},       {"precision", "fp16_tflops", PEAK_FP16},
    {"crossover", "gpu_kernel_gflops", PEAK_FP32_GFLOPS}, {"graphs", "eager_per_kernel_us", FLOOR_LAUNCH_US},
    {"crossover", "gpu_ms_smallest", FLOOR_LAUNCH_SYNC_MS}, {"timing", "host_sync_ms", SYNC_VS_EVENTS},
    {"streams", "total_ms", STREAMS_BOUND},        {"memory", "peak_reserved_bytes", MEMORY},
    {"allocator", "peak_reserved_bytes", MEMORY},
};
#define N_RULES (sizeof rules / sizeof rules[0])

static const char NO_SYNC[] = "likely cause: the clock was read before the GPU had finished (no synchronize, or an "
                              "event read before it completed)";

static double metric(const cJSON *env, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(env, "metrics"), key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The largest y of series `id` (a transfer curve), and its x; NAN when absent. */
static double series_max(const cJSON *env, const char *id, double *at) {
  const cJSON *s, *p;
  double best = NAN;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(env, "series")) {
    const char *sid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "id"));
    if (!sid || strcmp(sid, id)) continue;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(s, "points")) {
      double y = cJSON_GetArrayItem(p, 1)->valuedouble;
      if (!(y <= best)) best = y, *at = cJSON_GetArrayItem(p, 0)->valuedouble;
    }
  }
  return best;
}

int lab_plausible_known(const char *experiment, const char *metric_key) {
  for (size_t i = 0; i < N_RULES; i++)
    if (!strcmp(rules[i].experiment, experiment) && !strcmp(rules[i].metric, metric_key)) return 1;
  return 0;
}

static lab_plausible link_rule(const char *exp, const char *key, const cJSON *env, const lab_profile *prof, int d2h,
                               char *why, size_t n) {
  lab_profile eff;
  lab_host_link link;
  lab_host_link_apply(prof, 0, &eff, &link);
  double v = metric(env, key), at = 0, limit = link.nominal_gbps * LAB_PLAUSIBLE_SLACK;
  char id[40];
  snprintf(id, sizeof id, "%.*s", (int)(strlen(key) > 5 ? strlen(key) - 5 : 0), key); /* h2d_pinned_gbps -> h2d_pinned */
  double top = strcmp(exp, "transfer") == 0 ? series_max(env, id, &at) : NAN;
  if (v > limit || top > limit) {
    snprintf(why, n, "%.2f GB/s%s is more than the %s's PCIe Gen%d x%d link carries %s (%.2f GB/s nominal); %s",
             v > limit ? v : top, v > limit ? "" : " (at one size of the sweep)", prof->device_name, link.gen,
             link.lanes, d2h ? "device to host" : "host to device", link.nominal_gbps, NO_SYNC);
    return LAB_PLAUSIBLE_NO;
  }
  snprintf(why, n, "within the PCIe Gen%d x%d link's %.2f GB/s", link.gen, link.lanes, link.nominal_gbps);
  return LAB_PLAUSIBLE_YES;
}

static lab_plausible peak_rule(rule_kind k, const cJSON *env, const char *key, const lab_profile *prof, char *why,
                               size_t n) {
  /* A format without tensor cores runs on the FP32 units (emulated BF16, TF32 off), FP16 at most twice as fast. */
  double fp32 = prof->fp32_tflops, peak = k == PEAK_TF32   ? fmax(prof->tf32_tflops, fp32)
                                          : k == PEAK_BF16 ? fmax(prof->bf16_tflops, fp32)
                                          : k == PEAK_FP16 ? fmax(prof->fp16_tflops, 2 * fp32)
                                                           : fp32;
  double v = metric(env, key), scale = k == PEAK_FP32_GFLOPS ? 1e3 : 1;
  const char *fmt = k == PEAK_TF32 ? "TF32" : k == PEAK_BF16 ? "BF16" : k == PEAK_FP16 ? "FP16" : "FP32";
  if (v > peak * scale * LAB_PLAUSIBLE_SLACK) {
    snprintf(why, n, "%s %s is above the %s's %s peak of %s %s (datasheet); %s", LAB_PLAIN(v),
             scale > 1 ? "GFLOPS" : "TFLOPS", prof->device_name, fmt, LAB_PLAIN(peak * scale),
             scale > 1 ? "GFLOPS" : "TFLOPS", NO_SYNC);
    return LAB_PLAUSIBLE_NO;
  }
  snprintf(why, n, "below the %s peak of %s %s", fmt, LAB_PLAIN(peak * scale), scale > 1 ? "GFLOPS" : "TFLOPS");
  return LAB_PLAUSIBLE_YES;
}

lab_plausible lab_plausible_check(const char *experiment, const char *key, const cJSON *env, const lab_profile *prof,
                                  char *why, size_t n) {
  size_t i = 0;
  while (i < N_RULES && (strcmp(rules[i].experiment, experiment) || strcmp(rules[i].metric, key))) i++;
  double v = metric(env, key);
  if (i == N_RULES || !isfinite(v)) {
    snprintf(why, n, "%s", i == N_RULES ? "no physical limit to check it against" : "not in the run");
    return LAB_PLAUSIBLE_UNCHECKED;
  }
  rule_kind k = rules[i].kind;
  if (k == SYNC_VS_EVENTS) { /* needs no device figures: the run's own events */
    double ev = metric(env, "events_ms");
    if (isfinite(ev) && v * LAB_PLAUSIBLE_SLACK < 0.9 * ev) {
      snprintf(why, n, "the host clock \"after synchronize\" read %s, less than the GPU's own %s (events) for "
               "the same batch, which a synchronized clock cannot; %s", LAB_MS(v), LAB_MS(ev), NO_SYNC);
      return LAB_PLAUSIBLE_NO;
    }
    snprintf(why, n, "at least the GPU's own time (events)");
    return isfinite(ev) ? LAB_PLAUSIBLE_YES : LAB_PLAUSIBLE_UNCHECKED;
  }
  if (k == STREAMS_BOUND) {
    double bound = metric(env, "bound_ms");
    if (isfinite(bound) && v * LAB_PLAUSIBLE_SLACK < 0.9 * bound) {
      snprintf(why, n, "%s is less than the run's slowest stage alone (%s), which no overlap can beat; %s", LAB_MS(v),
               LAB_MS(bound), NO_SYNC);
      return LAB_PLAUSIBLE_NO;
    }
    snprintf(why, n, "not below its slowest stage");
    return isfinite(bound) ? LAB_PLAUSIBLE_YES : LAB_PLAUSIBLE_UNCHECKED;
  }
  if (!prof) {
    snprintf(why, n, "not checked: gpulab has no datasheet figures for this device");
    return LAB_PLAUSIBLE_UNCHECKED;
  }
  switch (k) {
  case LINK_H2D:
  case LINK_D2H:
    if (lab_platform_lacks(prof->platform) & LAB_NEED_HOST_LINK) { /* a copy within one memory: no link to pass */
      snprintf(why, n, "not checked: the %s has no host link (its GPU shares the CPU's memory)", prof->device_name);
      return LAB_PLAUSIBLE_UNCHECKED;
    }
    return link_rule(experiment, key, env, prof, k == LINK_D2H, why, n);
  case FLOOR_LAUNCH_US:
    if (v < 0.5 * prof->launch_us) {
      snprintf(why, n, "%s µs per kernel launched one by one is under half of one launch's host cost (%s µs); %s",
               LAB_PLAIN(v), LAB_PLAIN(prof->launch_us), NO_SYNC);
      return LAB_PLAUSIBLE_NO;
    }
    snprintf(why, n, "above the launch floor");
    return LAB_PLAUSIBLE_YES;
  case FLOOR_LAUNCH_SYNC_MS:
    if (v * 1e3 < 0.5 * (prof->launch_us + prof->sync_us)) {
      snprintf(why, n, "%s µs for a launch, a matmul and a synchronize is under half of a launch and a synchronize "
               "alone (%s µs); %s", LAB_PLAIN(v * 1e3), LAB_PLAIN(prof->launch_us + prof->sync_us), NO_SYNC);
      return LAB_PLAUSIBLE_NO;
    }
    snprintf(why, n, "above a launch and a synchronize");
    return LAB_PLAUSIBLE_YES;
  case MEMORY:
    if (v > prof->memory_bytes * 1.02) {
      snprintf(why, n, "%s GB reserved is more than the %s has (%s GB): not a run on this device", LAB_PLAIN(v / 1e9),
               prof->device_name, LAB_PLAIN((double)prof->memory_bytes / 1e9));
      return LAB_PLAUSIBLE_NO;
    }
    snprintf(why, n, "within the device's memory");
    return LAB_PLAUSIBLE_YES;
  default: return peak_rule(k, env, key, prof, why, n);
  }
}
