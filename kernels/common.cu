/* The harness declared in common.cuh: error mapping for the TRY macros,
 * event timers, the host clock, normal fills, the spin and hold kernels,
 * timed batches, the matmul grid check and the row-major sgemm. */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "common.cuh"

/* What to tell the learner after the error's own text. */
static const char *advice_of(lab_err code) {
  switch (code) {
    case LAB_E_GPU_OOM: return "the GPU ran out of memory; use a smaller size";
    case LAB_E_GPU_ARCH:
      return "this gpulab has no kernels for this GPU's architecture; GET /api/device says which it was built for";
    case LAB_E_CUDA: return "the CUDA context is unusable after this error, so the worker is replaced";
    case LAB_E_NO_GPU: return "this worker sees no usable GPU; the run goes to another worker";
    default: return "this run failed; the GPU and the worker are fine";
  }
}

int kern_cuda_fail(lab_error *err, cudaError_t e, const char *expr, const char *file, int line) {
  lab_err code = lab_cuda_error_class(cudaGetErrorName(e));
  /* Only a sticky error poisons the context; clear the others so the next call works. */
  if (code != LAB_E_CUDA) cudaGetLastError();
  return lab_fail(err, code, NULL, "%s failed with %s (%s:%d): %s; %s", expr, cudaGetErrorName(e), file, line,
                  cudaGetErrorString(e), advice_of(code));
}

static const char *blas_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    default: return "CUBLAS_STATUS_UNKNOWN";
  }
}

int kern_blas_fail(lab_error *err, cublasStatus_t s, const char *expr, const char *file, int line) {
  lab_err code = lab_cuda_error_class(blas_name(s));
  if (code != LAB_E_CUDA) cudaGetLastError();
  return lab_fail(err, code, NULL, "%s failed with %s (%s:%d); %s", expr, blas_name(s), file, line, advice_of(code));
}

cudaError_t kern_timer_create(kern_timer *t) {
  t->start = t->stop = NULL;
  cudaError_t e = cudaEventCreate(&t->start);
  if (e == cudaSuccess) e = cudaEventCreate(&t->stop);
  return e;
}

void kern_timer_destroy(kern_timer *t) {
  if (t->start) cudaEventDestroy(t->start);
  if (t->stop) cudaEventDestroy(t->stop);
  t->start = t->stop = NULL;
}

cudaError_t kern_timer_start(kern_timer *t, cudaStream_t s) { return cudaEventRecord(t->start, s); }

cudaError_t kern_timer_stop_ms(kern_timer *t, cudaStream_t s, double *ms) {
  float f = 0;
  cudaError_t e = cudaEventRecord(t->stop, s);
  if (e == cudaSuccess) e = cudaEventSynchronize(t->stop);
  if (e == cudaSuccess) e = cudaEventElapsedTime(&f, t->start, t->stop);
  *ms = f;
  return e;
}

double kern_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

void kern_fill_normal_host(float *x, size_t n, uint64_t seed) { lab_fill_normal(x, n, seed); }

static __device__ uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static __global__ void fill_normal_kernel(float *d, size_t n, uint64_t seed) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint64_t h = mix64(seed + 0x9E3779B97F4A7C15ull * (i + 1));
    float u1 = ((float)(h >> 40) + 1.0f) * (1.0f / 16777217.0f); /* (0, 1] */
    float u2 = (float)((h >> 16) & 0xFFFFFF) * (1.0f / 16777216.0f);
    d[i] = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
  }
}

cudaError_t kern_fill_normal_device(float *d, size_t n, uint64_t seed, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  size_t blocks = (n + 255) / 256;
  fill_normal_kernel<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, s>>>(d, n, seed);
  return cudaGetLastError();
}

static __global__ void spin_kernel(uint64_t ns) {
  uint64_t t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

cudaError_t kern_spin(double us, cudaStream_t s) {
  spin_kernel<<<1, 1, 0, s>>>((uint64_t)(us * 1e3));
  return cudaGetLastError();
}

/* ---- the hold ----------------------------------------------------------- */

static __global__ void hold_kernel(const volatile int *flag, unsigned long long timeout_ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (;;) {
    if (*flag != 0) return;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 > timeout_ns) return;
    __nanosleep(500);
  }
}

cudaError_t kern_hold_create(kern_hold *h) {
  h->flag = NULL;
  h->held = 0;
  return cudaHostAlloc((void **)&h->flag, sizeof *h->flag, cudaHostAllocMapped);
}

void kern_hold_destroy(kern_hold *h) {
  kern_hold_release(h);
  if (h->flag) cudaFreeHost(h->flag);
  h->flag = NULL;
}

cudaError_t kern_hold_begin(kern_hold *h, cudaStream_t s) {
  int *dev = NULL;
  *(volatile int *)h->flag = 0;
  cudaError_t e = cudaHostGetDevicePointer((void **)&dev, h->flag, 0);
  if (e != cudaSuccess) return e;
  hold_kernel<<<1, 1, 0, s>>>(dev, KERN_HOLD_TIMEOUT_NS);
  e = cudaGetLastError();
  h->held = e == cudaSuccess;
  return e;
}

void kern_hold_release(kern_hold *h) {
  if (!h->held) return;
  __sync_synchronize(); /* everything queued before is visible first */
  *(volatile int *)h->flag = 1;
  h->held = 0;
}

/* ---- timed batches ------------------------------------------------------ */

cudaError_t kern_bench_create(kern_bench *b, cudaStream_t s) {
  b->s = s;
  b->hold.flag = NULL;
  b->hold.held = 0;
  cudaError_t e = kern_timer_create(&b->t);
  if (e == cudaSuccess) e = kern_hold_create(&b->hold);
  return e;
}

void kern_bench_destroy(kern_bench *b) {
  kern_hold_destroy(&b->hold);
  kern_timer_destroy(&b->t);
}

int kern_bench_batch(kern_bench *b, int n, int held, kern_op_fn op, void *ctx, double *ms, double *host_ms,
                     lab_error *err) {
  double t0 = 0;
  if (held) TRY(kern_hold_begin(&b->hold, b->s));
  TRY(kern_timer_start(&b->t, b->s));
  t0 = kern_now_us();
  for (int i = 0; i < n; i++) {
    if (op(ctx, i, b->s, err)) goto cleanup;
    if (i + 1 == KERN_HOLD_MAX_OPS) kern_hold_release(&b->hold);
  }
  if (host_ms) *host_ms = (kern_now_us() - t0) / 1e3;
  kern_hold_release(&b->hold);
  TRY(kern_timer_stop_ms(&b->t, b->s, ms));
  return 0;
cleanup:
  kern_hold_release(&b->hold);
  return -1;
}

int kern_bench_samples(kern_bench *b, int warmup, int samples, int n, int held, kern_op_fn op, void *ctx,
                       double *per_op_ms, lab_summary *sum, lab_error *err) {
  double ms = 0, *x = (double *)malloc((size_t)(samples > 0 ? samples : 1) * sizeof *x);
  int rc = -1;
  if (!x) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  /* The first warm-up batch is never held. With lazy module loading (the
   * default since CUDA 12.2) the first launch of a kernel loads it, and
   * that may wait for the whole context, the hold's kernel included, which
   * waits for a host that is stuck in that launch: each new kernel (a new
   * cuBLAS size or precision) would cost the hold's whole timeout. An
   * unheld batch loads every kernel the batch uses first. */
  for (int i = 0; i < (warmup > 0 ? warmup : 1); i++)
    if (kern_bench_batch(b, n, i == 0 ? 0 : held, op, ctx, &ms, NULL, err)) goto done;
  for (int i = 0; i < samples; i++) {
    if (kern_bench_batch(b, n, held, op, ctx, &ms, NULL, err)) goto done;
    x[i] = ms / n;
    if (per_op_ms) per_op_ms[i] = x[i];
  }
  lab_summarize(x, (size_t)samples, sum);
  rc = 0;
done:
  free(x);
  return rc;
}

/* ---- matmuls ------------------------------------------------------------ */

cublasStatus_t kern_blas_create(cublasHandle_t *h, cudaStream_t s) {
  cublasStatus_t st = cublasCreate(h);
  if (st == CUBLAS_STATUS_SUCCESS) st = cublasSetStream(*h, s);
  if (st == CUBLAS_STATUS_SUCCESS) st = cublasSetMathMode(*h, CUBLAS_DEFAULT_MATH);
  return st;
}

cublasStatus_t kern_sgemm_rm(cublasHandle_t h, int n, const float *a, const float *b, float *c) {
  const float one = 1.0f, zero = 0.0f;
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n);
}

int kern_sgemm_op(void *ctx, int i, cudaStream_t s, lab_error *err) {
  const kern_sgemm_job *j = (const kern_sgemm_job *)ctx;
  (void)i, (void)s;
  TRY_BLAS(kern_sgemm_rm(j->h, j->n, j->a, j->b, j->c));
  return 0;
cleanup:
  return -1;
}

cudaError_t kern_matrices(int n, uint64_t seed, cudaStream_t s, float **a, float **b, float **c) {
  size_t elems = (size_t)n * n;
  cudaError_t e;
  *a = *b = *c = NULL;
  if ((e = cudaMalloc((void **)a, elems * sizeof(float))) != cudaSuccess) return e;
  if ((e = cudaMalloc((void **)b, elems * sizeof(float))) != cudaSuccess) return e;
  if ((e = cudaMalloc((void **)c, elems * sizeof(float))) != cudaSuccess) return e;
  if ((e = kern_fill_normal_device(*a, elems, seed, s)) != cudaSuccess) return e;
  if ((e = kern_fill_normal_device(*b, elems, seed + 1, s)) != cudaSuccess) return e;
  return cudaStreamSynchronize(s);
}

int kern_grid_init(kern_grid *g, const float *d_a, const float *d_b, int n, int side, uint64_t seed, lab_error *err) {
  float *rows = NULL, *cols = NULL;
  int rc = -1;
  lab_rng r;
  if (side > KERN_GRID_MAX) side = KERN_GRID_MAX;
  if (side > n) side = n;
  g->n = n;
  g->side = side;
  lab_rng_seed(&r, seed);
  /* One row and one column from each of `side` even slices of the matrix. */
  for (int k = 0; k < side; k++) {
    g->ri[k] = (int)(k * (double)n / side + lab_rng_uniform(&r) * n / side);
    g->cj[k] = (int)(k * (double)n / side + lab_rng_uniform(&r) * n / side);
    if (g->ri[k] >= n) g->ri[k] = n - 1;
    if (g->cj[k] >= n) g->cj[k] = n - 1;
  }
  rows = (float *)malloc((size_t)side * n * sizeof(float));
  cols = (float *)malloc((size_t)side * n * sizeof(float));
  if (!rows || !cols) {
    lab_fail(err, LAB_E_NOMEM, NULL, "not enough host memory to check a %d x %d result", n, n);
    goto cleanup;
  }
  for (int k = 0; k < side; k++) {
    TRY(cudaMemcpy(rows + (size_t)k * n, d_a + (size_t)g->ri[k] * n, (size_t)n * sizeof(float),
                   cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy2D(cols + (size_t)k * n, sizeof(float), d_b + g->cj[k], (size_t)n * sizeof(float), sizeof(float),
                     n, cudaMemcpyDeviceToHost));
  }
  for (int i = 0; i < side; i++)
    for (int j = 0; j < side; j++) {
      double acc = 0;
      for (int t = 0; t < n; t++) acc += (double)rows[(size_t)i * n + t] * cols[(size_t)j * n + t];
      g->ref[i * side + j] = acc;
    }
  rc = 0;
cleanup:
  free(rows);
  free(cols);
  return rc;
}

int kern_grid_read(const kern_grid *g, const float *d_c, float *out, lab_error *err) {
  for (int i = 0; i < g->side; i++)
    for (int j = 0; j < g->side; j++)
      TRY(cudaMemcpy(out + i * g->side + j, d_c + (size_t)g->ri[i] * g->n + g->cj[j], sizeof(float),
                     cudaMemcpyDeviceToHost));
  return 0;
cleanup:
  return -1;
}

int kern_grid_check(const kern_grid *g, const float *d_c, double u, int *validated, double *max_rel, double *max_abs,
                    lab_error *err) {
  float out[KERN_GRID_MAX * KERN_GRID_MAX];
  if (kern_grid_read(g, d_c, out, err)) return -1;
  *validated = lab_matmul_check(g->ref, out, g->side * g->side, g->n, u, max_rel, max_abs);
  return 0;
}
