/* `graphs`: CUDA graphs against one-by-one launches. A chain of N tiny
 * elementwise kernels (each updates the buffer the previous one wrote) is
 * launched eagerly, kernel by kernel, and as one captured graph replayed
 * with a single call; plus the one-off capture + instantiate cost, when it
 * pays back, and a sweep of kernel size that shows when a graph stops helping. */
#ifndef LAB_GRAPHS_H
#define LAB_GRAPHS_H

#include "params.h"
#include "profiles.h"
#include "framework.h"

#define LAB_GRAPHS_MAX_SAMPLES 30
#define LAB_GRAPHS_WARMUP 2
#define LAB_GRAPHS_SWEEP_POINTS 8      /* elements per kernel: 2^10, 2^12 … 2^24 */
#define LAB_GRAPHS_SWEEP_KERNELS 100   /* kernels per sweep batch (fewer if `kernels` is smaller) */
#define LAB_GRAPHS_TL_KERNELS 12       /* kernels drawn on the timeline, per mode */
#define LAB_GRAPHS_CHECK_ELEMENTS 4096 /* elements compared with the CPU reference */

/* The coefficients of kernel k of the chain, x ← x·a + b_k (one fused
 * multiply-add per element, so the GPU and the CPU round the same way). */
float lab_graphs_coef_a(void);
float lab_graphs_coef_b(int k);
/* The CPU reference: x0 after `kernels` kernels of the chain. */
float lab_graphs_reference(float x0, int kernels);
/* Elements per kernel at sweep point i. */
int lab_graphs_sweep_elements(int i);

/* One way of launching the batch: raw samples, then medians. */
typedef struct lab_graphs_mode {
  double total_us[LAB_GRAPHS_MAX_SAMPLES];  /* host clock: first launch call → synchronize returned */
  double launch_us[LAB_GRAPHS_MAX_SAMPLES]; /* host clock: inside the launch call(s) */
  double gpu_us[LAB_GRAPHS_MAX_SAMPLES];    /* CUDA events around the batch on the stream */
  double med_total_us, med_launch_us, med_gpu_us, iqr_pct;
} lab_graphs_mode;

typedef struct lab_graphs_measure {
  int kernels, elements, samples, warmup, sweep;
  lab_graphs_mode eager, graph;
  double capture_us, instantiate_us; /* one-off, host clock */
  /* Sweep: per-kernel time (total / kernels) at growing kernel size. */
  int n_sweep, sweep_kernels;
  double sweep_elements[LAB_GRAPHS_SWEEP_POINTS];
  double sweep_eager_us[LAB_GRAPHS_SWEEP_POINTS], sweep_graph_us[LAB_GRAPHS_SWEEP_POINTS];
  double sweep_body_us[LAB_GRAPHS_SWEEP_POINTS]; /* one kernel's own GPU time (graph events / kernels) */
  /* Timeline: a short chain of n_tl kernels launched eagerly, then as a
   * graph, on one clock (µs from the first launch). */
  int n_tl;
  double tl_launch_start[LAB_GRAPHS_TL_KERNELS], tl_launch_end[LAB_GRAPHS_TL_KERNELS];
  double tl_eager_start[LAB_GRAPHS_TL_KERNELS], tl_eager_end[LAB_GRAPHS_TL_KERNELS];
  double tl_eager_sync_start, tl_eager_sync_end;
  double tl_glaunch_start, tl_glaunch_end;
  double tl_graph_start[LAB_GRAPHS_TL_KERNELS], tl_graph_end[LAB_GRAPHS_TL_KERNELS];
  double tl_graph_sync_start, tl_graph_sync_end;
  int validated; /* -1: not checked (simulated) */
  double max_abs_err;
} lab_graphs_measure;

/* Medians (and the spread) of both modes' samples. */
void lab_graphs_summarize(lab_graphs_measure *m);
/* Builds the envelope (backend "cuda" or "simulated"); prof NULL for a real run. */
cJSON *lab_graphs_envelope(const lab_params *p, const lab_graphs_measure *m, const char *backend,
                           const char *device_name, const lab_profile *prof);

/* Its parameters, X(name, kind, min, max, default, unit, help, choices): lab/face/params.h
 * generates the spec table and the typed struct lab_params_graphs from this list. */
#define LAB_PARAMS_graphs(X) \
  X(kernels, INT, 10, 10000, 1000, NULL, \
    "How many tiny kernels the chain has; each updates the buffer the previous one wrote.", NULL) \
  X(elements, INT, 32, 4194304, 4096, "elements", \
    "Floats each kernel updates (x = a*x + b); small buffers make launch-bound kernels.", NULL) \
  X(sweep, BOOL, 0, 1, 1, NULL, \
    "Also sweep the kernel size from 1 Ki to 16 Mi elements to find where a graph stops helping.", NULL) \
  X(samples, INT, 3, LAB_GRAPHS_MAX_SAMPLES, 7, NULL, \
    "Timed batches per launch mode after two warm-ups; medians are reported.", NULL) \
  LAB_FRAMEWORK_PARAM(X)

LAB_PARAMS_STRUCT(graphs)

#endif
