/* The runtime half of the device check: what a CUDA program can use.
 * cudaGetDeviceCount first (it reports a missing or too-old driver without
 * creating a context), then properties and free memory per device. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "kern.h"

static lab_rt_status status_of(cudaError_t e) {
  if (e == cudaSuccess) return LAB_RT_OK;
  if (e == cudaErrorInsufficientDriver) return LAB_RT_INSUFFICIENT_DRIVER;
  if (e == cudaErrorNoDevice) return LAB_RT_NO_DEVICE;
  return LAB_RT_ERROR;
}

static void record_error(lab_runtime_view *rt, cudaError_t e) {
  rt->status = status_of(e);
  snprintf(rt->error_name, sizeof rt->error_name, "%s", cudaGetErrorName(e));
  snprintf(rt->error_message, sizeof rt->error_message, "%s", cudaGetErrorString(e));
}

/* The architectures this file was compiled for: nvcc defines
 * __CUDA_ARCH_LIST__ (e.g. 750,800,900) from the -gencode options. The
 * newest one is also shipped as PTX (see CUDA_ARCH in the Makefile). */
static void built_archs(lab_runtime_view *rt) {
#ifdef __CUDA_ARCH_LIST__
  static const int list[] = {__CUDA_ARCH_LIST__};
  rt->n_archs = 0;
  for (size_t i = 0; i < sizeof list / sizeof list[0] && rt->n_archs < (int)(sizeof rt->archs / sizeof rt->archs[0]); i++)
    rt->archs[rt->n_archs++] = list[i] / 10;
  rt->ptx_arch = rt->n_archs ? rt->archs[rt->n_archs - 1] : 0;
#else
  (void)rt;
#endif
}

extern "C" void kern_runtime_view(lab_runtime_view *rt) {
  memset(rt, 0, sizeof *rt);
  cudaRuntimeGetVersion(&rt->runtime_version);
  cudaDriverGetVersion(&rt->driver_api_version); /* 0 when no driver is installed */
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    record_error(rt, e);
    cudaGetLastError();
    return;
  }
  rt->status = count > 0 ? LAB_RT_OK : LAB_RT_NO_DEVICE;
  for (int i = 0; i < count && rt->device_count < LAB_MAX_GPUS; i++) {
    cudaDeviceProp prop;
    if ((e = cudaGetDeviceProperties(&prop, i)) != cudaSuccess) {
      record_error(rt, e);
      return;
    }
    lab_gpu_info *g = &rt->dev[rt->device_count++];
    snprintf(g->name, sizeof g->name, "%.95s", prop.name);
    g->cc_major = prop.major;
    g->cc_minor = prop.minor;
    g->sm_count = prop.multiProcessorCount;
    snprintf(g->bus_id, sizeof g->bus_id, "%08x:%02x:%02x.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
    g->mem_total_bytes = prop.totalGlobalMem;
    /* Free memory only for the device the worker runs on (0, after
     * CUDA_VISIBLE_DEVICES): cudaMemGetInfo needs a context, and a context on
     * every GPU would hold hundreds of MB on each. The driver view (NVML or
     * nvidia-smi) reports the others. */
    size_t free_b = 0, total_b = 0;
    if (i == 0) {
      if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
        g->mem_free_bytes = free_b;
        g->mem_total_bytes = total_b;
        g->mem_free_known = true;
      } else {
        cudaGetLastError();
      }
    }
  }
  built_archs(rt);
}

extern "C" void kern_shutdown(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) cudaDeviceReset();
  cudaGetLastError();
}
