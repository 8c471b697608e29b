/* `crossover`: the same N×N matmul on the CPU and on the GPU, with and
 * without the copies to and from the GPU, over growing N — where the GPU
 * starts to win, and why tiny work loses (launch and synchronize costs).
 * The CPU side is always measured for real, natively or in the browser. */
#ifndef LAB_CROSSOVER_H
#define LAB_CROSSOVER_H

#include "params.h"
#include "profiles.h"

#define LAB_CROSSOVER_MIN_N 16
#define LAB_CROSSOVER_MAX_SIZES 12
#define LAB_CROSSOVER_MAX_SAMPLES 15
#define LAB_CROSSOVER_SIZE_BUDGET_MS 600.0 /* stop sampling a CPU size after this */

typedef struct lab_crossover_measure {
  int n_sizes;
  int n[LAB_CROSSOVER_MAX_SIZES];
  /* Medians, ms per matmul: CPU; GPU kernel alone (events); GPU as the host
   * sees it, data already on the device (launch + kernel + synchronize);
   * GPU with the copies of A and B up and C down (pageable memory). */
  double cpu_ms[LAB_CROSSOVER_MAX_SIZES], gpu_kernel_ms[LAB_CROSSOVER_MAX_SIZES];
  double gpu_ms[LAB_CROSSOVER_MAX_SIZES], gpu_copies_ms[LAB_CROSSOVER_MAX_SIZES];
  int cpu_samples[LAB_CROSSOVER_MAX_SIZES]; /* fewer than asked when the size budget ran out */
  int samples, warmup;
  double cpu_iqr_pct; /* the largest spread among the CPU points */
  int validated;      /* -1: not checked (simulated) */
  double max_abs_err;
} lab_crossover_measure;

/* The sweep: 16, 32, 64, … up to max_n, then max_n itself. */
int lab_crossover_sizes(int max_n, int *out, int cap);
/* The inputs of size n (row-major, standard normal, seeded by n), so the CPU
 * and the GPU multiply the same matrices. */
void lab_crossover_inputs(float *a, float *b, int n);
/* Times the CPU matmul for every size in m->n (m->n_sizes, m->samples set):
 * one warm-up, then up to m->samples timed runs per size within the size
 * budget; fills cpu_ms, cpu_samples, cpu_iqr_pct. */
int lab_crossover_cpu(lab_crossover_measure *m, lab_error *err);
/* Smallest n from which `fast` beats `slow` at that size and every larger
 * one; 0 when it never does. */
int lab_crossover_point(const lab_crossover_measure *m, const double *fast, const double *slow);

cJSON *lab_crossover_envelope(const lab_params *p, const lab_crossover_measure *m, const char *backend,
                              const char *device_name, const lab_profile *prof);
/* The verdict, written from the envelope's own series: it compares the GPU
 * with the best CPU line the envelope holds ("cpu", and "cpu_server" once
 * the browser has added the server's line beside its own): a tuned BLAS
 * when there is one (its series has "blas": true), else the faster; and
 * (re)writes from that one comparison the metrics, every finding and
 * details.headline = {cpu, cpu_label, sizes: [{n, faster: "cpu"|"gpu"}]},
 * which the page's headline shows. Called by lab_crossover_envelope, and
 * by the browser again when the server's line joins. Returns -1 (and
 * changes nothing) when the series are not a crossover's. */
int lab_crossover_judge(cJSON *env);

/* Its parameters, X(name, kind, min, max, default, unit, help, choices): lab/face/params.h
 * generates the spec table and the typed struct lab_params_crossover from this list. */
#define LAB_PARAMS_crossover(X) \
  X(max_size, INT, 32, 1024, 512, "elements", \
    "Largest matrix side N of the sweep 16, 32, 64, ...; the CPU part grows as N^3 (1024 takes seconds).", NULL) \
  X(samples, INT, 1, LAB_CROSSOVER_MAX_SAMPLES, 5, NULL, \
    "Timed runs per size (the CPU stops early on a size after 0.6 s); medians are reported.", NULL)

LAB_PARAMS_STRUCT(crossover)

#endif
