/* lab_cpu_sgemm by the reference loop (see cpu_gemm.h): in the browser,
 * where there is one WebAssembly thread and no BLAS, and natively when
 * OpenBLAS is not installed. */
#include <stdio.h>

#include "../cpu_gemm.h"
#include "../matmul_cpu.h"

void lab_cpu_sgemm(const float *a, const float *b, float *c, int n) { lab_matmul_cpu(a, b, c, n); }

void lab_cpu_gemm_describe(char *out, size_t n) { snprintf(out, n, "one thread, blocked loops, no BLAS"); }

bool lab_cpu_gemm_is_blas(void) { return false; }
