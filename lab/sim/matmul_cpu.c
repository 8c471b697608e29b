/* The CPU sgemm without a library: the tuned kernel crossover times where
 * there is no BLAS (one WebAssembly thread in the browser) and the naive
 * triple loop it is validated and benchmarked against. The kernel is
 * written once with GCC/Clang vector types: 4-wide float vectors become
 * WebAssembly SIMD (f32x4) under -msimd128 and SSE natively, so no
 * platform #ifdef is needed. */
#include "matmul_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef float v4 __attribute__((vector_size(16)));

/* Blocking for cache: a KC × NC panel of B (256 × 128 floats = 128 KiB)
 * is copied once into a contiguous buffer, NR columns at a time, and stays
 * in L2 while every row of A passes over it; the 4 rows of A the
 * micro-kernel reads (4 × KC floats, 4 KiB) stay in L1. Unpacked, the
 * kernel would read B down columns N floats apart: at N = 512 (2 KiB
 * apart) those rows fall in a few cache sets and evict each other. */
#define KC 256
#define NC 128
#define MR 4 /* rows of C per micro-kernel */
#define NR 8 /* columns of C per micro-kernel: two vectors */

/* Unaligned vector loads and stores (v128.load / movups). */
static inline v4 load4(const float *p) {
  v4 v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline void store4(float *p, v4 v) { memcpy(p, &v, sizeof v); }
static inline v4 splat(float x) { return (v4){x, x, x, x}; }

/* C[i..i+MR)[j..j+NR) += A[i..i+MR)[k0..k1) · B[k0..k1)[j..j+NR), B packed
 * as NR floats per k: eight accumulators held in registers over the whole
 * k loop (8 + 2 + 1 vector registers, within SSE's 16). */
static void micro_4x8(const float *a, const float *bp, float *c, int n, int k0, int k1) {
  const float *a0 = a, *a1 = a + n, *a2 = a + 2 * (size_t)n, *a3 = a + 3 * (size_t)n;
  float *c0 = c, *c1 = c + n, *c2 = c + 2 * (size_t)n, *c3 = c + 3 * (size_t)n;
  v4 c00 = load4(c0), c01 = load4(c0 + 4), c10 = load4(c1), c11 = load4(c1 + 4);
  v4 c20 = load4(c2), c21 = load4(c2 + 4), c30 = load4(c3), c31 = load4(c3 + 4);
  for (int k = k0; k < k1; k++) {
    const float *bk = bp + (size_t)(k - k0) * NR;
    v4 b0 = load4(bk), b1 = load4(bk + 4), x;
    x = splat(a0[k]);
    c00 += x * b0;
    c01 += x * b1;
    x = splat(a1[k]);
    c10 += x * b0;
    c11 += x * b1;
    x = splat(a2[k]);
    c20 += x * b0;
    c21 += x * b1;
    x = splat(a3[k]);
    c30 += x * b0;
    c31 += x * b1;
  }
  store4(c0, c00);
  store4(c0 + 4, c01);
  store4(c1, c10);
  store4(c1 + 4, c11);
  store4(c2, c20);
  store4(c2 + 4, c21);
  store4(c3, c30);
  store4(c3 + 4, c31);
}

/* One row of C against NR columns: the rows left over below a multiple of MR. */
static void micro_1x8(const float *a, const float *bp, float *c, int k0, int k1) {
  v4 c0 = load4(c), c1 = load4(c + 4);
  for (int k = k0; k < k1; k++) {
    const float *bk = bp + (size_t)(k - k0) * NR;
    v4 x = splat(a[k]);
    c0 += x * load4(bk);
    c1 += x * load4(bk + 4);
  }
  store4(c, c0);
  store4(c + 4, c1);
}

/* Columns [j0, j1) left over right of a multiple of NR: plain loops. */
static void edge_cols(const float *a, const float *b, float *c, int n, int k0, int k1, int j0, int j1) {
  for (int i = 0; i < n; i++) {
    const float *ai = a + (size_t)i * n;
    float *ci = c + (size_t)i * n;
    for (int k = k0; k < k1; k++) {
      float aik = ai[k];
      const float *bk = b + (size_t)k * n;
      for (int j = j0; j < j1; j++) ci[j] += aik * bk[j];
    }
  }
}

/* B[k0..k1)[j0..j1) into bp, NR columns at a time: tile t holds
 * B[k][j0 + NR·t .. + NR) for k = k0 … k1 - 1, one after another. */
static void pack_b(const float *b, float *bp, int n, int k0, int k1, int j0, int j1) {
  for (int j = j0; j < j1; j += NR)
    for (int k = k0; k < k1; k++) {
      memcpy(bp, b + (size_t)k * n + j, NR * sizeof *bp);
      bp += NR;
    }
}

void lab_matmul_cpu(const float *a, const float *b, float *c, int n) {
  memset(c, 0, (size_t)n * (size_t)n * sizeof *c);
  int n_vec = n / NR * NR; /* columns the micro-kernels cover */
  int kc = n < KC ? n : KC, nc = n_vec < NC ? n_vec : NC;
  /* On the heap: 128 KiB is too big for a thread's stack, and a static
   * buffer would be shared by the server's threads. */
  float *bp = n_vec > 0 ? malloc(sizeof *bp * (size_t)kc * (size_t)nc) : NULL;
  if (!bp) n_vec = 0; /* out of memory: the plain loops do all of it */
  for (int kk = 0; kk < n; kk += KC) {
    int kend = kk + KC < n ? kk + KC : n;
    for (int jj = 0; jj < n_vec; jj += NC) {
      int jend = jj + NC < n_vec ? jj + NC : n_vec, i = 0;
      pack_b(b, bp, n, kk, kend, jj, jend);
      for (; i + MR <= n; i += MR)
        for (int j = jj; j < jend; j += NR)
          micro_4x8(a + (size_t)i * n, bp + (size_t)(j - jj) * (kend - kk), c + (size_t)i * n + j, n, kk, kend);
      for (; i < n; i++)
        for (int j = jj; j < jend; j += NR)
          micro_1x8(a + (size_t)i * n, bp + (size_t)(j - jj) * (kend - kk), c + (size_t)i * n + j, kk, kend);
    }
    if (n_vec < n) edge_cols(a, b, c, n, kk, kend, n_vec, n);
  }
  free(bp);
}

void lab_matmul_naive(const float *a, const float *b, float *c, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      float s = 0;
      for (int k = 0; k < n; k++) s += a[(size_t)i * n + k] * b[(size_t)k * n + j];
      c[(size_t)i * n + j] = s;
    }
}

double lab_matmul_entry(const float *a, const float *b, int n, int i, int j) {
  double s = 0;
  for (int k = 0; k < n; k++) s += (double)a[(size_t)i * n + k] * (double)b[(size_t)k * n + j];
  return s;
}

double lab_matmul_rel_bound(double u, int k) { return 8.0 * u * sqrt(k > 1 ? (double)k : 1.0); }

int lab_matmul_check(const double *ref, const float *got, int count, int k, double u, double *max_rel,
                     double *max_abs) {
  double ss = 0, worst = 0;
  for (int i = 0; i < count; i++) {
    double d = fabs((double)got[i] - ref[i]);
    ss += ref[i] * ref[i];
    if (!(d <= worst)) worst = d; /* NaN sticks */
  }
  double rms = count > 0 ? sqrt(ss / count) : 0;
  *max_abs = worst != worst ? INFINITY : worst;
  *max_rel = rms > 0 ? *max_abs / rms : *max_abs;
  return *max_rel <= lab_matmul_rel_bound(u, k);
}
