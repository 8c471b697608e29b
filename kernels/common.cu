/* The shared helpers declared in common.cuh: error mapping for the TRY
 * macros, event timers, the host clock, normal fills and the spin kernel. */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "common.cuh"

static lab_err code_of(cudaError_t e) {
  switch (e) {
    case cudaErrorMemoryAllocation: return LAB_E_GPU_OOM;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver: return LAB_E_NO_GPU;
    default: return LAB_E_CUDA;
  }
}

int kern_cuda_fail(lab_error *err, cudaError_t e, const char *expr, const char *file, int line) {
  lab_err code = code_of(e);
  /* An out-of-memory is not sticky: clear it so the next call works. */
  if (code != LAB_E_CUDA) cudaGetLastError();
  return lab_fail(err, code, NULL, "%s failed with %s (%s:%d): %s", expr, cudaGetErrorName(e), file, line,
                  code == LAB_E_GPU_OOM ? "the GPU ran out of memory; use a smaller size"
                                        : cudaGetErrorString(e));
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
    default: return "CUBLAS_STATUS_UNKNOWN";
  }
}

int kern_blas_fail(lab_error *err, cublasStatus_t s, const char *expr, const char *file, int line) {
  lab_err code = s == CUBLAS_STATUS_ALLOC_FAILED ? LAB_E_GPU_OOM : LAB_E_CUDA;
  return lab_fail(err, code, NULL, "%s failed with %s (%s:%d)", expr, blas_name(s), file, line);
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
