/* Summary statistics for samples of a measurement: median and spread
 * (interquartile range as a percentage of the median), as torch's
 * benchmark utilities report them. */
#ifndef LAB_STATS_H
#define LAB_STATS_H

#include <stddef.h>

typedef struct lab_summary {
  size_t n;
  double median, q1, q3, min, max, mean;
  double iqr_pct; /* 100 * (q3 - q1) / median; 0 when median is 0 */
} lab_summary;

/* Sorts a copy of x (n <= LAB_MAX_SAMPLES) in a scratch buffer of its own
 * on the heap (small stack frames: CivetWeb threads and wasm have little);
 * returns 0, or -1 when n is 0, too big, or out of memory. */
#define LAB_MAX_SAMPLES 4096
int lab_summarize(const double *x, size_t n, lab_summary *out);
/* The index of the sample a median stands for: the middle one of an odd
 * count, the lower middle one of an even count (ties: the first). -1 when
 * n is 0 or too big. Picks "the median run" to show without comparing
 * floats for equality. */
int lab_median_index(const double *x, size_t n);
/* Linear-interpolated quantile of an already sorted array, q in [0, 1]. */
double lab_quantile_sorted(const double *sorted, size_t n, double q);
/* A run is noisy when its spread exceeds this share of the median (%). */
#define LAB_NOISY_IQR_PCT 10.0

#endif
