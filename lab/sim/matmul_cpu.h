/* The CPU matmul without a library: the CPU side of `crossover` where there
 * is no BLAS (the browser) and the reference the GPU matmuls are validated
 * against. Row-major, fp32, C = A·B (n×n). */
#ifndef LAB_MATMUL_CPU_H
#define LAB_MATMUL_CPU_H

/* The tuned kernel: 4×8 register tiles of 4-wide SIMD vectors (WebAssembly
 * f32x4, SSE natively), blocked for cache; c is overwritten. */
void lab_matmul_cpu(const float *a, const float *b, float *c, int n);
/* The textbook triple loop (i, j, k; a float sum per entry): what the
 * tuned kernel is checked and benchmarked against. */
void lab_matmul_naive(const float *a, const float *b, float *c, int n);
/* One entry C[i][j] accumulated in double: a spot-check reference for sizes
 * too large to multiply on the CPU. */
double lab_matmul_entry(const float *a, const float *b, int n, int i, int j);

/* Unit roundoff of the formats a matmul's inputs may be read in. */
#define LAB_U_FP32 5.9604644775390625e-08 /* 2^-24 */
#define LAB_U_TF32 4.8828125e-04          /* 2^-11: what tensor cores read an fp32 input as */

/* The largest relative error (max |got - ref| over the RMS of the reference
 * entries) a matmul with inner dimension k, rounding with unit roundoff u,
 * may show on random normal inputs: rounding errors of a sum of k terms
 * grow like sqrt(k), so 8·u·sqrt(k) (about 10 times what an fp32 sgemm
 * shows). An fp32 result that was really computed in TF32 is off by about
 * 2^-11 of the RMS whatever k is, hundreds of times this bound for fp32;
 * a wrong layout or a race is off by the entries themselves. */
double lab_matmul_rel_bound(double u, int k);
/* Compares `count` entries got[] with their double-precision reference
 * ref[]: *max_rel (over the RMS of ref; NaN sticks as infinity) and
 * *max_abs. Returns 1 when max_rel is within lab_matmul_rel_bound(u, k). */
int lab_matmul_check(const double *ref, const float *got, int count, int k, double u, double *max_rel,
                     double *max_abs);

#endif
