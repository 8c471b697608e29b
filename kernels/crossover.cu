/* crossover on a real GPU: for each N of the sweep, the CPU matmul is timed
 * for real (lab/crossover.c), then cuBLAS sgemm on the same random normal
 * inputs three ways, each after a warm-up: the sgemm alone (CUDA events
 * around a batch of about 2 GFLOP, divided), the sgemm as the host sees it
 * with the data already on the GPU (host clock around launch + synchronize)
 * and with the copies (A, B up and C down from pageable memory, host clock).
 * Every size's result is checked against sampled CPU dot products. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.cuh"
extern "C" {
#include "crossover.h"
#include "matmul_cpu.h"
}

#define CHECK_ENTRIES 32
#define BATCH_FLOP 2e9

/* Row-major C = A·B with column-major cuBLAS (see kernels/timing.cu). */
static cublasStatus_t sgemm(cublasHandle_t h, int n, const float *a, const float *b, float *c) {
  const float one = 1.0f, zero = 0.0f;
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n);
}

static double median_of(const double *x, int n) {
  lab_summary s;
  lab_summarize(x, (size_t)n, &s);
  return s.median;
}

/* Times and checks one size; a, b, c are host buffers (pageable). */
static int one_size(cublasHandle_t h, cudaStream_t s, kern_timer *t, lab_crossover_measure *m, int i,
                    float *a, float *b, float *c, float *da, float *db, float *dc, lab_error *err) {
  int n = m->n[i];
  size_t bytes = (size_t)n * n * sizeof(float);
  double k[LAB_CROSSOVER_MAX_SAMPLES], g[LAB_CROSSOVER_MAX_SAMPLES], w[LAB_CROSSOVER_MAX_SAMPLES];
  double flop = 2.0 * n * n * (double)n, t0 = 0, ms = 0;
  int reps = flop >= BATCH_FLOP ? 1 : (int)(BATCH_FLOP / flop) > 200 ? 200 : (int)(BATCH_FLOP / flop);
  lab_crossover_inputs(a, b, n);
  for (int smp = -1; smp < m->samples; smp++) { /* -1: warm-up */
    t0 = kern_now_us();
    TRY(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    TRY(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    TRY_BLAS(sgemm(h, n, da, db, dc));
    TRY(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    TRY(cudaStreamSynchronize(s));
    if (smp >= 0) w[smp] = (kern_now_us() - t0) / 1e3;
    t0 = kern_now_us();
    TRY_BLAS(sgemm(h, n, da, db, dc));
    TRY(cudaStreamSynchronize(s));
    if (smp >= 0) g[smp] = (kern_now_us() - t0) / 1e3;
    TRY(kern_timer_start(t, s));
    for (int r = 0; r < reps; r++) TRY_BLAS(sgemm(h, n, da, db, dc));
    TRY(kern_timer_stop_ms(t, s, &ms));
    if (smp >= 0) k[smp] = ms / reps;
  }
  m->gpu_copies_ms[i] = median_of(w, m->samples);
  m->gpu_ms[i] = median_of(g, m->samples);
  m->gpu_kernel_ms[i] = median_of(k, m->samples);
  {
    lab_rng r;
    lab_rng_seed(&r, 0xc0ffee ^ (uint64_t)n);
    TRY(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    for (int e = 0; e < CHECK_ENTRIES; e++) {
      int row = (int)(lab_rng_uniform(&r) * n), col = (int)(lab_rng_uniform(&r) * n);
      double d = fabs(lab_matmul_entry(a, b, n, row, col) - (double)c[(size_t)row * n + col]);
      if (!(d <= m->max_abs_err)) m->max_abs_err = d; /* NaN sticks */
      if (!(d <= lab_matmul_tolerance(n))) m->validated = 0;
    }
  }
  return 0;
cleanup:
  return -1;
}

extern "C" int kern_run_crossover(const lab_params *p, cJSON **out, lab_error *err) {
  lab_crossover_measure m;
  cudaDeviceProp prop;
  cudaStream_t s = NULL;
  cublasHandle_t h = NULL;
  kern_timer t = {NULL, NULL};
  float *a = NULL, *b = NULL, *c = NULL, *da = NULL, *db = NULL, *dc = NULL;
  int rc = -1, max_n = 0;
  size_t bytes = 0;
  *out = NULL;
  memset(&m, 0, sizeof m);
  m.samples = (int)lab_param_int(p, "samples");
  m.warmup = 1;
  m.n_sizes = lab_crossover_sizes((int)lab_param_int(p, "max_size"), m.n, LAB_CROSSOVER_MAX_SIZES);
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
  TRY(kern_timer_create(&t));
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
  TRY_BLAS(cublasCreate(&h));
  TRY_BLAS(cublasSetStream(h, s));
  TRY_BLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH)); /* true fp32: no TF32 */
  for (int i = 0; i < m.n_sizes; i++)
    if (one_size(h, s, &t, &m, i, a, b, c, da, db, dc, err)) goto cleanup;
  *out = lab_crossover_envelope(p, &m, "cuda", prop.name, NULL);
  rc = *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
cleanup:
  if (h) cublasDestroy(h);
  free(a);
  free(b);
  free(c);
  if (da) cudaFree(da);
  if (db) cudaFree(db);
  if (dc) cudaFree(dc);
  kern_timer_destroy(&t);
  return rc;
}
