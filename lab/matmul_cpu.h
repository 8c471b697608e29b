/* The CPU matmul: the honest CPU side of `crossover` and the reference the
 * GPU matmuls are validated against. Row-major, fp32, C = A·B (n×n). */
#ifndef LAB_MATMUL_CPU_H
#define LAB_MATMUL_CPU_H

/* Blocked i-k-j loops (cache-friendly, auto-vectorisable); c is overwritten. */
void lab_matmul_cpu(const float *a, const float *b, float *c, int n);
/* One entry C[i][j] accumulated in double: a spot-check reference for sizes
 * too large to multiply on the CPU. */
double lab_matmul_entry(const float *a, const float *b, int n, int i, int j);

/* Largest |GPU - reference| an n×n fp32 matmul of standard normal inputs
 * may show: entries grow like sqrt(n) and rounding with them. A wrong
 * layout or a race gives errors of the size of the entries themselves. */
double lab_matmul_tolerance(int n);

#endif
