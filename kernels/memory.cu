/* memory on a real GPU: the portable walk (lab/experiments/memory.c) drives the caching
 * allocator, whose segments here are real cudaMalloc/cudaFree calls (each
 * segment is written once with cudaMemset, so the memory is really
 * touched). cudaMemGetInfo after every step shows what the driver sees.
 * The out-of-memory stays inside the learner's budget (at most 8 GiB) or
 * is a cudaMalloc the driver refuses outright, which takes nothing; never
 * managed memory. Free memory is compared before and after. */
#include <stdlib.h>

#include "common.cuh"
extern "C" {
#include "memory.h"
}

typedef struct gpu_ctx {
  cudaError_t sticky; /* a failure other than out-of-memory: the worker must restart */
  const char *what;
} gpu_ctx;

static int gpu_reserve(void *ctx, uint64_t bytes, uintptr_t *addr) {
  gpu_ctx *g = (gpu_ctx *)ctx;
  void *p = NULL;
  cudaError_t e = cudaMalloc(&p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError(); /* not sticky: clear it, report it as the lesson's OOM */
    return -1;
  }
  if (e == cudaSuccess) e = cudaMemset(p, 0, bytes);
  if (e != cudaSuccess) {
    if (!g->sticky) g->sticky = e, g->what = "cudaMalloc/cudaMemset of an allocator segment";
    if (p) cudaFree(p);
    return -1;
  }
  *addr = (uintptr_t)p;
  return 0;
}

static void gpu_release(void *ctx, uintptr_t addr, uint64_t bytes) {
  gpu_ctx *g = (gpu_ctx *)ctx;
  (void)bytes;
  cudaError_t e = cudaFree((void *)addr);
  if (e != cudaSuccess && !g->sticky) g->sticky = e, g->what = "cudaFree of an allocator segment";
}

static int gpu_info(void *ctx, uint64_t *free_bytes, uint64_t *total_bytes) {
  gpu_ctx *g = (gpu_ctx *)ctx;
  size_t f = 0, t = 0;
  /* Everything queued must have finished for the figure to be current. */
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaMemGetInfo(&f, &t);
  if (e != cudaSuccess && !g->sticky) g->sticky = e, g->what = "cudaMemGetInfo";
  *free_bytes = f;
  *total_bytes = t;
  return e == cudaSuccess ? 0 : -1;
}

KERN_ENTRY(memory) {
  gpu_ctx g = {cudaSuccess, NULL};
  lab_pool_device dev;
  dev.be.ctx = &g;
  dev.be.reserve = gpu_reserve;
  dev.be.release = gpu_release;
  dev.ctx = &g;
  dev.info = gpu_info;
  dev.check = NULL; /* the memory walk writes nothing it reads back */
  lab_pool *pool = (lab_pool *)malloc(sizeof *pool);
  lab_memory_measure *m = (lab_memory_measure *)malloc(sizeof *m);
  cudaDeviceProp prop;
  void *warm = NULL;
  int rc = -1;
  *out = NULL;
  if (!pool || !m) {
    lab_fail(err, LAB_E_NOMEM, NULL, NULL);
    goto cleanup;
  }
  TRY(cudaSetDevice(0));
  TRY(cudaGetDeviceProperties(&prop, 0));
  TRY(cudaFree(0)); /* create the context first: its memory is not the walk's */
  /* Warm-up: the first cudaMemset loads the driver's own kernels (lazy
   * module loading), which takes device memory for good; do it before the
   * "free before" reading so the walk is measured alone. */
  TRY(cudaMalloc(&warm, 2u << 20));
  TRY(cudaMemset(warm, 0, 2u << 20));
  TRY(cudaDeviceSynchronize());
  TRY(cudaFree(warm));
  warm = NULL;
  lab_memory_walk(p, pool, &dev, m); /* frees everything it took, on every path */
  if (g.sticky) {
    kern_cuda_fail(err, g.sticky, g.what, __FILE__, __LINE__);
    goto cleanup;
  }
  {
    /* The check against the model: what the driver sees added since the
     * start (device_used counts the CUDA context, about 0.5 GiB on an H100,
     * as nvidia-smi does) should be exactly the allocator's reserved bytes
     * (segments are whole 2 MiB pages); the difference, in bytes, is the
     * error reported. */
    double worst = 0, base = m->n_steps > 0 ? (double)m->steps[0].device_used - (double)m->steps[0].reserved : 0;
    for (int i = 0; i < m->n_steps; i++) {
      double d = (double)m->steps[i].device_used - base - (double)m->steps[i].reserved;
      if (d < 0) d = -d;
      if (d > worst) worst = d;
    }
    cJSON *env = lab_memory_envelope(p, m, "cuda", prop.name, NULL);
    if (!env) {
      lab_fail(err, LAB_E_NOMEM, NULL, NULL);
      goto cleanup;
    }
    /* Another process on a shared GPU can move the figure a little. */
    lab_env_validation(env, worst <= 4.0 * 1024 * 1024, worst);
    *out = env;
    rc = 0;
  }
cleanup:
  if (warm) cudaFree(warm);
  free(pool);
  free(m);
  return rc;
}
