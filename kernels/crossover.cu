/* crossover on a real GPU: for each N of the sweep, the CPU matmul is timed
 * for real (lab/experiments/crossover.c), then cuBLAS sgemm on the same random normal
 * inputs three ways, each after a warm-up: the sgemm alone (CUDA events
 * around a batch of about 2 GFLOP held until queued, divided), the sgemm as
 * the host sees it with the data already on the GPU (host clock around
 * launch + synchronize) and with the copies (A, B up and C down from
 * pageable memory, host clock). Every size's result is checked on a grid of
 * entries against double-precision dot products, within fp32's bound. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.cuh"
extern "C" {
#include "crossover.h"
}

#define GRID_SIDE 8
#define BATCH_FLOP 2e9


static double median_of(const double *x, int n) {
  lab_summary s;
  lab_summarize(x, (size_t)n, &s);
  return s.median;
}

/* Times and checks one size; a, b, c are host buffers (pageable). */
static int one_size(kern_bench *bench, kern_sgemm_job *gm, lab_crossover_measure *m, int i, float *a, float *b, float *c,
                    float *da, float *db, float *dc, lab_error *err) {
  int n = m->n[i], ok = 0;
  size_t bytes = (size_t)n * n * sizeof(float);
  double g[LAB_CROSSOVER_MAX_SAMPLES], w[LAB_CROSSOVER_MAX_SAMPLES];
  double flop = 2.0 * n * n * (double)n, t0 = 0, rel = 0, abs_err = 0;
  int reps = flop >= BATCH_FLOP ? 1 : (int)(BATCH_FLOP / flop) > 200 ? 200 : (int)(BATCH_FLOP / flop);
  cudaStream_t s = bench->s;
  lab_summary ks;
  kern_grid grid;
  gm->n = n;
  lab_crossover_inputs(a, b, n);
  for (int smp = -1; smp < m->samples; smp++) { /* -1: warm-up */
    t0 = kern_now_us();
    TRY(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    TRY(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    TRY_BLAS(kern_sgemm_rm(gm->h, n, da, db, dc));
    TRY(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    TRY(cudaStreamSynchronize(s));
    if (smp >= 0) w[smp] = (kern_now_us() - t0) / 1e3;
    t0 = kern_now_us();
    TRY_BLAS(kern_sgemm_rm(gm->h, n, da, db, dc));
    TRY(cudaStreamSynchronize(s));
    if (smp >= 0) g[smp] = (kern_now_us() - t0) / 1e3;
  }
  m->gpu_copies_ms[i] = median_of(w, m->samples);
  m->gpu_ms[i] = median_of(g, m->samples);
  /* The sgemm alone: a held batch of reps, one warm-up batch, per sgemm. */
  if (kern_bench_samples(bench, 1, m->samples, reps, 1, kern_sgemm_op, gm, NULL, &ks, err)) return -1;
  m->gpu_kernel_ms[i] = ks.median;
  if (kern_grid_init(&grid, da, db, n, GRID_SIDE, 0xc0ffee ^ (uint64_t)n, err)) return -1;
  if (kern_grid_check(&grid, dc, LAB_U_FP32, &ok, &rel, &abs_err, err)) return -1;
  if (!(abs_err <= m->max_abs_err)) m->max_abs_err = abs_err; /* NaN sticks */
  if (!ok) m->validated = 0;
  return 0;
cleanup:
  return -1;
}

KERN_ENTRY(crossover) {
  const lab_params_crossover tp = lab_params_crossover_of(p);
  lab_crossover_measure m;
  cudaDeviceProp prop;
  cudaStream_t s = NULL;
  kern_bench bench = {NULL, {NULL, NULL}, {NULL, 0}};
  kern_sgemm_job gm = {NULL, 0, NULL, NULL, NULL};
  float *a = NULL, *b = NULL, *c = NULL, *da = NULL, *db = NULL, *dc = NULL;
  int rc = -1, max_n = 0;
  size_t bytes = 0;
  *out = NULL;
  memset(&m, 0, sizeof m);
  m.samples = (int)tp.samples;
  m.warmup = 1;
  m.n_sizes = lab_crossover_sizes((int)tp.max_size, m.n, LAB_CROSSOVER_MAX_SIZES);
  max_n = m.n[m.n_sizes - 1];
  bytes = (size_t)max_n * max_n * sizeof(float);
  m.validated = 1;

  /* The CPU first, alone, so the GPU work does not disturb its timing. */
  if (lab_crossover_cpu(&m, err)) return -1;
  TRY(cudaSetDevice(0));
  TRY(cudaGetDeviceProperties(&prop, 0));
  /* The legacy default stream: the pageable cudaMemcpy calls then order
   * with the sgemms without extra events, as in a plain training script. */
  s = 0;
  TRY(kern_bench_create(&bench, s));
  TRY(cudaMalloc((void **)&da, bytes));
  TRY(cudaMalloc((void **)&db, bytes));
  TRY(cudaMalloc((void **)&dc, bytes));
  a = (float *)malloc(bytes);
  b = (float *)malloc(bytes);
  c = (float *)malloc(bytes);
  if (!a || !b || !c) {
    lab_fail(err, LAB_E_NOMEM, "max_size", "not enough host memory for %d x %d matrices", max_n, max_n);
    goto cleanup;
  }
  TRY_BLAS(kern_blas_create(&gm.h, s));
  gm.a = da, gm.b = db, gm.c = dc;
  for (int i = 0; i < m.n_sizes; i++)
    if (one_size(&bench, &gm, &m, i, a, b, c, da, db, dc, err)) goto cleanup;
  *out = lab_crossover_envelope(p, &m, "cuda", prop.name, NULL);
  rc = *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
cleanup:
  if (gm.h) cublasDestroy(gm.h);
  free(a);
  free(b);
  free(c);
  if (da) cudaFree(da);
  if (db) cudaFree(db);
  if (dc) cudaFree(dc);
  kern_bench_destroy(&bench);
  return rc;
}
