/* timing on a real GPU: a cuBLAS sgemm (N×N, fp32, random normal inputs)
 * launched K times per batch. Per batch the host clock is read before the
 * first launch, after the last launch and after cudaStreamSynchronize,
 * while CUDA events bracket the same batch on the stream. The cold run is
 * cublasCreate + the first batch; two warm-ups follow; then the samples;
 * then one extra batch with an event after each sgemm for the timeline.
 * Validation: sampled entries of C against a double-precision CPU dot. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.cuh"
extern "C" {
#include "matmul_cpu.h"
#include "timing.h"
}

#define CHECK_ENTRIES 64

/* Row-major C = A·B with column-major cuBLAS: computing B·A in column-major
 * terms yields (A·B)ᵀ in column-major, which is A·B in row-major. */
static cublasStatus_t sgemm(cublasHandle_t h, int n, const float *a, const float *b, float *c) {
  const float one = 1.0f, zero = 0.0f;
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n);
}

/* One timed batch: K launches between two events, host clock around it. */
static int batch(cublasHandle_t h, cudaStream_t s, kern_timer *t, int n, int k, const float *a, const float *b,
                 float *c, double *nosync_ms, double *sync_ms, double *ev_ms, lab_error *err) {
  double t0 = kern_now_us(), t1 = 0;
  TRY(kern_timer_start(t, s));
  for (int i = 0; i < k; i++) TRY_BLAS(sgemm(h, n, a, b, c));
  TRY(cudaEventRecord(t->stop, s));
  t1 = kern_now_us();
  TRY(cudaStreamSynchronize(s));
  *sync_ms = (kern_now_us() - t0) / 1e3;
  *nosync_ms = (t1 - t0) / 1e3;
  {
    float ms = 0;
    TRY(cudaEventElapsedTime(&ms, t->start, t->stop));
    *ev_ms = ms;
  }
  return 0;
cleanup:
  return -1;
}

/* The timeline batch: an event after every sgemm places each one on the GPU
 * lane; the GPU clock is aligned to the host clock at the first event (the
 * GPU is idle then, so that event completes as soon as it is recorded). */
static int timeline_batch(cublasHandle_t h, cudaStream_t s, int n, int k, const float *a, const float *b, float *c,
                          lab_timing_measure *m, lab_error *err) {
  cudaEvent_t ev[LAB_TIMING_MAX_LAUNCHES + 1];
  int made = 0, rc = -1, draw = k < LAB_TIMING_MAX_LAUNCHES ? k : LAB_TIMING_MAX_LAUNCHES;
  double t0 = 0, origin = 0;
  for (; made <= draw; made++) TRY(cudaEventCreate(&ev[made]));
  t0 = kern_now_us();
  TRY(cudaEventRecord(ev[0], s));
  origin = kern_now_us() - t0;
  for (int i = 0; i < k; i++) {
    double ls = kern_now_us() - t0;
    TRY_BLAS(sgemm(h, n, a, b, c));
    if (i < draw) {
      TRY(cudaEventRecord(ev[i + 1], s));
      m->launch_start_us[i] = ls;
      m->launch_end_us[i] = kern_now_us() - t0;
    }
  }
  m->sync_start_us = kern_now_us() - t0;
  TRY(cudaStreamSynchronize(s));
  m->sync_end_us = kern_now_us() - t0;
  for (int i = 0; i < draw; i++) {
    float s0 = 0, s1 = 0;
    TRY(cudaEventElapsedTime(&s0, ev[0], ev[i]));
    TRY(cudaEventElapsedTime(&s1, ev[0], ev[i + 1]));
    m->gpu_start_us[i] = origin + s0 * 1e3;
    m->gpu_end_us[i] = origin + s1 * 1e3;
  }
  m->n_launches = draw;
  rc = 0;
cleanup:
  for (int i = 0; i < made; i++) cudaEventDestroy(ev[i]);
  return rc;
}

/* Compares CHECK_ENTRIES spread-out entries of C with CPU dot products. */
static int validate(const float *da, const float *db, const float *dc, int n, lab_timing_measure *m, lab_error *err) {
  size_t bytes = (size_t)n * n * sizeof(float);
  float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
  int rc = -1;
  if (!a || !b || !c) {
    lab_fail(err, LAB_E_NOMEM, "size", "not enough host memory to check a %d x %d result", n, n);
    goto cleanup;
  }
  TRY(cudaMemcpy(a, da, bytes, cudaMemcpyDeviceToHost));
  TRY(cudaMemcpy(b, db, bytes, cudaMemcpyDeviceToHost));
  TRY(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
  {
    lab_rng r;
    lab_rng_seed(&r, 0xc4ec);
    m->max_abs_err = 0;
    for (int e = 0; e < CHECK_ENTRIES; e++) {
      int i = (int)(lab_rng_uniform(&r) * n), j = (int)(lab_rng_uniform(&r) * n);
      double d = fabs(lab_matmul_entry(a, b, n, i, j) - (double)c[(size_t)i * n + j]);
      if (!(d <= m->max_abs_err)) m->max_abs_err = d; /* NaN sticks */
    }
    m->validated = m->max_abs_err <= lab_matmul_tolerance(n);
  }
  rc = 0;
cleanup:
  free(a);
  free(b);
  free(c);
  return rc;
}

extern "C" int kern_run_timing(const lab_params *p, cJSON **out, lab_error *err) {
  lab_timing_measure m;
  cudaDeviceProp prop;
  cudaStream_t s = NULL;
  cublasHandle_t h = NULL;
  kern_timer t = {NULL, NULL};
  float *a = NULL, *b = NULL, *c = NULL;
  int rc = -1, n = 0, k = 0;
  size_t elems = 0;
  double t0 = 0, x = 0, y = 0, z = 0;
  *out = NULL;
  memset(&m, 0, sizeof m);
  m.size = n = (int)lab_param_int(p, "size");
  m.repeats = k = (int)lab_param_int(p, "repeats");
  m.samples = (int)lab_param_int(p, "samples");
  m.warmup = LAB_TIMING_WARMUP;
  elems = (size_t)n * n;

  TRY(cudaSetDevice(0));
  TRY(cudaGetDeviceProperties(&prop, 0));
  TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  TRY(kern_timer_create(&t));
  TRY(cudaMalloc((void **)&a, elems * sizeof(float)));
  TRY(cudaMalloc((void **)&b, elems * sizeof(float)));
  TRY(cudaMalloc((void **)&c, elems * sizeof(float)));
  TRY(kern_fill_normal_device(a, elems, 11, s));
  TRY(kern_fill_normal_device(b, elems, 12, s));
  TRY(cudaStreamSynchronize(s));

  /* Cold: creating the handle and the first use load cuBLAS's kernels. */
  t0 = kern_now_us();
  TRY_BLAS(cublasCreate(&h));
  TRY_BLAS(cublasSetStream(h, s));
  TRY_BLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH)); /* true fp32: no TF32 */
  if (batch(h, s, &t, n, k, a, b, c, &x, &y, &z, err)) goto cleanup;
  m.cold_ms = (kern_now_us() - t0) / 1e3;
  m.run_ms[m.n_runs++] = m.cold_ms;
  for (int i = 0; i < m.warmup; i++) {
    if (batch(h, s, &t, n, k, a, b, c, &x, &y, &z, err)) goto cleanup;
    m.run_ms[m.n_runs++] = y;
  }
  for (int i = 0; i < m.samples; i++) {
    if (batch(h, s, &t, n, k, a, b, c, &m.nosync_ms[i], &m.sync_ms[i], &m.ev_ms[i], err)) goto cleanup;
    m.run_ms[m.n_runs++] = m.sync_ms[i];
  }
  if (timeline_batch(h, s, n, k, a, b, c, &m, err)) goto cleanup;
  if (validate(a, b, c, n, &m, err)) goto cleanup;
  lab_timing_summarize(&m);
  *out = lab_timing_envelope(p, &m, "cuda", prop.name, NULL);
  rc = *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
cleanup:
  if (h) cublasDestroy(h);
  if (a) cudaFree(a);
  if (b) cudaFree(b);
  if (c) cudaFree(c);
  kern_timer_destroy(&t);
  if (s) cudaStreamDestroy(s);
  return rc;
}
