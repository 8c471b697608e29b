/* lab_cpu_sgemm by the tuned kernel of matmul_cpu.c (see cpu_gemm.h)
 * natively when OpenBLAS is not installed: one thread, no BLAS. The
 * browser's build uses wasm.c, which says where it ran. */
#include <stdio.h>

#include "cpu_gemm.h"
#include "matmul_cpu.h"

void lab_cpu_sgemm(const float *a, const float *b, float *c, int n) { lab_matmul_cpu(a, b, c, n); }

void lab_cpu_gemm_describe(char *out, size_t n, bool plain) {
  snprintf(out, n, "one thread%s", plain ? "" : ", SIMD kernel (4-wide, blocked for cache), no BLAS");
}

bool lab_cpu_gemm_is_blas(void) { return false; }
