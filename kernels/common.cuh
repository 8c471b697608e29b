/* Shared by every CUDA file in kernels/: the TRY macros that turn a failing CUDA
 * or cuBLAS call into a lab_error (expression, file, line, error name) and
 * jump to the caller's `cleanup:` label, CUDA-event timers, a host clock,
 * and random normal fills (inputs are never zeros: zeros flatter matmuls). */
#ifndef KERN_COMMON_CUH
#define KERN_COMMON_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* lab/ headers are C: give them C linkage before kern.h includes them. */
extern "C" {
#include "cjson_compat.h"
#include "envelope.h"
#include "error.h"
#include "params.h"
#include "rng.h"
#include "stats.h"
}
#include "kern.h"

/* Records a failed CUDA call into err and returns -1. Out of memory becomes
 * LAB_E_GPU_OOM (recoverable: the error is cleared), no device / no driver
 * LAB_E_NO_GPU, anything else LAB_E_CUDA (the worker restarts). */
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

/* Keeps the stream busy for `us` microseconds (reads %globaltimer): queued
 * work then starts only after the host has enqueued all of it, so what the
 * events measure is the GPU's work, not the host's enqueue rate
 * (nvbandwidth's technique). */
cudaError_t kern_spin(double us, cudaStream_t s);

#endif
