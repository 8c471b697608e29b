/* Device profiles: the figures the simulator models a GPU with. Built-in
 * profiles come from public specifications and published measurements;
 * a calibrated profile comes from a real run (gpulab calibrate). */
#ifndef LAB_PROFILES_H
#define LAB_PROFILES_H

#include <stdint.h>

#include "error.h"

typedef struct lab_profile {
  char name[32];         /* "h100-sxm" */
  char label[64];        /* "NVIDIA H100 SXM (80 GB HBM3)" */
  char device_name[96];  /* what cudaGetDeviceProperties would report */
  char source[160];      /* where the figures come from */
  int cc_major, cc_minor;
  int sm_count;
  uint64_t memory_bytes;          /* total device memory */
  uint64_t context_bytes;         /* memory a CUDA context takes */
  double mem_bw_gbps;             /* device memory copy bandwidth (read+write counted), 1e9 B/s */
  double h2d_pinned_gbps, d2h_pinned_gbps;
  double h2d_pageable_gbps, d2h_pageable_gbps;
  double copy_latency_us;         /* fixed cost of one cudaMemcpy */
  double launch_us;               /* host cost to enqueue one kernel */
  double kernel_min_us;           /* shortest kernel execution */
  double sync_us;                 /* cost of one synchronize */
  double fp32_tflops, tf32_tflops, bf16_tflops; /* dense peaks; 0 = unsupported */
  double gemm_efficiency;         /* share of peak a large sgemm reaches */
  double pin_gbps;                /* page-locking host memory, 1e9 B/s */
  double cold_start_ms;           /* first call: context + library load */
  int driver_cuda_version;        /* e.g. 13000 */
  char driver_version[24];
} lab_profile;

int lab_profile_count(void);
const lab_profile *lab_profile_at(int i);
/* NULL when unknown. */
const lab_profile *lab_profile_find(const char *name);
const lab_profile *lab_profile_default(void);
cJSON *lab_profile_json(const lab_profile *p);
/* Reads a profile (e.g. a calibrated one); every figure must be present and positive. */
int lab_profile_from_json(const cJSON *json, lab_profile *out, lab_error *err);
cJSON *lab_profiles_json(void);
/* Adds (or replaces) the one calibrated profile, found by its own name
 * beside the built-ins. Call at start-up, before threads read profiles. */
void lab_profile_set_calibrated(const lab_profile *p);

#endif
