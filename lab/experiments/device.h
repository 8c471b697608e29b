/* The first check of lesson 1: what the driver sees (NVML / nvidia-smi) vs
 * what the CUDA runtime can use (cudart), and a verdict that explains a
 * mismatch in beginner words. Probes fill these plain structs; this file
 * judges them, turns them into JSON and simulates them from a profile. */
#ifndef LAB_DEVICE_H
#define LAB_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "params.h"
#include "profiles.h"

#define LAB_MAX_GPUS 8

typedef struct lab_gpu_info {
  char name[96];
  int cc_major, cc_minor; /* 0.0 when the source does not say (NVML) */
  int sm_count;           /* 0 when unknown */
  uint64_t mem_total_bytes, mem_free_bytes;
  bool mem_free_known; /* false when free memory was not read (a device the worker holds no context on) */
  char bus_id[32];
} lab_gpu_info;

typedef enum lab_driver_source { LAB_DRV_NONE, LAB_DRV_NVML, LAB_DRV_SMI, LAB_DRV_SIMULATED } lab_driver_source;

typedef struct lab_driver_view {
  lab_driver_source source;
  bool present;            /* a driver answered */
  char driver_version[32]; /* "580.65.06" */
  int cuda_version;        /* newest CUDA the driver supports, 1000*major + 10*minor; 0 unknown */
  int device_count;
  lab_gpu_info dev[LAB_MAX_GPUS];
  char error[200]; /* why the driver could not be asked */
  bool none_installed; /* no NVML library, no nvidia-smi, no /dev/nvidia* (or WSL's /dev/dxg): no NVIDIA driver here */
} lab_driver_view;

typedef enum lab_rt_status {
  LAB_RT_OK,
  LAB_RT_NOT_BUILT,           /* this binary has no CUDA runtime */
  LAB_RT_INSUFFICIENT_DRIVER, /* driver missing or older than the runtime */
  LAB_RT_NO_DEVICE,
  LAB_RT_ERROR,
} lab_rt_status;

typedef struct lab_runtime_view {
  lab_rt_status status;
  char error_name[48];    /* cudaErrorInsufficientDriver */
  char error_message[200];
  int runtime_version;    /* cudaRuntimeGetVersion, 1000*major + 10*minor */
  int driver_api_version; /* cudaDriverGetVersion: 0 when no driver is installed */
  int device_count;
  lab_gpu_info dev[LAB_MAX_GPUS];
  /* The architectures the worker's kernels were compiled for, as
   * 10 * major + minor (75 = sm_75), lowest first; ptx_arch is the newest
   * one also shipped as PTX, which newer GPUs compile at load. 0: unknown. */
  int n_archs;
  int archs[8];
  int ptx_arch;
} lab_runtime_view;

typedef enum lab_verdict_code {
  LAB_V_USABLE,
  LAB_V_NOT_BUILT,
  LAB_V_NO_DRIVER,
  LAB_V_DRIVER_TOO_OLD,
  LAB_V_NO_DEVICE,
  LAB_V_RUNTIME_ERROR,
  LAB_V_ARCH_UNSUPPORTED, /* the GPU is older than every architecture the kernels were built for */
} lab_verdict_code;

typedef struct lab_verdict {
  lab_verdict_code code;
  bool usable;
  char summary[160];     /* "no usable GPU: the CUDA driver is missing" */
  char explanation[600]; /* why, in beginner words */
  char advice[300];      /* what to do */
} lab_verdict;

void lab_device_verdict(const lab_driver_view *drv, const lab_runtime_view *rt, lab_verdict *out);
const char *lab_verdict_code_name(lab_verdict_code c); /* "no_driver" */

/* {"driver":{…},"runtime":{…},"verdict":{…},"devices":[…]} */
cJSON *lab_device_json(const lab_driver_view *drv, const lab_runtime_view *rt);
cJSON *lab_runtime_view_json(const lab_runtime_view *rt);
int lab_runtime_view_from_json(const cJSON *json, lab_runtime_view *rt, lab_error *err);
/* "13.0" from 13000 (buf of 16 bytes). */
const char *lab_cuda_version_text(int v, char buf[16]);

/* The runtime view of a gpulab built without CUDA. */
void lab_runtime_view_not_built(lab_runtime_view *rt);
/* What the CUDA runtime of version runtime_version (1000*major + 10*minor)
 * answers on a machine with no NVIDIA driver: it cannot load libcuda.so.1,
 * so cudaGetDeviceCount fails with cudaErrorInsufficientDriver. */
void lab_runtime_view_without_driver(lab_runtime_view *rt, int runtime_version);

/* The same views as a machine with this GPU would show them. */
void lab_device_simulate_views(const lab_profile *prof, lab_driver_view *drv, lab_runtime_view *rt);

/* The experiment's envelope from both views (backend "cuda" or "simulated"). */
cJSON *lab_device_envelope(const lab_params *p, const lab_driver_view *drv, const lab_runtime_view *rt,
                           const char *backend, const lab_profile *prof);

/* Its parameters, X(name, kind, min, max, default, unit, help, choices): lab/face/params.h
 * generates the spec table and the typed struct lab_params_device from this list. */
#define LAB_PARAMS_device(X) \
  X(index, INT, 0, LAB_MAX_GPUS - 1, 0, NULL, \
    "Which GPU to describe in the findings (0 is the first).", NULL)

LAB_PARAMS_STRUCT(device)

#endif
