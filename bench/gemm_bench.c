/* The CPU sgemm crossover times where there is no BLAS: the tuned SIMD
 * kernel (lab_matmul_cpu) beside the naive triple loop, the same C
 * compiled natively and to WebAssembly, so bench/run.sh sets the two side
 * by side in one run. Each size: a warm-up, then 5 batches of at least
 * 20 ms, median ms per matmul; prints GFLOPS (2·N³ flop) as JSON. */
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "matmul_cpu.h"
#include "rng.h"
#include "stats.h"

#define BATCH_MS 20.0
#define SAMPLES 5

typedef void (*mm_fn)(const float *, const float *, float *, int);

/* Median ms per matmul of `mm` at side n. */
static double time_mm(mm_fn mm, const float *a, const float *b, float *c, int n) {
  int reps = 1;
  for (;;) { /* warm-up that finds how many runs fill a batch */
    double t0 = lab_clock_ms();
    for (int r = 0; r < reps; r++) mm(a, b, c, n);
    if (lab_clock_ms() - t0 >= BATCH_MS || reps >= (1 << 24)) break;
    reps *= 2;
  }
  double x[SAMPLES];
  for (int s = 0; s < SAMPLES; s++) {
    double t0 = lab_clock_ms();
    for (int r = 0; r < reps; r++) mm(a, b, c, n);
    x[s] = (lab_clock_ms() - t0) / reps;
  }
  lab_summary sum;
  lab_summarize(x, SAMPLES, &sum);
  return sum.median;
}

int main(void) {
  static const int sizes[] = {16, 64, 256, 512};
  static const struct {
    const char *name;
    mm_fn fn;
  } kernels[] = {{"naive", lab_matmul_naive}, {"tuned", lab_matmul_cpu}};
  int max_n = sizes[sizeof sizes / sizeof sizes[0] - 1];
  size_t bytes = sizeof(float) * (size_t)max_n * (size_t)max_n;
  float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
  if (!a || !b || !c) {
    fprintf(stderr, "gemm_bench: out of memory\n");
    return 1;
  }
  printf("{");
  for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
    printf("%s\"%s\":{", k ? "," : "", kernels[k].name);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      int n = sizes[i];
      lab_fill_normal(a, (size_t)n * n, 0xa000u + (unsigned)n);
      lab_fill_normal(b, (size_t)n * n, 0xb000u + (unsigned)n);
      double ms = time_mm(kernels[k].fn, a, b, c, n);
      printf("%s\"%d\":%.3f", i ? "," : "", n, 2.0 * n * n * (double)n / (ms * 1e6));
    }
    printf("}");
  }
  printf("}\n");
  free(a);
  free(b);
  free(c);
  return 0;
}
