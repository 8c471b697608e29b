/* `timing`: the asynchronous timing trap. A cuBLAS sgemm of size N repeated
 * K times, timed three ways (host clock without synchronize, host clock
 * after synchronize, CUDA events), the first (cold) run beside warm runs,
 * and a CPU/GPU timeline of one warm run. */
#ifndef LAB_TIMING_H
#define LAB_TIMING_H

#include "params.h"
#include "profiles.h"
#include "framework.h"

#define LAB_TIMING_MAX_SAMPLES 30
#define LAB_TIMING_WARMUP 2
#define LAB_TIMING_MAX_RUNS (1 + LAB_TIMING_WARMUP + LAB_TIMING_MAX_SAMPLES)
#define LAB_TIMING_MAX_LAUNCHES 50 /* launches drawn on the timeline */
#define LAB_TIMING_MAX_FLOP 4e12   /* bound on one batch: 2·N³·K */

typedef struct lab_timing_measure {
  int size, repeats, samples, warmup;
  /* Medians over the warm samples (ms), and the events' spread. The three
   * clocks bracket the same batch, launched as a program launches it. */
  double host_nosync_ms, host_sync_ms, events_ms, iqr_pct;
  double nosync_ms[LAB_TIMING_MAX_SAMPLES], sync_ms[LAB_TIMING_MAX_SAMPLES], ev_ms[LAB_TIMING_MAX_SAMPLES];
  /* The GPU's own time for a batch: events around a batch queued behind a
   * hold (no waiting for launches in it). Per-sgemm time and TFLOPS use it. */
  double busy_ms, busy_iqr_pct;
  double busy_samples_ms[LAB_TIMING_MAX_SAMPLES];
  /* The first batch: cublasCreate + the first sgemms (kernels loaded) +
   * synchronize, on the host clock. cold_fresh: 1 measured in a fresh
   * process (truly cold), 0 in this worker (which may have loaded cuBLAS
   * for an earlier run), -1 modelled. context_ms: starting CUDA, creating
   * the context at that fresh process's first CUDA call, before the first
   * batch (0 when not measured, and on MPS, which has none). platform:
   * whose context it is (CUDA for a real run). */
  double cold_ms, context_ms;
  int cold_fresh;
  lab_platform platform;
  int n_runs;                          /* cold + warm-up + samples */
  double run_ms[LAB_TIMING_MAX_RUNS];  /* host-synchronized time of every batch, in order */
  /* One warm batch on a common clock (µs from the first host call). */
  int n_launches;
  double launch_start_us[LAB_TIMING_MAX_LAUNCHES], launch_end_us[LAB_TIMING_MAX_LAUNCHES];
  double gpu_start_us[LAB_TIMING_MAX_LAUNCHES], gpu_end_us[LAB_TIMING_MAX_LAUNCHES];
  double sync_start_us, sync_end_us;
  int validated; /* -1: not checked (simulated) */
  double max_abs_err;
} lab_timing_measure;

/* The cold bar's first part, as the results name it: "starting CUDA"
 * ("starting ROCm" under ROCm); NULL on MPS, which has no context to create. */
const char *lab_timing_start_part(lab_platform platform);

/* Checks what the bounds alone cannot: one batch stays under LAB_TIMING_MAX_FLOP. */
int lab_timing_check(const lab_params *p, lab_error *err);

/* Medians of the clocks' samples (and the events' spread) into m. */
void lab_timing_summarize(lab_timing_measure *m);
/* The findings of m, each a claim its numbers support (unit-tested at the
 * edges: equal times, zero, huge). */
void lab_timing_findings(cJSON *env, const lab_timing_measure *m);
/* Builds the envelope (backend "cuda" or "simulated"); prof NULL for a real run. */
cJSON *lab_timing_envelope(const lab_params *p, const lab_timing_measure *m, const char *backend,
                           const char *device_name, const lab_profile *prof);

/* Its parameters, X(name, kind, min, max, default, unit, help, choices): lab/face/params.h
 * generates the spec table and the typed struct lab_params_timing from this list. */
#define LAB_PARAMS_timing(X) \
  X(size, INT, 64, 8192, 2048, "elements", \
    "Side N of the square matrices multiplied (N x N times N x N, fp32).", NULL) \
  X(repeats, INT, 1, 100, 10, NULL, \
    "How many sgemms one timed batch launches back to back (2 N^3 x repeats <= 4e12 flop).", NULL) \
  X(samples, INT, 3, LAB_TIMING_MAX_SAMPLES, 7, NULL, \
    "Timed batches after the cold run and two warm-ups; medians are reported.", NULL) \
  LAB_FRAMEWORK_PARAM(X)

LAB_PARAMS_STRUCT(timing)

#endif
