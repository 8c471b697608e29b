/* allocator on a real GPU. (1) The host clock (after a synchronize, device
 * idle) around each cudaMalloc and each cudaFree of one block, then cudaFree
 * with a 500 µs spin kernel still queued (cudaFree waits for the device),
 * then batches of allocate + free pairs served by the caching allocator
 * from a warm segment, divided by the batch. (2)-(4) the portable walk
 * (lab/experiments/allocator.c) with segments from cudaMalloc (each touched with
 * cudaMemset) and cudaMemGetInfo after every event. Validation: random
 * normal values written into a weight tensor before the steps are read back
 * after empty_cache() and must be unchanged (max_abs_err 0). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.cuh"
extern "C" {
#include "allocator.h"
}

typedef struct gpu_ctx {
  cudaError_t sticky; /* a failure other than out-of-memory */
  const char *what;
  float *host;        /* the values written for the check */
} gpu_ctx;

static void note(gpu_ctx *g, cudaError_t e, const char *what) {
  if (e != cudaSuccess && !g->sticky) g->sticky = e, g->what = what;
}

static int gpu_reserve(void *ctx, uint64_t bytes, uintptr_t *addr) {
  gpu_ctx *g = (gpu_ctx *)ctx;
  void *p = NULL;
  cudaError_t e = cudaMalloc(&p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError(); /* not sticky: the walk reports it as an out-of-memory */
    return -1;
  }
  if (e == cudaSuccess) e = cudaMemset(p, 0, bytes); /* really touch the pages */
  if (e != cudaSuccess) {
    note(g, e, "cudaMalloc/cudaMemset of an allocator segment");
    if (p) cudaFree(p);
    return -1;
  }
  *addr = (uintptr_t)p;
  return 0;
}

static void gpu_release(void *ctx, uintptr_t addr, uint64_t bytes) {
  (void)bytes;
  note((gpu_ctx *)ctx, cudaFree((void *)addr), "cudaFree of an allocator segment");
}

static int gpu_info(void *ctx, uint64_t *free_bytes, uint64_t *total_bytes) {
  gpu_ctx *g = (gpu_ctx *)ctx;
  size_t f = 0, t = 0;
  cudaError_t e = cudaDeviceSynchronize(); /* the figure is current only once queued work is done */
  if (e == cudaSuccess) e = cudaMemGetInfo(&f, &t);
  note(g, e, "cudaMemGetInfo");
  *free_bytes = f;
  *total_bytes = t;
  return e == cudaSuccess ? 0 : -1;
}

/* verify 0: writes normal values into the block; 1: reads them back. */
static int gpu_check(void *ctx, uintptr_t addr, uint64_t bytes, int verify, double *max_abs_err) {
  gpu_ctx *g = (gpu_ctx *)ctx;
  size_t n = (size_t)(bytes / sizeof(float));
  cudaError_t e;
  if (!verify) {
    free(g->host);
    g->host = (float *)malloc(n * sizeof(float));
    if (!g->host) return -1;
    kern_fill_normal_host(g->host, n, 0xa11c);
    e = cudaMemcpy((void *)addr, g->host, n * sizeof(float), cudaMemcpyHostToDevice);
    note(g, e, "cudaMemcpy of the checked weights");
    *max_abs_err = 0;
    return e == cudaSuccess ? 0 : -1;
  }
  float *back = (float *)malloc(n * sizeof(float));
  if (!back || !g->host) {
    free(back);
    return -1;
  }
  e = cudaMemcpy(back, (void *)addr, n * sizeof(float), cudaMemcpyDeviceToHost);
  note(g, e, "cudaMemcpy of the checked weights back");
  double worst = 0;
  for (size_t i = 0; e == cudaSuccess && i < n; i++) {
    double d = fabs((double)back[i] - (double)g->host[i]);
    if (!(d <= worst)) worst = d; /* NaN sticks */
  }
  free(back);
  *max_abs_err = worst;
  return e == cudaSuccess ? 0 : -1;
}

/* (1): per-call costs on an idle device, then cudaFree behind a busy kernel. */
static int time_driver(lab_allocator_measure *m, cudaStream_t s, lab_error *err) {
  void *p = NULL;
  for (int i = 0; i < m->warmup + m->cycles; i++) {
    TRY(cudaDeviceSynchronize());
    double t0 = kern_now_us();
    TRY(cudaMalloc(&p, m->timing_bytes));
    double t1 = kern_now_us();
    TRY(cudaFree(p));
    p = NULL;
    double t2 = kern_now_us();
    if (i >= m->warmup) {
      m->malloc_us[i - m->warmup] = t1 - t0;
      m->free_us[i - m->warmup] = t2 - t1;
    }
  }
  for (int i = 0; i < m->busy_samples; i++) {
    TRY(cudaMalloc(&p, m->timing_bytes));
    TRY(cudaDeviceSynchronize());
    TRY(kern_spin(LAB_ALLOC_BUSY_US, s));
    double t0 = kern_now_us();
    TRY(cudaFree(p));
    p = NULL;
    m->free_busy_us[i] = kern_now_us() - t0;
  }
  return 0;
cleanup:
  if (p) cudaFree(p);
  return -1;
}

/* (1): cache hits: a warm pool serves the same block again and again. */
static int time_cache(lab_allocator_measure *m, const lab_pool_backend *be, lab_error *err) {
  lab_pool *pool = (lab_pool *)malloc(sizeof *pool);
  int id = -1, rc = -1;
  uintptr_t addr = 0;
  if (!pool) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  lab_pool_init(pool, *be, 0);
  if (lab_pool_alloc(pool, m->timing_bytes, &id, &addr) != 0) {
    lab_fail(err, LAB_E_GPU_OOM, "block_mib", "no room for one %.0f MiB block; use a smaller block_mib",
             (double)m->timing_bytes / 1048576.0);
    goto cleanup;
  }
  lab_pool_free(pool, id);
  for (int i = 0; i < m->warmup + m->cycles; i++) {
    double t0 = kern_now_us();
    for (int k = 0; k < LAB_ALLOC_CACHE_BATCH; k++) {
      lab_pool_alloc(pool, m->timing_bytes, &id, &addr);
      lab_pool_free(pool, id);
    }
    double us = (kern_now_us() - t0) / LAB_ALLOC_CACHE_BATCH;
    if (i >= m->warmup) m->cache_us[i - m->warmup] = us;
  }
  /* Every hit must have come from the cache: one segment, reserved once. */
  if (pool->reserve_calls != 1) {
    lab_fail(err, LAB_E_CUDA, NULL, "the cache reserved %d segments for one block", pool->reserve_calls);
    goto cleanup;
  }
  rc = 0;
cleanup:
  lab_pool_release_all(pool);
  free(pool);
  return rc;
}

KERN_ENTRY(allocator) {
  const lab_params_allocator tp = lab_params_allocator_of(p);
  gpu_ctx g = {cudaSuccess, NULL, NULL};
  lab_pool_device dev;
  lab_allocator_measure *m = NULL;
  cudaDeviceProp prop;
  cudaStream_t s = NULL;
  int rc = -1;
  *out = NULL;
  m = (lab_allocator_measure *)calloc(1, sizeof *m);
  if (!m) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  m->timing_bytes = (uint64_t)tp.block_mib << 20;
  m->cycles = (int)tp.cycles;
  m->warmup = LAB_ALLOC_WARMUP;
  m->busy_samples = LAB_ALLOC_BUSY_SAMPLES;
  dev.be.ctx = &g;
  dev.be.reserve = gpu_reserve;
  dev.be.release = gpu_release;
  dev.ctx = &g;
  dev.info = gpu_info;
  dev.check = gpu_check;

  TRY(cudaSetDevice(0));
  TRY(cudaGetDeviceProperties(&prop, 0));
  TRY(cudaFree(0)); /* the context first: its memory is not the walk's */
  TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  TRY(kern_spin(10, s)); /* loads the spin kernel's module before anything is measured */
  TRY(cudaStreamSynchronize(s));
  if (time_driver(m, s, err)) goto cleanup;
  if (time_cache(m, &dev.be, err)) {
    if (g.sticky) kern_cuda_fail(err, g.sticky, g.what, __FILE__, __LINE__);
    goto cleanup;
  }
  lab_allocator_summarize(m);
  if (lab_allocator_walk(p, &dev, m, err)) goto cleanup;
  if (g.sticky) {
    kern_cuda_fail(err, g.sticky, g.what, __FILE__, __LINE__);
    goto cleanup;
  }
  if (m->oom) {
    lab_fail(err, LAB_E_GPU_OOM, NULL, "the GPU ran out of memory at %s asking for %.1f MiB; everything was freed",
             m->oom_where, (double)m->oom_request / 1048576.0);
    goto cleanup;
  }
  *out = lab_allocator_envelope(p, m, "cuda", prop.name, NULL);
  rc = *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
cleanup:
  if (s) cudaStreamDestroy(s);
  free(g.host);
  free(m);
  return rc;
}
