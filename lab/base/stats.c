/* Median, quartiles and spread of a sample set. */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

#define SMALL_N 64

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double lab_quantile_sorted(const double *sorted, size_t n, double q) {
  if (n == 0) return 0;
  if (q <= 0) return sorted[0];
  if (q >= 1) return sorted[n - 1];
  double pos = q * (double)(n - 1);
  size_t lo = (size_t)pos;
  double frac = pos - (double)lo;
  return lo + 1 < n ? sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]) : sorted[lo];
}

int lab_summarize(const double *x, size_t n, lab_summary *out) {
  memset(out, 0, sizeof *out);
  if (n == 0 || n > LAB_MAX_SAMPLES) return -1;
  /* A few samples, as usual: on the stack and sorted by insertion, which
   * beats malloc and qsort's calls (musl's smoothsort in wasm). */
  double small[SMALL_N];
  double *buf = n <= SMALL_N ? small : malloc(n * sizeof *buf);
  if (!buf) return -1;
  memcpy(buf, x, n * sizeof *x);
  if (n <= SMALL_N)
    for (size_t i = 1; i < n; i++) {
      double v = buf[i];
      size_t j = i;
      for (; j > 0 && buf[j - 1] > v; j--) buf[j] = buf[j - 1];
      buf[j] = v;
    }
  else qsort(buf, n, sizeof *buf, cmp_double);
  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += buf[i];
  out->n = n;
  out->min = buf[0];
  out->max = buf[n - 1];
  out->mean = sum / (double)n;
  out->median = lab_quantile_sorted(buf, n, 0.5);
  out->q1 = lab_quantile_sorted(buf, n, 0.25);
  out->q3 = lab_quantile_sorted(buf, n, 0.75);
  out->iqr_pct = out->median != 0 ? 100.0 * (out->q3 - out->q1) / out->median : 0;
  if (buf != small) free(buf);
  return 0;
}

int lab_median_index(const double *x, size_t n) {
  if (n == 0 || n > LAB_MAX_SAMPLES) return -1;
  /* The sample with (n-1)/2 others strictly below it and the rest not: its
   * rank in a stable sort. O(n²), and n is a handful of runs. */
  size_t want = (n - 1) / 2;
  for (size_t i = 0; i < n; i++) {
    size_t below = 0;
    for (size_t j = 0; j < n; j++) below += x[j] < x[i] || (x[j] == x[i] && j < i);
    if (below == want) return (int)i;
  }
  return 0; /* NaNs compare unordered: fall back to the first */
}
