/* The one CUDA harness every file in kernels/ measures with: the TRY macros
 * that turn a failing CUDA or cuBLAS call into a lab_error (expression,
 * file, line, error name) and jump to the caller's `cleanup:` label; event
 * timers and a host clock; the stream hold (nvbandwidth's technique: a
 * kernel waits on a host-written flag until everything is queued); timed
 * batches with warm-up and samples summarised by lab_summarize (median,
 * IQR); sampled validation of a matmul against double-precision references;
 * the row-major sgemm; warp reductions; random normal fills (inputs are
 * never zeros: zeros flatter matmuls). A kernel file keeps only what is
 * particular to its experiment. */
#ifndef KERN_COMMON_CUH
#define KERN_COMMON_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* lab/ headers are C: give them C linkage before kern.h includes them. */
extern "C" {
#include "cjson_compat.h"
#include "cuda_errors.h"
#include "envelope.h"
#include "error.h"
#include "matmul_cpu.h"
#include "params.h"
#include "rng.h"
#include "stats.h"
}
#include "kern.h"

/* Records a failed CUDA call into err and returns -1, classified by
 * lab_cuda_error_class: only a sticky error (LAB_E_CUDA) makes the worker
 * restart; out of memory (LAB_E_GPU_OOM), a missing kernel image
 * (LAB_E_GPU_ARCH) and other failed calls (LAB_E_CUDA_CALL) are cleared and
 * fail only this run. */
int kern_cuda_fail(lab_error *err, cudaError_t e, const char *expr, const char *file, int line);
int kern_blas_fail(lab_error *err, cublasStatus_t s, const char *expr, const char *file, int line);

/* Use in a function that has `lab_error *err` and a `cleanup:` label, with
 * every variable declared (and set to NULL/0) before the first TRY: C++
 * forbids a goto that jumps over an initialisation. */
#define TRY(expr)                                                          \
  do {                                                                     \
    cudaError_t kern_e_ = (expr);                                          \
    if (kern_e_ != cudaSuccess) {                                          \
      kern_cuda_fail(err, kern_e_, #expr, __FILE__, __LINE__);             \
      goto cleanup;                                                        \
    }                                                                      \
  } while (0)

#define TRY_BLAS(expr)                                                     \
  do {                                                                     \
    cublasStatus_t kern_s_ = (expr);                                       \
    if (kern_s_ != CUBLAS_STATUS_SUCCESS) {                                \
      kern_blas_fail(err, kern_s_, #expr, __FILE__, __LINE__);             \
      goto cleanup;                                                        \
    }                                                                      \
  } while (0)

/* Checks the last kernel launch (bad configuration shows up here). */
#define TRY_LAUNCH() TRY(cudaGetLastError())

/* A pair of CUDA events around work on one stream. */
typedef struct kern_timer {
  cudaEvent_t start, stop;
} kern_timer;

cudaError_t kern_timer_create(kern_timer *t);
void kern_timer_destroy(kern_timer *t); /* safe on a zeroed or half-created timer */
cudaError_t kern_timer_start(kern_timer *t, cudaStream_t s);
/* Records stop, waits for it, and gives the elapsed GPU time in ms
 * (cudaEventElapsedTime resolves about 0.5 µs). */
cudaError_t kern_timer_stop_ms(kern_timer *t, cudaStream_t s, double *ms);

/* Host monotonic clock in microseconds (only differences mean anything). */
double kern_now_us(void);

/* Fills n floats on the host with standard normal values (lab_fill_normal). */
void kern_fill_normal_host(float *x, size_t n, uint64_t seed);
/* Fills n floats on the device with standard normal values (counter-based
 * hash + Box-Muller, so any size fills in one launch); checks the launch. */
cudaError_t kern_fill_normal_device(float *d, size_t n, uint64_t seed, cudaStream_t s);

/* Keeps the stream busy for `us` microseconds (reads %globaltimer): a GPU
 * that is busy on purpose (cudaFree waiting for a kernel, say). To hold a
 * stream while work is queued use kern_hold, which does not depend on time. */
cudaError_t kern_spin(double us, cudaStream_t s);

/* ---- a cold start --------------------------------------------------------- */

typedef struct kern_cold_times {
  double context_ms; /* cudaFree(0) in an empty process */
  double first_ms;   /* cublasCreate + the first batch + synchronize */
  double warm_ms;    /* the same batch again */
} kern_cold_times;

/* Measures a fresh process's cold start (kernels/cold.cu): returns 0, or -1
 * with err set when the child could not run or report. */
int kern_cold_sgemm(int n, int k, kern_cold_times *out, lab_error *err);

/* ---- the hold ----------------------------------------------------------- */

/* A kernel that waits on a flag in mapped host memory: launched before a
 * batch, it keeps the stream from starting the batch until the host has
 * queued all of it and writes the flag, so events measure the GPU's work
 * and never the host's enqueue rate, whatever that rate is. A stream queue
 * holds a limited number of entries (the launch call blocks when it is
 * full, which would wait for a flag that only the blocked host can write):
 * kern_bench releases the hold after KERN_HOLD_MAX_OPS queued operations.
 * The kernel gives up after KERN_HOLD_TIMEOUT_NS on its own, so an error
 * path that never releases costs a few seconds, never a hang. */
#define KERN_HOLD_MAX_OPS 256
#define KERN_HOLD_TIMEOUT_NS 5000000000ull

typedef struct kern_hold {
  int *flag; /* pinned, mapped: the host writes it, the waiting kernel reads it */
  int held;  /* a wait kernel is queued and not yet released */
} kern_hold;

cudaError_t kern_hold_create(kern_hold *h);
void kern_hold_destroy(kern_hold *h); /* releases first; safe on a zeroed hold */
/* Queues the wait kernel on s; work queued after it waits for release. */
cudaError_t kern_hold_begin(kern_hold *h, cudaStream_t s);
/* Lets the stream go (a no-op when nothing is held). */
void kern_hold_release(kern_hold *h);

/* ---- timed batches ------------------------------------------------------ */

/* Queues operation i of a batch on stream s; returns 0, or -1 with err set. */
typedef int (*kern_op_fn)(void *ctx, int i, cudaStream_t s, lab_error *err);

typedef struct kern_bench {
  cudaStream_t s;
  kern_timer t;
  kern_hold hold;
} kern_bench;

/* On stream s (created by the caller). */
cudaError_t kern_bench_create(kern_bench *b, cudaStream_t s);
void kern_bench_destroy(kern_bench *b);
/* One batch of n operations between two events, *ms the GPU's time for the
 * whole batch. held: queued behind kern_hold (released after all n, or
 * after KERN_HOLD_MAX_OPS); not held for work the host must wait for as it
 * queues (a pageable copy). host_ms (may be NULL): the host clock from
 * before the first operation to after the last was queued, no synchronize. */
int kern_bench_batch(kern_bench *b, int n, int held, kern_op_fn op, void *ctx, double *ms, double *host_ms,
                     lab_error *err);
/* `warmup` batches (at least one, the first never held: it loads the
 * batch's kernels, see kern_bench_samples), then `samples` batches (at most LAB_MAX_SAMPLES) whose
 * time per operation goes to per_op_ms[] (may be NULL) and is summarised in
 * *sum (median, IQR…). */
int kern_bench_samples(kern_bench *b, int warmup, int samples, int n, int held, kern_op_fn op, void *ctx,
                       double *per_op_ms, lab_summary *sum, lab_error *err);

/* ---- matmuls ------------------------------------------------------------ */

/* A cuBLAS handle bound to stream s, in default math mode: fp32 stays
 * fp32 (no TF32) unless a call's compute type asks for it. */
cublasStatus_t kern_blas_create(cublasHandle_t *h, cudaStream_t s);

/* Row-major C = A·B (n×n, fp32) through column-major cuBLAS: B·A in
 * column-major terms is (A·B)ᵀ in column-major, which is A·B row-major. */
cublasStatus_t kern_sgemm_rm(cublasHandle_t h, int n, const float *a, const float *b, float *c);

/* One square fp32 sgemm as a kern_bench operation (ctx: a kern_sgemm_job;
 * the handle is bound to the bench's stream). */
typedef struct kern_sgemm_job {
  cublasHandle_t h;
  int n;
  const float *a, *b;
  float *c;
} kern_sgemm_job;
int kern_sgemm_op(void *ctx, int i, cudaStream_t s, lab_error *err);

/* cudaMallocs A, B and C (n×n fp32 each; set to NULL first, so the caller
 * frees whatever was made) and fills A and B with random normal values
 * (seeds seed, seed + 1), synchronized. */
cudaError_t kern_matrices(int n, uint64_t seed, cudaStream_t s, float **a, float **b, float **c);

/* A side×side grid of C's entries (rows ri, columns cj spread over n) with
 * their references computed in double from the fp32 A and B the device
 * holds: what every matmul's validation reads back instead of whole
 * matrices. */
#define KERN_GRID_MAX 32
typedef struct kern_grid {
  int n, side;
  int ri[KERN_GRID_MAX], cj[KERN_GRID_MAX];
  double ref[KERN_GRID_MAX * KERN_GRID_MAX];
} kern_grid;

/* Picks the grid (seeded) and computes its references from d_a, d_b. */
int kern_grid_init(kern_grid *g, const float *d_a, const float *d_b, int n, int side, uint64_t seed, lab_error *err);
/* Reads the grid's entries of d_c into out[side*side]. */
int kern_grid_read(const kern_grid *g, const float *d_c, float *out, lab_error *err);
/* Reads d_c's grid and checks it with lab_matmul_check at unit roundoff u:
 * *validated, *max_rel, *max_abs. */
int kern_grid_check(const kern_grid *g, const float *d_c, double u, int *validated, double *max_rel, double *max_abs,
                    lab_error *err);

/* ---- warp reductions ---------------------------------------------------- */

#define KERN_WARP 32

/* Sum and max over a full warp; every lane gets the result. */
static __device__ __forceinline__ float kern_warp_sum(float v) {
  for (int o = KERN_WARP / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  return __shfl_sync(0xffffffffu, v, 0);
}

static __device__ __forceinline__ float kern_warp_max(float v) {
  for (int o = KERN_WARP / 2; o > 0; o /= 2) v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, o));
  return __shfl_sync(0xffffffffu, v, 0);
}

#endif
