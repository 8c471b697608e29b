/* precision on a real GPU: N×N matmuls through cuBLAS (cublasGemmEx) in FP32
 * (CUBLAS_COMPUTE_32F), TF32 (CUBLAS_COMPUTE_32F_FAST_TF32, fp32 data), and
 * BF16 or FP16 inputs with FP32 accumulation and output (CUDA_R_16BF or
 * CUDA_R_16F, CUBLAS_COMPUTE_32F: what autocast's matmuls do), for
 * N = 128 … max_size on random normal inputs.
 * Timing: two warm-up batches, then `samples` batches between CUDA events,
 * each batch enough matmuls for ≥ 2e10 flop (at most KERN_HOLD_MAX_OPS),
 * queued behind the harness's hold so the host's enqueue cost is never
 * timed; medians. Errors: a 16 × 16 grid of output entries against FP64
 * dot products on the host. The training run
 * is the portable C one (lab/experiments/precision_train.c): it is math, not hardware. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.cuh"
extern "C" {
#include "precision.h"
}

#define SIDE LAB_PREC_CHECK_SIDE

static __global__ void to_bf16_kernel(const float *in, __nv_bfloat16 *out, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = __float2bfloat16(in[i]);
}

static __global__ void to_fp16_kernel(const float *in, __half *out, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = __float2half(in[i]);
}

static unsigned grid_for(size_t n) {
  size_t blocks = (n + 255) / 256;
  return (unsigned)(blocks < 4096 ? blocks : 4096);
}

static cudaError_t to_bf16(const float *in, __nv_bfloat16 *out, size_t n, cudaStream_t s) {
  to_bf16_kernel<<<grid_for(n), 256, 0, s>>>(in, out, n);
  return cudaGetLastError();
}

static cudaError_t to_fp16(const float *in, __half *out, size_t n, cudaStream_t s) {
  to_fp16_kernel<<<grid_for(n), 256, 0, s>>>(in, out, n);
  return cudaGetLastError();
}

typedef struct inputs {
  const float *a, *b;             /* fp32, row-major n×n (first n² elements of the buffers) */
  const __nv_bfloat16 *a16, *b16; /* the same rounded to bf16 */
  const __half *ah, *bh;          /* and to fp16 */
} inputs;

/* Row-major C = A·B with column-major cuBLAS: B·A in column-major terms. */
static cublasStatus_t gemm(cublasHandle_t h, lab_prec p, int n, const inputs *in, float *c) {
  const float one = 1.0f, zero = 0.0f;
  if (p == LAB_PREC_BF16)
    return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, in->b16, CUDA_R_16BF, n, in->a16, CUDA_R_16BF, n,
                        &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (p == LAB_PREC_FP16)
    return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, in->bh, CUDA_R_16F, n, in->ah, CUDA_R_16F, n,
                        &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, in->b, CUDA_R_32F, n, in->a, CUDA_R_32F, n, &zero,
                      c, CUDA_R_32F, n,
                      p == LAB_PREC_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

typedef struct gemm_job {
  cublasHandle_t h;
  lab_prec p;
  int n;
  const inputs *in;
  float *c;
} gemm_job;

static int one_gemm(void *ctx, int i, cudaStream_t s, lab_error *err) {
  const gemm_job *j = (const gemm_job *)ctx;
  (void)i, (void)s;
  TRY_BLAS(gemm(j->h, j->p, j->n, j->in, j->c));
  return 0;
cleanup:
  return -1;
}

/* Times and checks every precision at side n (size index i): batches held
 * until queued (at most KERN_HOLD_MAX_OPS matmuls, so the whole batch is
 * held), errors on the grid against the FP64 reference of the fp32 inputs. */
static int one_size(kern_bench *bench, cublasHandle_t h, int i, const inputs *in, float *c,
                    lab_precision_measure *m, lab_error *err) {
  int n = m->size[i], reps = lab_precision_repeats(n);
  float out[SIDE * SIDE];
  kern_grid grid;
  if (reps > KERN_HOLD_MAX_OPS) reps = KERN_HOLD_MAX_OPS;
  m->repeats[i] = reps;
  if (kern_grid_init(&grid, in->a, in->b, n, SIDE, 0xc4ec0u + (uint64_t)n, err)) return -1;
  for (int q = 0; q < LAB_PREC_COUNT; q++) {
    lab_prec p = (lab_prec)q;
    gemm_job job = {h, p, n, in, c};
    lab_summary sum;
    if (m->native[q] < 0) continue;
    if ((p == LAB_PREC_BF16 || p == LAB_PREC_FP16) && i == 0) {
      /* cuBLAS may refuse a 16-bit format on a GPU without it: a result, not a failure */
      cublasStatus_t st = gemm(h, p, n, in, c);
      if (st == CUBLAS_STATUS_NOT_SUPPORTED || st == CUBLAS_STATUS_ARCH_MISMATCH) {
        m->native[q] = -1;
        continue;
      }
      if (st != CUBLAS_STATUS_SUCCESS) return kern_blas_fail(err, st, "gemm(16-bit)", __FILE__, __LINE__);
    }
    if (kern_bench_samples(bench, m->warmup, m->samples, reps, 1, one_gemm, &job, NULL, &sum, err)) return -1;
    m->ms[q][i] = sum.median;
    m->iqr_pct[q][i] = sum.iqr_pct;
    m->tflops[q][i] = sum.median > 0 ? 2.0 * n * n * (double)n / (sum.median * 1e9) : 0;
    if (kern_grid_read(&grid, c, out, err)) return -1;
    lab_precision_errors(grid.ref, out, grid.side * grid.side, &m->max_rel[q][i], &m->mean_rel[q][i],
                         &m->max_abs[q][i]);
  }
  return 0;
}

KERN_ENTRY(precision) {
  const lab_params_precision tp = lab_params_precision_of(p);
  lab_precision_measure *m = NULL;
  cudaDeviceProp prop;
  cudaStream_t s = NULL;
  cublasHandle_t h = NULL;
  kern_bench bench = {NULL, {NULL, NULL}, {NULL, 0}};
  float *a = NULL, *b = NULL, *c = NULL;
  __nv_bfloat16 *a16 = NULL, *b16 = NULL;
  __half *ah = NULL, *bh = NULL;
  inputs in;
  int rc = -1, nmax = 0;
  size_t elems = 0;
  *out = NULL;
  m = (lab_precision_measure *)calloc(1, sizeof *m);
  if (!m) return lab_fail(err, LAB_E_NOMEM, NULL, NULL);
  m->n_sizes = lab_precision_sizes((int)tp.max_size, m->size);
  m->samples = (int)tp.samples;
  m->warmup = LAB_PREC_WARMUP;
  nmax = m->size[m->n_sizes - 1];
  elems = (size_t)nmax * nmax;

  TRY(cudaSetDevice(0));
  TRY(cudaGetDeviceProperties(&prop, 0));
  m->native[LAB_PREC_FP32] = 1;
  m->native[LAB_PREC_TF32] = prop.major >= 8; /* below Ampere cuBLAS runs TF32 requests as fp32 */
  m->native[LAB_PREC_BF16] = prop.major >= 8;
  m->native[LAB_PREC_FP16] = prop.major >= 7; /* FP16 tensor cores since Volta; Turing (T4) has them */
  TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  TRY(kern_bench_create(&bench, s));
  TRY(cudaMalloc((void **)&a, elems * sizeof(float)));
  TRY(cudaMalloc((void **)&b, elems * sizeof(float)));
  TRY(cudaMalloc((void **)&c, elems * sizeof(float)));
  TRY(cudaMalloc((void **)&a16, elems * sizeof(__nv_bfloat16)));
  TRY(cudaMalloc((void **)&b16, elems * sizeof(__nv_bfloat16)));
  TRY(cudaMalloc((void **)&ah, elems * sizeof(__half)));
  TRY(cudaMalloc((void **)&bh, elems * sizeof(__half)));
  TRY(kern_fill_normal_device(a, elems, 21, s));
  TRY(kern_fill_normal_device(b, elems, 22, s));
  TRY(to_bf16(a, a16, elems, s));
  TRY(to_bf16(b, b16, elems, s));
  TRY(to_fp16(a, ah, elems, s));
  TRY(to_fp16(b, bh, elems, s));
  TRY(cudaStreamSynchronize(s));
  TRY_BLAS(kern_blas_create(&h, s)); /* default math: the compute type alone decides TF32 */
  in.a = a;
  in.b = b;
  in.a16 = a16;
  in.b16 = b16;
  in.ah = ah;
  in.bh = bh;
  for (int i = 0; i < m->n_sizes; i++)
    if (one_size(&bench, h, i, &in, c, m, err)) goto cleanup;
  {
    int top = m->n_sizes - 1, ok = 1;
    for (int q = 0; q < LAB_PREC_COUNT; q++) {
      /* TF32 without tensor cores is fp32 arithmetic: hold it to fp32's bound. */
      lab_prec bound = q == LAB_PREC_TF32 && m->native[q] == 0 ? LAB_PREC_FP32 : (lab_prec)q;
      for (int i = 0; i < m->n_sizes && m->native[q] >= 0; i++)
        ok &= m->max_rel[q][i] <= lab_precision_bound(bound);
    }
    m->validated = ok;
    m->max_abs_err = m->max_abs[LAB_PREC_FP32][top];
  }
  lab_precision_train((int)tp.train_steps, tp.loss_scale, &m->train);
  *out = lab_precision_envelope(p, m, "cuda", prop.name, NULL);
  rc = *out ? 0 : lab_fail(err, LAB_E_NOMEM, NULL, NULL);
cleanup:
  if (h) cublasDestroy(h);
  if (a) cudaFree(a);
  if (b) cudaFree(b);
  if (c) cudaFree(c);
  if (a16) cudaFree(a16);
  if (b16) cudaFree(b16);
  if (ah) cudaFree(ah);
  if (bh) cudaFree(bh);
  kern_bench_destroy(&bench);
  if (s) cudaStreamDestroy(s);
  free(m);
  return rc;
}
