/* The CPU sgemm that `crossover` times: what a PyTorch user's CPU would
 * run. Natively that is OpenBLAS's cblas_sgemm on all cores (as numpy and
 * torch use it); in the browser it is the SIMD kernel of matmul_cpu.c on
 * one WebAssembly thread. The Makefile picks the implementation
 * (lab/sim/cpu_gemm/blas.c, loop.c natively without OpenBLAS, wasm.c in the
 * browser); the kernel stays the reference every GPU result is validated
 * against either way. */
#ifndef LAB_CPU_GEMM_H
#define LAB_CPU_GEMM_H

#include <stdbool.h>
#include <stddef.h>

/* C = A·B, row-major fp32 n×n; c is overwritten. */
void lab_cpu_sgemm(const float *a, const float *b, float *c, int n);

/* What does the work and where, for methods: e.g. "OpenBLAS 0.3.21
 * cblas_sgemm, 2 threads" or "your browser, one WebAssembly thread, SIMD
 * kernel (f32x4) blocked for cache, no BLAS"; plain: for a chart's legend,
 * in a learner's words ("your browser, one thread"). */
void lab_cpu_gemm_describe(char *out, size_t n, bool plain);
/* true when a tuned BLAS does the work (not the reference loop). */
bool lab_cpu_gemm_is_blas(void);

#endif
