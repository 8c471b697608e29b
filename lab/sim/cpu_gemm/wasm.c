/* lab_cpu_sgemm in the browser (see cpu_gemm.h): the tuned kernel of
 * matmul_cpu.c compiled with -msimd128, on the one WebAssembly thread the
 * page runs; a browser has no BLAS. */
#include <stdio.h>

#include "cpu_gemm.h"
#include "matmul_cpu.h"

void lab_cpu_sgemm(const float *a, const float *b, float *c, int n) { lab_matmul_cpu(a, b, c, n); }

void lab_cpu_gemm_describe(char *out, size_t n, bool plain) {
  snprintf(out, n, "your browser, one %sthread%s", plain ? "" : "WebAssembly ",
           plain ? "" : ", SIMD kernel (f32x4) blocked for cache, no BLAS");
}

bool lab_cpu_gemm_is_blas(void) { return false; }
