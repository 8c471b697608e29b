/* A portable, single-threaded CPU sgemm. Blocked so that a tile of B stays
 * in cache while a row of A streams past; the innermost j loop is unit-stride
 * so the compiler vectorises it (natively and as wasm SIMD when enabled).
 * No tricks beyond that: it is the "plain CPU" a beginner would compare to. */
#include "matmul_cpu.h"

#include <math.h>
#include <string.h>

#define BLOCK 64

void lab_matmul_cpu(const float *a, const float *b, float *c, int n) {
  memset(c, 0, (size_t)n * (size_t)n * sizeof *c);
  for (int kk = 0; kk < n; kk += BLOCK) {
    int kend = kk + BLOCK < n ? kk + BLOCK : n;
    for (int jj = 0; jj < n; jj += BLOCK) {
      int jend = jj + BLOCK < n ? jj + BLOCK : n;
      for (int i = 0; i < n; i++) {
        float *ci = c + (size_t)i * n;
        const float *ai = a + (size_t)i * n;
        for (int k = kk; k < kend; k++) {
          float aik = ai[k];
          const float *bk = b + (size_t)k * n;
          for (int j = jj; j < jend; j++) ci[j] += aik * bk[j];
        }
      }
    }
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
