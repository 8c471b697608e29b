/* Built-in device profiles. Figures are public specifications (peaks) or
 * published measurements (copies: nvbandwidth-style pinned transfers;
 * launch: empty-kernel enqueue cost); `gpulab calibrate` replaces them with
 * figures measured on the learner's own GPU. */
#include "profiles.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cjson_compat.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static const lab_profile builtin[] = {
    {.name = "t4", .label = "NVIDIA T4 (16 GB GDDR6, PCIe Gen3)", .device_name = "Tesla T4",
     .source = "NVIDIA T4 datasheet; PCIe Gen3 x16 copies as commonly measured",
     .cc_major = 7, .cc_minor = 5, .sm_count = 40, .memory_bytes = (uint64_t)(15.0 * GIB),
     .context_bytes = (uint64_t)(0.30 * GIB), .mem_bw_gbps = 240, .h2d_pinned_gbps = 12.3, .d2h_pinned_gbps = 13.1,
     .h2d_pageable_gbps = 5.5, .d2h_pageable_gbps = 4.8, .copy_latency_us = 9, .launch_us = 4.5,
     .kernel_min_us = 3, .sync_us = 12, .fp32_tflops = 8.1, .tf32_tflops = 0, .bf16_tflops = 0,
     .gemm_efficiency = 0.55, .pin_gbps = 1.5, .cold_start_ms = 350, .driver_cuda_version = 13000,
     .driver_version = "580.65"},
    {.name = "a100-sxm", .label = "NVIDIA A100 SXM (80 GB HBM2e, PCIe Gen4)", .device_name = "NVIDIA A100-SXM4-80GB",
     .source = "NVIDIA A100 datasheet; PCIe Gen4 x16 copies as commonly measured",
     .cc_major = 8, .cc_minor = 0, .sm_count = 108, .memory_bytes = (uint64_t)(79.2 * GIB),
     .context_bytes = (uint64_t)(0.40 * GIB), .mem_bw_gbps = 1700, .h2d_pinned_gbps = 24.5, .d2h_pinned_gbps = 25.5,
     .h2d_pageable_gbps = 9.5, .d2h_pageable_gbps = 8.0, .copy_latency_us = 7, .launch_us = 3.0,
     .kernel_min_us = 2.5, .sync_us = 8, .fp32_tflops = 19.5, .tf32_tflops = 156, .bf16_tflops = 312,
     .gemm_efficiency = 0.85, .pin_gbps = 2.0, .cold_start_ms = 300, .driver_cuda_version = 13000,
     .driver_version = "580.65"},
    {.name = "h100-sxm", .label = "NVIDIA H100 SXM (80 GB HBM3, PCIe Gen5)", .device_name = "NVIDIA H100 80GB HBM3",
     .source = "NVIDIA H100 datasheet; nvbandwidth pinned copies (~51/52 GB/s)",
     .cc_major = 9, .cc_minor = 0, .sm_count = 132, .memory_bytes = (uint64_t)(79.1 * GIB),
     .context_bytes = (uint64_t)(0.50 * GIB), .mem_bw_gbps = 2900, .h2d_pinned_gbps = 51, .d2h_pinned_gbps = 52,
     .h2d_pageable_gbps = 14, .d2h_pageable_gbps = 11, .copy_latency_us = 6, .launch_us = 2.6,
     .kernel_min_us = 2, .sync_us = 6, .fp32_tflops = 67, .tf32_tflops = 495, .bf16_tflops = 989,
     .gemm_efficiency = 0.75, .pin_gbps = 2.0, .cold_start_ms = 280, .driver_cuda_version = 13000,
     .driver_version = "580.65"},
    {.name = "rtx-4090", .label = "NVIDIA GeForce RTX 4090 (24 GB GDDR6X, PCIe Gen4)",
     .device_name = "NVIDIA GeForce RTX 4090", .source = "NVIDIA Ada datasheet; PCIe Gen4 x16 copies as commonly measured",
     .cc_major = 8, .cc_minor = 9, .sm_count = 128, .memory_bytes = (uint64_t)(23.6 * GIB),
     .context_bytes = (uint64_t)(0.30 * GIB), .mem_bw_gbps = 920, .h2d_pinned_gbps = 24.0, .d2h_pinned_gbps = 25.0,
     .h2d_pageable_gbps = 11, .d2h_pageable_gbps = 9, .copy_latency_us = 6, .launch_us = 2.5,
     .kernel_min_us = 2, .sync_us = 6, .fp32_tflops = 82.6, .tf32_tflops = 82.6, .bf16_tflops = 165,
     .gemm_efficiency = 0.7, .pin_gbps = 2.5, .cold_start_ms = 250, .driver_cuda_version = 13000,
     .driver_version = "580.65"},
};

#define N_BUILTIN ((int)(sizeof builtin / sizeof builtin[0]))

static lab_profile calibrated;
static int have_calibrated;

void lab_profile_set_calibrated(const lab_profile *p) {
  calibrated = *p;
  have_calibrated = 1;
}

int lab_profile_count(void) { return N_BUILTIN + have_calibrated; }

const lab_profile *lab_profile_at(int i) {
  if (i >= 0 && i < N_BUILTIN) return &builtin[i];
  return i == N_BUILTIN && have_calibrated ? &calibrated : NULL;
}

const lab_profile *lab_profile_find(const char *name) {
  for (int i = 0; name && i < lab_profile_count(); i++)
    if (strcmp(lab_profile_at(i)->name, name) == 0) return lab_profile_at(i);
  return NULL;
}

const lab_profile *lab_profile_default(void) { return lab_profile_find("h100-sxm"); }

/* X(field) for every double figure, so JSON in and out cannot drift apart. */
#define LAB_PROFILE_FIGURES(X)                                                                               \
  X(mem_bw_gbps) X(h2d_pinned_gbps) X(d2h_pinned_gbps) X(h2d_pageable_gbps) X(d2h_pageable_gbps)           \
  X(copy_latency_us) X(launch_us) X(kernel_min_us) X(sync_us) X(fp32_tflops) X(gemm_efficiency) X(pin_gbps) \
  X(cold_start_ms)

cJSON *lab_profile_json(const lab_profile *p) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", p->name);
  cJSON_AddStringToObject(o, "label", p->label);
  cJSON_AddStringToObject(o, "device_name", p->device_name);
  cJSON_AddStringToObject(o, "source", p->source);
  char cc[16];
  snprintf(cc, sizeof cc, "%d.%d", p->cc_major, p->cc_minor);
  cJSON_AddStringToObject(o, "compute_capability", cc);
  cJSON_AddNumberToObject(o, "sm_count", p->sm_count);
  cJSON_AddNumberToObject(o, "memory_bytes", (double)p->memory_bytes);
  cJSON_AddNumberToObject(o, "context_bytes", (double)p->context_bytes);
#define LAB_X_OUT(f) cJSON_AddNumberToObject(o, #f, p->f);
  LAB_PROFILE_FIGURES(LAB_X_OUT)
#undef LAB_X_OUT
  cJSON_AddNumberToObject(o, "tf32_tflops", p->tf32_tflops);
  cJSON_AddNumberToObject(o, "bf16_tflops", p->bf16_tflops);
  cJSON_AddNumberToObject(o, "driver_cuda_version", p->driver_cuda_version);
  cJSON_AddStringToObject(o, "driver_version", p->driver_version);
  return o;
}

static int num(const cJSON *json, const char *key, double *out, int positive, lab_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, key);
  if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 || (positive && v->valuedouble <= 0))
    return lab_fail(err, LAB_E_INVALID_PARAM, key, "profile field '%s' must be a %s number", key,
                    positive ? "positive" : "non-negative");
  *out = v->valuedouble;
  return 0;
}

static int str(const cJSON *json, const char *key, char *out, size_t n, lab_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, key);
  if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= n)
    return lab_fail(err, LAB_E_INVALID_PARAM, key, "profile field '%s' must be a string of 1 to %zu characters", key,
                    n - 1);
  snprintf(out, n, "%s", v->valuestring);
  return 0;
}

int lab_profile_from_json(const cJSON *json, lab_profile *out, lab_error *err) {
  lab_profile p;
  memset(&p, 0, sizeof p);
  if (!cJSON_IsObject(json)) return lab_fail(err, LAB_E_INVALID_PARAM, "profile", "a profile must be a JSON object");
  double sm = 0, mem = 0, ctx = 0, drv = 0, tf32 = 0, bf16 = 0;
  if (str(json, "name", p.name, sizeof p.name, err) || str(json, "label", p.label, sizeof p.label, err) ||
      str(json, "device_name", p.device_name, sizeof p.device_name, err) ||
      num(json, "sm_count", &sm, 1, err) || num(json, "memory_bytes", &mem, 1, err) ||
      num(json, "context_bytes", &ctx, 0, err) || num(json, "tf32_tflops", &tf32, 0, err) ||
      num(json, "bf16_tflops", &bf16, 0, err))
    return -1;
#define LAB_X_IN(f) \
  if (num(json, #f, &p.f, 1, err)) return -1;
  LAB_PROFILE_FIGURES(LAB_X_IN)
#undef LAB_X_IN
  const cJSON *src = cJSON_GetObjectItemCaseSensitive(json, "source");
  snprintf(p.source, sizeof p.source, "%s", cJSON_IsString(src) ? src->valuestring : "calibrated");
  const cJSON *cc = cJSON_GetObjectItemCaseSensitive(json, "compute_capability");
  if (cJSON_IsString(cc) && sscanf(cc->valuestring, "%d.%d", &p.cc_major, &p.cc_minor) != 2)
    return lab_fail(err, LAB_E_INVALID_PARAM, "compute_capability", "compute_capability must look like \"9.0\"");
  const cJSON *dv = cJSON_GetObjectItemCaseSensitive(json, "driver_version");
  snprintf(p.driver_version, sizeof p.driver_version, "%s", cJSON_IsString(dv) ? dv->valuestring : "");
  if (!num(json, "driver_cuda_version", &drv, 0, NULL)) p.driver_cuda_version = (int)drv;
  if (sm > 100000 || mem > 1e15) return lab_fail(err, LAB_E_INVALID_PARAM, "profile", "profile figures are out of range");
  p.sm_count = (int)sm;
  p.memory_bytes = (uint64_t)mem;
  p.context_bytes = (uint64_t)ctx;
  p.tf32_tflops = tf32;
  p.bf16_tflops = bf16;
  *out = p;
  return 0;
}

cJSON *lab_profiles_json(void) {
  cJSON *arr = cJSON_CreateArray();
  for (int i = 0; i < lab_profile_count(); i++) cJSON_AddItemToArray(arr, lab_profile_json(lab_profile_at(i)));
  return arr;
}
