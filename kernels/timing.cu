/* timing on a real GPU: a cuBLAS sgemm (N×N, fp32, random normal inputs)
 * launched K times per batch. Each sample is two batches: one launched as a
 * program launches it, with the host clock read before the first launch,
 * after the last launch and after a synchronize, and CUDA events around it
 * (the three clocks of the lesson on one batch); and one queued behind the
 * harness's hold, whose events give the GPU's own time. The cold run is a
 * fresh process's first batch (kernels/cold.cu), so what ran before in this
 * worker does not change it. The timeline is one more batch with an event
 * after each sgemm. Validation: a 16×16 grid of C against double-precision
 * dot products, within fp32's bound (a TF32 slip fails it). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.cuh"
extern "C" {
#include "gpu_spans.h"
#include "timing.h"
}

#define GRID_SIDE 16


/* The batch as a program runs it: three clocks around the same launches. */
static int plain_batch(kern_bench *b, kern_sgemm_job *bt, int k, double *nosync_ms, double *sync_ms, double *ev_ms,
                       lab_error *err) {
  double t0 = kern_now_us();
  if (kern_bench_batch(b, k, 0, kern_sgemm_op, bt, ev_ms, nosync_ms, err)) return -1;
  /* kern_bench_batch waited on the stop event: the host sees the end here. */
  *sync_ms = (kern_now_us() - t0) / 1e3;
  return 0;
}

/* The timeline batch: an event after every sgemm ends it on the GPU lane;
 * each starts at the later of its launch and the previous one's end
 * (lab_gpu_span_starts). The GPU clock is aligned to the host clock at the
 * first event, recorded on an idle GPU (it completes as it is recorded). */
static int timeline_batch(kern_sgemm_job *bt, cudaStream_t s, int k, lab_timing_measure *m, lab_error *err) {
  cudaEvent_t ev[LAB_TIMING_MAX_LAUNCHES + 1];
  int made = 0, rc = -1, draw = k < LAB_TIMING_MAX_LAUNCHES ? k : LAB_TIMING_MAX_LAUNCHES;
  double t0 = 0, origin = 0;
  for (; made <= draw; made++) TRY(cudaEventCreate(&ev[made]));
  TRY(cudaStreamSynchronize(s));
  t0 = kern_now_us();
  TRY(cudaEventRecord(ev[0], s));
  origin = kern_now_us() - t0;
  for (int i = 0; i < k; i++) {
    double ls = kern_now_us() - t0;
    TRY_BLAS(kern_sgemm_rm(bt->h, bt->n, bt->a, bt->b, bt->c));
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
    float ms = 0;
    TRY(cudaEventElapsedTime(&ms, ev[0], ev[i + 1]));
    m->gpu_end_us[i] = origin + ms * 1e3;
  }
  lab_gpu_span_starts(m->launch_start_us, m->gpu_end_us, draw, origin, m->gpu_start_us);
  m->n_launches = draw;
  rc = 0;
cleanup:
  for (int i = 0; i < made; i++) cudaEventDestroy(ev[i]);
  return rc;
}

KERN_ENTRY(timing) {
  const lab_params_timing tp = lab_params_timing_of(p);
  lab_timing_measure m;
  cudaDeviceProp prop;
  cudaStream_t s = NULL;
  kern_bench bench = {NULL, {NULL, NULL}, {NULL, 0}};
  kern_grid grid;
  kern_cold_times cold;
  kern_sgemm_job bt = {NULL, 0, NULL, NULL, NULL};
  float *a = NULL, *b = NULL, *c = NULL;
  int rc = -1, n = 0, k = 0;
  double x = 0, y = 0, z = 0, rel = 0;
  lab_error cold_err;
  *out = NULL;
  memset(&m, 0, sizeof m);
  m.size = n = (int)tp.size;
  m.repeats = k = (int)tp.repeats;
  m.samples = (int)tp.samples;
  m.warmup = LAB_TIMING_WARMUP;

  /* The cold start first, in its own process, before this one touches cuBLAS. */
  if (kern_cold_sgemm(n, k, &cold, &cold_err) == 0) {
    m.cold_fresh = 1;
    m.cold_ms = cold.first_ms;
    m.context_ms = cold.context_ms;
  }
  TRY(cudaSetDevice(0));
  TRY(cudaGetDeviceProperties(&prop, 0));
  TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  TRY(kern_bench_create(&bench, s));
  TRY(kern_matrices(n, 11, s, &a, &b, &c));
  bt.n = n, bt.a = a, bt.b = b, bt.c = c;
  {
    /* Without a fresh process, the first batch here (the handle and its first use) stands in. */
    double t0 = kern_now_us();
    TRY_BLAS(kern_blas_create(&bt.h, s));
    if (plain_batch(&bench, &bt, k, &x, &y, &z, err)) goto cleanup;
    if (!m.cold_fresh) m.cold_ms = (kern_now_us() - t0) / 1e3;
  }
  m.run_ms[m.n_runs++] = m.cold_ms;
  for (int i = 0; i < m.warmup; i++) {
    if (plain_batch(&bench, &bt, k, &x, &y, &z, err)) goto cleanup;
    m.run_ms[m.n_runs++] = y;
  }
  for (int i = 0; i < m.samples; i++) {
    if (plain_batch(&bench, &bt, k, &m.nosync_ms[i], &m.sync_ms[i], &m.ev_ms[i], err)) goto cleanup;
    m.run_ms[m.n_runs++] = m.sync_ms[i];
    if (kern_bench_batch(&bench, k, 1, kern_sgemm_op, &bt, &m.busy_samples_ms[i], NULL, err)) goto cleanup;
  }
  if (timeline_batch(&bt, s, k, &m, err)) goto cleanup;
  if (kern_grid_init(&grid, a, b, n, GRID_SIDE, 0xc4ec, err)) goto cleanup;
  if (kern_grid_check(&grid, c, LAB_U_FP32, &m.validated, &rel, &m.max_abs_err, err)) goto cleanup;
  lab_timing_summarize(&m);
  *out = lab_timing_envelope(p, &m, "cuda", prop.name, NULL);
  rc = *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
cleanup:
  if (bt.h) cublasDestroy(bt.h);
  if (a) cudaFree(a);
  if (b) cudaFree(b);
  if (c) cudaFree(c);
  kern_bench_destroy(&bench);
  if (s) cudaStreamDestroy(s);
  return rc;
}
